/**
 * End-to-end: the real binary on a store that is damaged, read-only or on a full disk. A damaged
 * store is refused (exit 9, naming the file) before anything is written — never "repaired" by
 * dropping runs; a store that cannot be written is still read by the commands that only read; a
 * full disk is one line and exit 12. Read-only and full file systems are made with bubblewrap (a
 * read-only bind mount, a tiny tmpfs), which holds for root too: permissions do not stop root.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, runProgram, type CliResult } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import { loadScenario } from './support/scenario.js';

let dir: string;
let workspace: string;
/** A store holding one recorded run, its events written out to a table file (never changed by a test). */
let pristine: string;
let runId: string;
let eventCount: number;
let exported: string;

const noKey = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-damaged-'));
  workspace = join(dir, 'ws');
  mkdirSync(workspace);
  await writeFile(join(workspace, 'README.md'), '# demo\n');
  pristine = join(dir, 'pristine');
  const llm = await startMockLlm(loadScenario('tool-calls-then-answer'));
  try {
    const recorded = await runCli(['record', '--task', 'look around', '--base-url', llm.baseURL, '--workspace', workspace, '--store', pristine, '--json'], { env: noKey });
    expect(recorded.code).toBe(0);
    runId = String((JSON.parse(recorded.stdout.trim().split('\n').at(-1) as string) as { runId: string }).runId);
  } finally {
    await llm.close();
  }
  const shown = await runCli(['show', runId, '--json', '--store', pristine]);
  eventCount = (JSON.parse(shown.stdout) as { events: number }).events;
  expect(eventCount).toBeGreaterThan(10);
  exported = (await runCli(['export', runId, '--store', pristine])).stdout;
  // The run's events are in a table file (what LevelDB deletes when it makes a new database over them).
  expect(tables(pristine)).not.toEqual([]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function tables(store: string): string[] {
  return readdirSync(store).filter((name) => /^\d+\.ldb$/.test(name));
}

/** A fresh copy of the recorded store. */
function copyOf(name: string): string {
  const store = join(dir, name);
  cpSync(pristine, store, { recursive: true });
  return store;
}

/** Every file of a store with its size and bytes, to see that nothing was written. */
function snapshot(store: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(store).sort()) out[name] = readFileSync(join(store, name)).toString('base64');
  return out;
}

/** One `agentctl:` line (and perhaps a hint), never a stack trace. */
function expectOneLine(result: CliResult, code: number, pattern: RegExp): void {
  expect(result.stderr, result.stderr).toMatch(pattern);
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  const lines = result.stderr.trim().split('\n');
  expect(lines[0]).toMatch(/^agentctl: /);
  expect(lines.slice(1).every((line) => line.startsWith('hint: '))).toBe(true);
}

