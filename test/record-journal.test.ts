/**
 * The recording journal (src/tape/journal.ts) against a real LevelDB store and real files: a
 * recorder killed with SIGKILL after its journal has a batch but before LevelDB does loses nothing,
 * because the next open replays the journal; a torn last record is ignored; a damaged or foreign
 * journal is reported in one line and kept aside, and never stops the store from opening.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Level } from 'level';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IoError, storeWriteFailed } from '../src/core/errors.js';
import type { RunEvent } from '../src/core/events.js';
import { Journal, listJournals } from '../src/tape/journal.js';
import { recoverJournals } from '../src/tape/journal-recovery.js';
import { eventKey } from '../src/tape/store-events.js';
import { TapeStore } from '../src/tape/tape-store.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-record-journal-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const dist = (path: string): string => JSON.stringify(pathToFileURL(join(process.cwd(), 'dist', path)).href);
const warning = (seq: number): RunEvent => ({ type: 'warning', seq, step: seq, t: seq, message: `event ${seq}` });
/** Events as the journal takes them: each as its JSON. */
const json = (...events: RunEvent[]): string[] => events.map((event) => JSON.stringify(event));

/**
 * A child process records seq 0–4 and waits until LevelDB has them (close); then appends 5 and 6
 * synced and 7 awaited (as a tool result is), and kills itself with SIGKILL the moment 7's append
 * resolves. The LevelDB writes behind the journal start a turn of the event loop later, so 5–7
 * were in the journal only. Returns the run id.
 */
