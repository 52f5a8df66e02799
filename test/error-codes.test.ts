/**
 * The error codes are a contract: every error class the library exports has a code of its own, and
 * README.md's "Error codes" table lists exactly those codes, each with its class and exit code.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/core/errors.js';
import * as api from '../src/index.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The rows of the table under `heading` (a `## ` section), as cells without their backquotes. */
function tableRows(heading: string): string[][] {
  const start = README.indexOf(`\n## ${heading}\n`);
  expect(start, `README has a section "${heading}"`).toBeGreaterThanOrEqual(0);
  const section = README.slice(start + 1).split(/\n## /)[0] as string;
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
    .slice(1) // the header
    .map((line) => line.slice(1, -1).split('|').map((cell) => cell.trim().replace(/^`(.*)`$/, '$1')));
}

/** Every exported class in the AgentctlError family, made with no arguments (each takes that). */
function exportedErrors(): { name: string; error: api.AgentctlError }[] {
  return Object.entries(api)
    .filter(([, value]) => typeof value === 'function' && (value as { prototype?: unknown }).prototype instanceof api.AgentctlError)
    .map(([name, value]) => ({ name, error: Reflect.construct(value as unknown as new () => api.AgentctlError, []) }));
}

describe('error codes', () => {
  it('every exported error class has a code of its own, and every code has its class', () => {
    const errors = exportedErrors();
    expect(errors.map((e) => e.name).sort()).toEqual([
      'GuardrailStopError', 'InvalidOptionError', 'IoError', 'McpServerError', 'NotFoundError', 'ReplayDivergedError', 'StoreLockedError', 'TapeExhaustedError', 'TapeFormatError',
      'ToolNotReplayedError', 'UnexpectedError', 'UsageError',
    ]);
    for (const { name, error } of errors) {
      expect(error.name, name).toBe(name);
      expect(api.isAgentctlError(error), name).toBe(true);
      expect(error.code, name).toMatch(/^AGENTCTL_[A-Z_]+$/);
    }
    const codes = errors.map((e) => e.error.code);
    expect(new Set(codes).size).toBe(codes.length);
    // The ErrorCode union has no code without a class.
    expect([...codes].sort()).toEqual([...ERROR_CODES].sort());
    const typed: readonly api.ErrorCode[] = codes;
    expect(typed).toHaveLength(ERROR_CODES.length);
  });

  it('the README table lists exactly the exported codes, each with its class and exit code', () => {
    const rows = tableRows('Error codes');
    const documented = rows.map(([code, cls, exit]) => ({ code, cls, exit: Number(exit) }));
    const actual = exportedErrors().map(({ name, error }) => ({ code: error.code, cls: name, exit: error.exitCode }));
    const byCode = (a: { code?: string }, b: { code?: string }): number => ((a.code ?? '') < (b.code ?? '') ? -1 : 1);
    expect(documented.sort(byCode)).toEqual(actual.sort(byCode));
    for (const row of rows) expect(row[3], row[0]).not.toBe('');
  });

  it('every exit code an error ends with is in the README exit code table', () => {
    const exits = new Set(tableRows('Exit codes').map(([code]) => Number(code)));
    for (const { name, error } of exportedErrors()) expect(exits.has(error.exitCode), `${name}: exit ${error.exitCode}`).toBe(true);
  });
});
