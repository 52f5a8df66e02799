/**
 * Files the system cannot read, through the real binary: one line and the documented exit code,
 * never a stack — 12 for an I/O error, 2 for a path that is no file to read.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-read-errors-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a file the system cannot read', () => {
  it('a tape file that fails with an I/O error: one line, exit 12', async () => {
    // A process reading its own memory from offset 0 gets EIO: a real I/O error, with no failing disk.
    expect(existsSync('/proc/self/mem'), 'this test needs /proc (Linux)').toBe(true);
    const tape = join(dir, 'unreadable.tape.jsonl');
    await symlink('/proc/self/mem', tape);
    for (const args of [['replay', tape, '--no-save'], ['view', tape]]) {
      const result = await runCli(args, { env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined } });
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(12);
      expect(result.stderr, args[0]).toBe(`agentctl: cannot read ${tape}: an I/O error (EIO)\n`);
    }
  });

  it('a config file that is a directory: one line, exit 2', async () => {
    const config = join(dir, 'config-dir');
    await mkdir(config);
    const result = await runCli(['record', '--task', 'x', '--config', config, '--base-url', 'http://127.0.0.1:9/v1', '--store', join(dir, 'store')], {
      env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined },
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toBe(`agentctl: cannot read ${config}: it is a directory\n`);
  });
});