async function killedAfterJournal(store: string): Promise<string> {
  const script = `
    import { TapeStore } from ${dist('tape/tape-store.js')};
    const warning = (seq) => ({ type: 'warning', seq, step: seq, t: seq, message: 'event ' + seq });
    const store = await TapeStore.open(${JSON.stringify(store)});
    const run = await store.createRun({ kind: 'record', task: 't', model: 'm', config: {}, seed: 1 });
    process.stdout.write('run ' + run.id + '\\n');
    const writer = store.writer(run.id);
    for (let seq = 0; seq < 5; seq++) void writer.append(warning(seq));
    await writer.close();
    await writer.append(warning(5), { sync: true });
    await writer.append(warning(6), { sync: true });
    await writer.append(warning(7), { soon: true });
    process.kill(process.pid, 'SIGKILL');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (data: string) => (out += data));
  const signal = await new Promise((resolve) => child.once('close', (_code, signal) => resolve(signal)));
  expect(signal).toBe('SIGKILL');
  return /run (\S+)/.exec(out)?.[1] ?? '';
}

/** The seqs LevelDB itself holds for a run, read without TapeStore (so without replaying any journal). */
async function seqsInLevelDb(store: string, runId: string): Promise<number[]> {
  const db = new Level<string, unknown>(store, { valueEncoding: 'json' });
  try {
    const events = db.sublevel<string, unknown>('events', { valueEncoding: 'json' });
    const seqs: number[] = [];
    for (let seq = 0; seq < 10; seq++) if ((await events.get(eventKey(runId, seq))) !== undefined) seqs.push(seq);
    return seqs;
  } finally {
    await db.close();
  }
}

async function openAndRead(store: string, runId: string): Promise<{ events: RunEvent[]; status: string; warnings: string[] }> {
  const warnings: string[] = [];
  const reopened = await TapeStore.open(store, { warn: (message) => warnings.push(message) });
  try {
    const events: RunEvent[] = [];
    for await (const event of reopened.readEvents(runId)) events.push(event);
    return { events, status: (await reopened.getRun(runId)).status, warnings };
  } finally {
    await reopened.close();
  }
}

const range = (n: number): RunEvent[] => [...Array(n).keys()].map(warning);

it('replays the journal at open after a SIGKILL between the journal sync and the LevelDB write', async () => {
  const store = join(dir, 'killed');
  const runId = await killedAfterJournal(store);
  // The situation the journal is for: LevelDB lacks what the recorder had been told was written.
  expect(await seqsInLevelDb(store, runId)).toEqual([0, 1, 2, 3, 4]);
  expect(listJournals(store)).toHaveLength(1);

  const first = await openAndRead(store, runId);
  expect(first).toEqual({ events: range(8), status: 'incomplete', warnings: [] });
  // Replayed, synced, removed: LevelDB alone has it all now, and a second open changes nothing.
  expect(listJournals(store)).toEqual([]);
  expect(await seqsInLevelDb(store, runId)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  expect(await openAndRead(store, runId)).toEqual(first);
});

it('ignores a torn last journal record', async () => {
  const store = join(dir, 'torn');
  const runId = await killedAfterJournal(store);
  const [path] = listJournals(store) as [string];
  // Half of a record for seq 8 where the zeros after the last record were (power lost mid-write).
  const bytes = readFileSync(path);
  const end = bytes.indexOf(0);
  const half = Buffer.from(`${'ab'.repeat(32)} ${JSON.stringify({ run: runId, events: [warning(8)] })}`).subarray(0, 60);
  half.copy(bytes, end);
  writeFileSync(path, bytes);

  expect(await openAndRead(store, runId)).toEqual({ events: range(8), status: 'incomplete', warnings: [] });
  expect(listJournals(store)).toEqual([]);
});

it('recovers what precedes a damaged journal record, reports it in one line and keeps the file', async () => {
  const store = join(dir, 'damaged');
  const runId = await killedAfterJournal(store);
  const [path] = listJournals(store) as [string];
  // Damage the record of seq 6 (the third): 5 is recovered from the journal, 6 and 7 cannot be.
  const bytes = readFileSync(path);
  let at = 0;
  for (let i = 0; i < 2; i++) at = bytes.indexOf('\n', at) + 1;
  const message = bytes.indexOf('event 6', at);
  bytes.write('EVENT', message);
  writeFileSync(path, bytes);

  const { events, warnings } = await openAndRead(store, runId);
  expect(events).toEqual(range(6));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toBe(
    `the recording journal ${path} is damaged (record at byte ${at}: checksum mismatch): 6 events before it were recovered; the file is kept as ${path}.damaged`,
  );
  expect(warnings[0]).not.toContain('\n');
  expect(listJournals(store)).toEqual([]);
  expect(existsSync(`${path}.damaged`)).toBe(true);
  // Kept aside, it is not read again.
  expect((await openAndRead(store, runId)).warnings).toEqual([]);
});

it('writes nothing from a journal whose run is not in the store, and says so', async () => {
  const store = join(dir, 'foreign');
  const runId = await killedAfterJournal(store);
  const [path] = listJournals(store) as [string];
  const saved = readFileSync(path);
  const other = await TapeStore.open(store);
  await other.deleteRun(runId);
  await other.close();
  // The same journal again, now for a run the store does not have.
  writeFileSync(path, saved);

  const warnings: string[] = [];
  const reopened = await TapeStore.open(store, { warn: (message) => warnings.push(message) });
  await reopened.close();
  expect(warnings).toEqual([
    `the recording journal ${path} is damaged (its run ${runId} is not in the store): nothing was replayed; the file is kept as ${path}.damaged`,
  ]);
  expect(await seqsInLevelDb(store, runId)).toEqual([]);
});

it('replays a long journal in several writes', async () => {
  const path = join(dir, 'long');
  const store = await TapeStore.open(path);
  const run = await store.createRun({ kind: 'record', task: 't', model: 'm', config: {}, seed: 1 });
  await store.close();
  // What a recorder killed after 2,500 events would have left, in batches of 700.
  const journal = Journal.open(path, run.id);
  for (let from = 0; from < 2500; from += 700) journal.append(json(...range(Math.min(2500, from + 700)).slice(from)), true);
  journal.close();
  expect(await openAndRead(path, run.id)).toEqual({ events: range(2500), status: 'incomplete', warnings: [] });
  expect(listJournals(path)).toEqual([]);
});

it('leaves no journal behind a run that finished, and none for an import', async () => {
  const path = join(dir, 'finished');
  const store = await TapeStore.open(path);
  try {
    const run = await store.createRun({ kind: 'record', task: 't', model: 'm', config: {}, seed: 1 });
    const writer = store.writer(run.id);
    for (let seq = 0; seq < 3; seq++) void writer.append(warning(seq), { sync: seq === 2 });
    expect(listJournals(path)).toHaveLength(1);
    await writer.close();
    await store.finishRun(run.id, { eventCount: 3, status: 'incomplete' });
    expect(listJournals(path)).toEqual([]);
    const events: RunEvent[] = [];
    for await (const event of store.readEvents(run.id)) events.push(event);
    expect(events).toEqual(range(3));

    async function* tape(): AsyncGenerator<RunEvent> {
      yield* range(2);
    }
    await store.putRun({ ...run, id: '01M80BD0DH1T99S5EY9167MAX9', status: 'complete', eventCount: 2 }, tape());
    expect(listJournals(path)).toEqual([]);
  } finally {
    await store.close();
  }
});

it('reports zeros in the middle of a journal as damage, not as where the writing stopped', async () => {
  const store = join(dir, 'zeros');
  const runId = await killedAfterJournal(store);
  const [path] = listJournals(store) as [string];
  // Zero ten bytes inside the second record: valid records follow the zeros.
  const bytes = readFileSync(path);
  const second = bytes.indexOf('\n') + 1;
  bytes.fill(0, second + 70, second + 80);
  writeFileSync(path, bytes);

  const { events, warnings } = await openAndRead(store, runId);
  expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
  expect(warnings).toEqual([
    `the recording journal ${path} is damaged (record at byte ${second}: zeros in the middle of the journal): 5 events before it were recovered; the file is kept as ${path}.damaged`,
  ]);
  expect(existsSync(`${path}.damaged`)).toBe(true);
});

it('keeps a second damaged journal of a run beside the first, never over it', async () => {
  const store = join(dir, 'damaged-twice');
  const runId = await killedAfterJournal(store);
  const [path] = listJournals(store) as [string];
  const saved = readFileSync(path);
  mkdirSync(`${path}.damaged`);
  writeFileSync(path, Buffer.concat([saved.subarray(0, saved.indexOf('\n') + 1), Buffer.from('not a record\n')]));
  const { warnings } = await openAndRead(store, runId);
  expect(warnings[0]).toMatch(new RegExp(`the file is kept as ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.damaged\\.1$`));
  expect(statSync(`${path}.damaged`).isDirectory()).toBe(true);
  expect(existsSync(`${path}.damaged.1`)).toBe(true);
});

it('leaves alone what only has a journal\'s name (a directory, a symbolic link, a FIFO), and opens', async () => {
  const store = join(dir, 'not-journals');
  const made = await TapeStore.open(store);
  const run = await made.createRun({ kind: 'record', task: 't', model: 'm', config: {}, seed: 1 });
  await made.close();
  mkdirSync(join(store, 'journal-A.jsonl'));
  symlinkSync('/etc/hostname', join(store, 'journal-B.jsonl'));
  symlinkSync(join(store, 'nowhere'), join(store, 'journal-C.jsonl'));
  execFileSync('mkfifo', [join(store, 'journal-D.jsonl')]);
  expect(listJournals(store)).toEqual([]);
  const { status, warnings } = await openAndRead(store, run.id);
  expect({ status, warnings }).toEqual({ status: 'incomplete', warnings: [] });
});

it('does not replay the journal of a run marked complete: its events were made durable before it was', async () => {
  const store = join(dir, 'complete');
  const opened = await TapeStore.open(store);
  const run = await opened.createRun({ kind: 'record', task: 't', model: 'm', config: {}, seed: 1 });
  const writer = opened.writer(run.id);
  for (const event of range(3)) void writer.append(event);
  await writer.close();
  await opened.finishRun(run.id, { eventCount: 3 });
  await opened.close();
  // A journal for it appears (left by a recorder killed after the run was marked complete, or forged).
  const journal = Journal.open(store, run.id);
  journal.append(json({ type: 'warning', seq: 0, step: 0, t: 0, message: 'rewritten' }), true);
  journal.close();
  const { events, status, warnings } = await openAndRead(store, run.id);
  expect({ events, status, warnings }).toEqual({ events: range(3), status: 'complete', warnings: [] });
  expect(listJournals(store)).toEqual([]);
});

it('a journal that cannot be written is a one-line I/O error (AGENTCTL_IO, exit 12), and the run keeps what it had', async () => {
  const store = join(dir, 'unwritable');
  const opened = await TapeStore.open(store);
  const run = await opened.createRun({ kind: 'record', task: 't', model: 'm', config: {}, seed: 1 });
  // Something already has the journal's name: the recorder cannot create its journal.
  mkdirSync(join(store, `journal-${run.id}.jsonl`));
  let error: unknown;
  try {
    opened.writer(run.id);
  } catch (caught) {
    error = caught;
  }
  await opened.close();
  expect(error).toBeInstanceOf(IoError);
  expect((error as IoError).code).toBe('AGENTCTL_IO');
  expect((error as IoError).exitCode).toBe(12);
  expect((error as Error).message).toMatch(new RegExp(`^cannot write to the store ${store.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: EEXIST`));
  expect((error as Error).message).not.toContain('\n');
});

it('a store that cannot be written while a journal is put back is an I/O error (exit 12), not bad store data, and the journal stays', async () => {
  const store = join(dir, 'recovery-fails');
  const opened = await TapeStore.open(store);
  const run = await opened.createRun({ kind: 'record', task: 't', model: 'm', config: {}, seed: 1 });
  await opened.close();
  const journal = Journal.open(store, run.id);
  journal.append(json(warning(0), warning(1)), true);
  journal.close();
  // LevelDB refusing the write as a full disk would (a full disk cannot be made here).
  const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
  const error = await recoverJournals(store, {
    status: () => Promise.resolve('incomplete'),
    put: () => Promise.reject(storeWriteFailed(store, full)),
    flush: () => Promise.resolve(),
  }, () => undefined).then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(IoError);
  expect(error).toMatchObject({ code: 'AGENTCTL_IO', exitCode: 12, message: `cannot write to the store ${store}: ENOSPC: no space left on device, write` });
  expect(listJournals(store)).toHaveLength(1);
});
