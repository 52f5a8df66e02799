/**
 * Start-up cost: the CLI is CommonJS — bin/agentctl.js and the bundle in dist/cli-bundle
 * (scripts/commonjs-chunks.mjs) — so the commands without the terminal UI never set up Node's ES
 * module loader, which costs every ES module program a few milliseconds before its first line runs.
 * The UI still loads Ink (ES modules only) with import(): test/tui-terminal.test.ts runs it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from './support/cli.js';
import { traced } from './support/traced.js';

const DEMO = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));
const TRACE = fileURLToPath(new URL('./support/trace-loads.cjs', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-commonjs-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const esmLoader = (stderr: string): string | undefined => /^ESM-LOADER (\S+)$/m.exec(stderr)?.[1];

describe('start-up: the CLI loads no ES module', () => {
  it('the trace sees an ES module when one is loaded (so that its "unused" means something)', async () => {
    const result = await traced(TRACE, ['-e', "import('node:fs').then(() => undefined)"]);
    expect(result.code, result.stderr).toBe(0);
    expect(esmLoader(result.stderr), 'the trace no longer sees ES modules: Node renamed its module job?').toBe('used');
    const plain = await traced(TRACE, ['-e', "require('node:fs')"]);
    expect(esmLoader(plain.stderr)).toBe('unused');
  });

  it('--help, ls, show and a --no-save replay run without the ES module loader', async () => {
    const store = join(dir, 'store');
    expect((await runCli(['import', DEMO, '--store', store])).code).toBe(0);
    const commands = [['--help'], ['ls', '--store', store], ['show', 'demo', '--store', store], ['replay', DEMO, '--no-save', '--quiet', '--store', join(dir, 'none')]];
    for (const args of commands) {
      const result = await traced(TRACE, [BIN, ...args]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(esmLoader(result.stderr), args.join(' ')).toBe('unused');
    }
  });
});
