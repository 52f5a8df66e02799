/**
 * Start-up cost: commands load only what they use. LevelDB (`level` and its native
 * `classic-level`) is loaded when a command opens the store, never for `--help`, for `ls` with no
 * store, or for commands that only read tape files — above all a `--no-save` replay of a tape file.
 * Checked with an import (and require) trace of the real binary, so the win cannot silently regress.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from './support/cli.js';
import { traced } from './support/traced.js';

const DEMO = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));
const TRACE = fileURLToPath(new URL('./support/trace-package-imports.mjs', import.meta.url));
const LEVEL = /^PACKAGE-LOADED (level|classic-level|abstract-level)$/m;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-startup-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('start-up imports', () => {
  it('a tape file replayed with --no-save, and other commands that never open the store, do not load LevelDB', async () => {
    const noStore = join(dir, 'no-store');
    const commands = [
      ['replay', DEMO, '--no-save', '--quiet'],
      ['replay', DEMO, '--no-save', '--json'],
      ['--help'],
      ['ls'],
      ['view', DEMO],
      ['diff', DEMO, DEMO],
    ];
    for (const args of commands) {
      const result = await traced(TRACE, [BIN, ...args, '--store', noStore]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stderr, args.join(' ')).not.toMatch(LEVEL);
    }
  });

  it('the regular-expression engine of untrusted patterns (re2js) is loaded only for a pattern', async () => {
    const RE2JS = /^PACKAGE-LOADED re2js$/m;
    const plain = await traced(TRACE, [BIN, 'replay', DEMO, '--no-save', '--quiet']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toMatch(RE2JS);
    const redacting = await traced(TRACE, [BIN, 'replay', DEMO, '--no-save', '--quiet', '--redact', 'code-[0-9]+']);
    expect(redacting.code, redacting.stderr).toBe(0);
    expect(redacting.stderr).toMatch(RE2JS);
  });

  it('the trace does see LevelDB when a command opens the store', async () => {
    const store = join(dir, 'store');
    expect((await runCli(['import', DEMO, '--store', store])).code).toBe(0);
    for (const args of [['show', 'demo'], ['ls'], ['replay', DEMO, '--quiet']]) {
      const result = await traced(TRACE, [BIN, ...args, '--store', store]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stderr, args.join(' ')).toMatch(LEVEL);
      // The pure-JS part of the stack is bundled (scripts/bundle-cli.mjs): from node_modules comes
      // only classic-level's native addon (found through level's package.json), not the ~40 small
      // files of abstract-level and its helpers — nor, where classic-level holds just the addons it
      // ships for this platform (as here), node-gyp-build (src/tape/level-binding.ts).
      expect(result.stderr, args.join(' ')).toMatch(/^PACKAGE-LOADED classic-level$/m);
      expect(result.stderr, args.join(' ')).not.toMatch(/^PACKAGE-LOADED (abstract-level|level-transcoder|level-supports|module-error|maybe-combine-errors)$/m);
      expect(result.stderr, args.join(' ')).not.toMatch(/^PACKAGE-LOADED node-gyp-build$/m);
    }
  });
});