/** Run the binary inside bubblewrap, with `mounts` (bwrap arguments) over a view of the whole file system. */
function runBwrap(mounts: string[], command: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runProgram('bwrap', ['--bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...mounts, '--', ...command], { env });
}

describe('a store without CURRENT', () => {
  it('is refused by every command before anything is written, and its runs are all there once CURRENT is back', async () => {
    const store = copyOf('no-current');
    const current = readFileSync(join(store, 'CURRENT'));
    rmSync(join(store, 'CURRENT'));
    const before = snapshot(store);
    const damaged = /CURRENT: the store .* is damaged: it has no CURRENT file/;

    expectOneLine(await runCli(['ls', '--store', store]), 9, damaged);
    expectOneLine(await runCli(['show', runId, '--store', store]), 9, damaged);
    const tape = join(dir, 'no-current.tape.jsonl');
    expectOneLine(await runCli(['export', runId, '-o', tape, '--store', store]), 9, damaged);
    expect(existsSync(tape)).toBe(false);
    const llm = await startMockLlm(loadScenario('tool-calls-then-answer'));
    try {
      const record = await runCli(['record', '--task', 'again', '--base-url', llm.baseURL, '--workspace', workspace, '--store', store], { env: noKey });
      expectOneLine(record, 9, damaged);
      expect(llm.requests).toEqual([]);
    } finally {
      await llm.close();
    }
    const tapeFile = join(dir, 'no-current-import.tape.jsonl');
    writeFileSync(tapeFile, exported);
    expectOneLine(await runCli(['import', tapeFile, '--store', store]), 9, damaged);
    // The hint says which manifest CURRENT named.
    const hint = (await runCli(['ls', '--store', store])).stderr;
    expect(hint).toMatch(/hint: .*printf 'MANIFEST-\d+\\n' > /);
    expect(snapshot(store)).toEqual(before);

    writeFileSync(join(store, 'CURRENT'), current);
    const shown = await runCli(['show', runId, '--json', '--store', store]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ run: { id: runId }, events: eventCount });
    expect((await runCli(['export', runId, '--store', store])).stdout).toBe(exported);
  });
});

describe('an unreadable manifest', () => {
  it('is refused by every command, naming it, before any data is written; the runs are all there once it is whole', async () => {
    const store = copyOf('bad-manifest');
    const manifest = join(store, readFileSync(join(store, 'CURRENT'), 'utf8').trim());
    const written = readFileSync(manifest);
    const flipped = Buffer.from(written);
    flipped[10] = (flipped[10] as number) ^ 0xff;
    writeFileSync(manifest, flipped);
    // LevelDB rotates its own info log (LOG) at every open: the rest is the store's data.
    const data = (): Record<string, string> => Object.fromEntries(Object.entries(snapshot(store)).filter(([name]) => !name.startsWith('LOG')));
    const before = data();
    const named = new RegExp(`^agentctl: ${manifest}: the store ${store} is damaged: record at byte 0 fails its checksum; LevelDB says: Corruption`);
    expectOneLine(await runCli(['ls', '--store', store]), 9, named);
    expectOneLine(await runCli(['show', runId, '--store', store]), 9, named);
    expectOneLine(await runCli(['record', '--task', 'again', '--base-url', 'http://127.0.0.1:9/v1', '--workspace', workspace, '--store', store], { env: noKey }), 9, named);
    expect(data()).toEqual(before);
    writeFileSync(manifest, written);
    expect((await runCli(['export', runId, '--store', store])).stdout).toBe(exported);
  });
});

describe('a damaged table file', () => {
  it('a flipped byte: exit 9 naming the table file, for every command that reads it; nothing is deleted', async () => {
    const store = copyOf('flipped');
    const table = join(store, tables(store)[0] as string);
    const bytes = readFileSync(table);
    bytes[0] = (bytes[0] as number) ^ 0xff; // the first data block: the run's first events
    writeFileSync(table, bytes);
    const named = new RegExp(`^agentctl: ${table}: the store ${store} is damaged: block at byte 0 fails its checksum; LevelDB says: Corruption`);
    expectOneLine(await runCli(['show', runId, '--store', store]), 9, named);
    expectOneLine(await runCli(['export', runId, '-o', join(dir, 'flipped.tape.jsonl'), '--store', store]), 9, named);
    expect(existsSync(join(dir, 'flipped.tape.jsonl'))).toBe(false);
    expectOneLine(await runCli(['replay', runId, '--no-save', '--store', store]), 9, named);
    // The table is still there, as damaged as it was: nothing was dropped to "repair" it.
    expect(readFileSync(table)).toEqual(bytes);
  });

  it('a truncated table file: exit 9 naming it', async () => {
    const store = copyOf('truncated');
    const table = join(store, tables(store)[0] as string);
    truncateSync(table, Math.floor(statSync(table).size / 2));
    expectOneLine(await runCli(['export', runId, '--store', store]), 9, new RegExp(`^agentctl: ${table}: the store .* is damaged: it is cut short`));
  });
});

describe('a read-only store (a read-only bind mount: root cannot write it either)', () => {
  it('ls, show, view, export and replay --no-save read it; commands that write are refused with one line', async () => {
    const store = copyOf('read-only');
    const before = snapshot(store);
    const temp = join(dir, 'tmp-read-only');
    mkdirSync(temp);
    const ro = (...args: string[]): Promise<CliResult> =>
      runBwrap(['--ro-bind', store, store], [process.execPath, BIN, ...args, '--store', store], { TMPDIR: temp });

    const ls = await ro('ls', '--json');
    expect(ls.stderr).toBe('');
    expect(JSON.parse(ls.stdout)).toMatchObject([{ id: runId, status: 'complete' }]);
    expect(JSON.parse((await ro('show', runId, '--json')).stdout)).toMatchObject({ events: eventCount });
    expect((await ro('export', runId)).stdout).toBe(exported);
    const view = await ro('view', runId, '--no-tui', '--json');
    expect(view.stderr).toBe('');
    expect(view.stdout).toBe((await runCli(['view', runId, '--no-tui', '--json', '--store', pristine])).stdout);
    const replay = await ro('replay', runId, '--no-save', '--json');
    expect(replay.stderr).toBe('');
    expect(JSON.parse(replay.stdout.trim().split('\n').at(-1) as string)).toMatchObject({ type: 'summary', verdict: 'reproduced' });

    const refused = /^agentctl: cannot write .*: read-only file system/;
    expectOneLine(await ro('replay', runId), 2, refused);
    expectOneLine(await ro('rm', runId), 2, refused);
    writeFileSync(join(dir, 'ro-import.tape.jsonl'), exported);
    expectOneLine(await ro('import', join(dir, 'ro-import.tape.jsonl')), 2, refused);

    // The store is as it was, and the copies read were removed.
    expect(snapshot(store)).toEqual(before);
    expect(readdirSync(temp)).toEqual([]);
  });
});

describe('a full disk', () => {
  it('ls and show: one line and exit 12, and the store is whole once there is room again', async () => {
    const mount = join(dir, 'full');
    mkdirSync(mount);
    const store = join(mount, 'store');
    const cli = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`;
    // Inside the sandbox: a 512 KiB tmpfs holding the store, filled up; then agentctl, then room again.
    const script = [
      `cp -r ${JSON.stringify(pristine)} ${JSON.stringify(store)}`,
      `head -c 2000000 /dev/zero > ${JSON.stringify(join(mount, 'fill'))} 2>/dev/null`,
      `${cli} ls --store ${JSON.stringify(store)}; echo "ls exit $?"`,
      `${cli} show ${runId} --store ${JSON.stringify(store)}; echo "show exit $?"`,
      `rm ${JSON.stringify(join(mount, 'fill'))}`,
      `${cli} show ${runId} --json --store ${JSON.stringify(store)}`,
    ].join('\n');
    const result = await runBwrap(['--size', String(512 * 1024), '--tmpfs', mount], ['sh', '-c', script]);
    const out = result.stdout.trim().split('\n');
    expect(out.slice(0, 2)).toEqual(['ls exit 12', 'show exit 12']);
    expect(JSON.parse(out[2] as string)).toMatchObject({ run: { id: runId }, events: eventCount });
    const errors = result.stderr.trim().split('\n');
    expect(errors).toEqual([
      `agentctl: cannot write ${store}: no space left on the device (ENOSPC)`,
      `agentctl: cannot write ${store}: no space left on the device (ENOSPC)`,
    ]);
  });
});
