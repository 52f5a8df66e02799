/**
 * Standard output written to its descriptor directly (src/cli/io.ts): `ls` and `show` print without
 * loading Node's stream machinery (which would lengthen their start-up), and lose nothing for it. A closed pipe ends
 * the output quietly; a descriptor left non-blocking (here: the process itself touched
 * process.stdout, as Node does for a pipe) that fills up sends the rest through the stream, whole
 * and in order; an output that cannot be written (a full disk: /dev/full) is one line and exit 2,
 * written directly or through the stream.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TapeStore } from '../src/tape/tape-store.js';
import { BIN, type CliResult } from './support/cli.js';
import { traced } from './support/traced.js';

const MAIN = fileURLToPath(new URL('../dist/cli-bundle/main.js', import.meta.url));
const DEMO = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));
const TRACE = fileURLToPath(new URL('./support/trace-loads.cjs', import.meta.url));
/**
 * `ls --json` of these runs is ~1.2 MB: several times what the pipe to this process can hold (Node's
 * child pipes are socket pairs: some 200–400 KB of socket buffers on Linux).
 */
const RUNS = 150;
const TASK = 'x'.repeat(8000);
let dir: string;
let store: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-stdout-'));
  store = join(dir, 'store');
  const db = await TapeStore.open(store);
  for (let i = 0; i < RUNS; i++) {
    const run = await db.createRun({ kind: 'record', task: `${i} ${TASK}`, model: 'gpt-test', config: { model: 'gpt-test' }, seed: i });
    await db.finishRun(run.id, { finalState: 'COMPLETED', eventCount: 0, totals: { steps: 0, llmCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, cost: 0 } });
  }
  await db.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Run `node ...args`. Its standard output is a pipe to this process, or the descriptor `into`;
 * `closeAtOnce`: close the pipe's reading end straight away; `readAfterMs`: start reading only then.
 */
function run(args: string[], options: { into?: number; closeAtOnce?: boolean; readAfterMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', options.into ?? 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    if (options.closeAtOnce) child.stdout?.destroy();
    else if (child.stdout !== null) {
      const out = child.stdout;
      out.setEncoding('utf8').pause();
      setTimeout(() => out.on('data', (d: string) => (stdout += d)).resume(), options.readAfterMs ?? 0);
    }
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const taskNumbers = (stdout: string): number[] => (JSON.parse(stdout) as { task: string }[]).map((run) => Number(run.task.split(' ')[0]));

describe('standard output', () => {
  it('ls and show print everything without loading the stream machinery', async () => {
    const ls = await traced(TRACE, [BIN, 'ls', '--json', '--store', store]);
    expect(ls.code, ls.stderr).toBe(0);
    expect(taskNumbers(ls.stdout).sort((a, b) => a - b)).toEqual([...Array(RUNS).keys()]);
    const id = (JSON.parse(ls.stdout) as { id: string }[])[0]!.id;
    const show = await traced(TRACE, [BIN, 'show', id, '--store', store]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(id);
    for (const result of [ls, show]) {
      const builtins = [...result.stderr.matchAll(/^BUILTIN-LOADED (\S+)$/gm)].map((m) => m[1]);
      expect(builtins).toContain('fs');
      expect(builtins).not.toContain('stream');
    }
  });

  it('a reader that goes away ends the output quietly: exit 0, nothing on standard error', async () => {
    const commands = [
      ['ls', '--json', '--store', store], // written directly
      ['replay', DEMO, '--no-save', '--json'], // through the stream (a replay checks for a terminal)
    ];
    for (const args of commands) {
      const result = await run([BIN, ...args], { closeAtOnce: true });
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(0);
      expect(result.stderr, args[0]).toBe('');
    }
  });

  it('a non-blocking descriptor that fills up: the rest goes through the stream, whole and in order', async () => {
    // The program touches process.stdout first: for a pipe, Node makes the descriptor non-blocking.
    // Nobody reads for a while, so a direct write meets a full pipe (EAGAIN).
    const script = `process.stdout; require(${JSON.stringify(MAIN)}).main(['node', 'agentctl', 'ls', '--json', '--store', ${JSON.stringify(store)}]);`;
    // One after the other: a store is opened by one process at a time.
    const plain = await run([BIN, 'ls', '--json', '--store', store]);
    const direct = await run(['-e', script], { readAfterMs: 500 });
    expect(plain.code, plain.stderr).toBe(0);
    expect(direct.code, direct.stderr).toBe(0);
    expect(direct.stderr).toBe('');
    expect(direct.stdout.length).toBeGreaterThan(1024 * 1024);
    expect(direct.stdout).toBe(plain.stdout);
  });

  it('an output that cannot be written (a full disk) is one line and exit 12, directly or through the stream', async () => {
    expect(existsSync('/dev/full'), 'this test needs /dev/full (Linux)').toBe(true);
    const commands = [
      ['ls', '--store', store], // written directly
      ['replay', DEMO, '--no-save', '--json'], // through the stream (a replay checks for a terminal)
    ];
    for (const args of commands) {
      const full = openSync('/dev/full', 'w');
      const result = await run([BIN, ...args], { into: full }).finally(() => closeSync(full));
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(12);
      expect(result.stderr, args[0]).toMatch(/^agentctl: cannot write to standard output: ENOSPC\b.*\n$/);
    }
  });
});
