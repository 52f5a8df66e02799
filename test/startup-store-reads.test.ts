/**
 * Start-up cost: `ls` and `show` open the store only to read it. The store's journal
 * checksums its records with sha-256, but a store opened to be read has no journal to check, so
 * node:crypto (milliseconds to load) is loaded only when a journal record is written or read back. And no
 * command loads node:child_process just because commander would, should it ever run a subcommand file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from './support/cli.js';
import { traced } from './support/traced.js';

const DEMO = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));
const TRACE = fileURLToPath(new URL('./support/trace-bundle-chunks.mjs', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-store-reads-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const builtins = (stderr: string): string[] => [...stderr.matchAll(/^BUILTIN-LOADED (\S+)$/gm)].map((m) => m[1]!);

describe('start-up: reading a store loads no node:crypto', () => {
  it('ls and show open the store (its chunk loads) without loading node:crypto', async () => {
    const store = join(dir, 'store');
    expect((await runCli(['import', DEMO, '--store', store])).code).toBe(0);
    for (const args of [['ls'], ['show', 'demo']]) {
      const result = await traced(TRACE, [BIN, ...args, '--store', store]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout, args.join(' ')).toContain('demo');
      const loaded = builtins(result.stderr);
      // The trace sees the built-ins: the store's own (fs) are there, node:crypto is not.
      expect(loaded, args.join(' ')).toContain('fs');
      expect(loaded, args.join(' ')).not.toContain('crypto');
    }
  });

  it('a replay, which hashes requests, does load it (the trace would see it)', async () => {
    const result = await traced(TRACE, [BIN, 'replay', DEMO, '--no-save', '--quiet', '--store', join(dir, 'no-store')]);
    expect(result.code, result.stderr).toBe(0);
    expect(builtins(result.stderr)).toContain('crypto');
  });
});

describe('start-up: commander does not load node:child_process', () => {
  // commander needs it only for executable subcommands, which agentctl has none of; the bundle gives
  // it a stand-in that loads the module on first use (scripts/bundle-cli.mjs). Loading it would
  // bring net, dgram and the stream machinery (milliseconds) into every command's start-up.
  it('--help, ls and show run without loading it', async () => {
    const store = join(dir, 'store-cp');
    expect((await runCli(['import', DEMO, '--store', store])).code).toBe(0);
    for (const args of [['--help'], ['ls'], ['show', 'demo']]) {
      const result = await traced(TRACE, [BIN, ...args, '--store', store]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      const loaded = builtins(result.stderr);
      expect(loaded, args.join(' ')).toContain('fs');
      expect(loaded, args.join(' ')).not.toContain('child_process');
    }
  });

  it('the trace sees child_process when a program does load it', async () => {
    const result = await traced(TRACE, ['-e', "require('node:child_process')"]);
    expect(result.code, result.stderr).toBe(0);
    expect(builtins(result.stderr)).toContain('child_process');
  });
});

describe('start-up: classic-level does not load node:fs/promises to open a store that exists', () => {
  // classic-level needs it only to create a missing store directory; the bundle gives it a stand-in
  // that loads the module when it does (scripts/bundle-cli.mjs). The trace here is CommonJS, which
  // loads no built-in of its own.
  const CJS_TRACE = fileURLToPath(new URL('./support/trace-loads.cjs', import.meta.url));

  it('ls and show run without loading it; a store made in a missing directory is still made', async () => {
    const store = join(dir, 'missing', 'parent', 'store');
    expect((await runCli(['import', DEMO, '--store', store])).code).toBe(0);
    for (const args of [['ls'], ['show', 'demo']]) {
      const result = await traced(CJS_TRACE, [BIN, ...args, '--store', store]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout, args.join(' ')).toContain('demo');
      expect(builtins(result.stderr), args.join(' ')).not.toContain('fs/promises');
    }
  });

  it('the trace sees fs/promises when a program does load it', async () => {
    const result = await traced(CJS_TRACE, ['-e', "require('node:fs/promises')"]);
    expect(result.code, result.stderr).toBe(0);
    expect(builtins(result.stderr)).toContain('fs/promises');
  });
});
