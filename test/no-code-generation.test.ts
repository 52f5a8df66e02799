/**
 * Reading tapes never depends on generating code from strings (`node
 * --disallow-code-generation-from-strings`, as hardened environments run Node): the quick check is
 * plain code generated ahead of time (src/tape/quick-event-check.generated.ts), and zod, which
 * compiles its object parsers with `new Function` where it may, parses without them where it may
 * not. Under that flag the golden tapes reproduce, and a tampered event is refused (exit 9) with the
 * same message as otherwise.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const TAPES = fileURLToPath(new URL('../tapes/', import.meta.url));
const NO_CODE_GENERATION = ['--disallow-code-generation-from-strings'];
/** Every read a first read: the checks themselves run. */
const env = { AGENTCTL_CACHE: 'off', OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, AGENTCTL_STORE: undefined };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-no-codegen-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tapes read without code generation from strings', () => {
  it('the golden tapes reproduce', async () => {
    const result = await runCli(['ci', TAPES], { env, nodeOptions: NO_CODE_GENERATION, timeoutMs: 60_000 });
    expect(result.stderr).not.toMatch(/EvalError|internal error/);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\b[1-9]\d* passed, 0 failed/);
  });

  it('an event with a field no event has is refused, as with code generation (exit 9)', async () => {
    const lines = (await readFile(join(TAPES, 'demo-loop.tape.jsonl'), 'utf8')).split('\n');
    const at = lines.findIndex((line) => line.includes('"type":"guardrail"'));
    lines[at] = lines[at]!.replace('{', '{"smuggled":true,');
    const tampered = join(dir, 'tampered.tape.jsonl');
    await writeFile(tampered, lines.join('\n'));
    const refusals = await Promise.all([NO_CODE_GENERATION, []].map((nodeOptions) => runCli(['replay', tampered, '--no-save', '--quiet'], { env, nodeOptions })));
    for (const refused of refusals) {
      expect(refused.code).toBe(9);
      expect(refused.stderr).toContain(`tampered.tape.jsonl:${at + 1}: invalid event`);
    }
    expect(refusals[0]!.stderr).toBe(refusals[1]!.stderr);
  });
});
