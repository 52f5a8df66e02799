/**
 * What agentctl writes, agentctl reads: a store never takes an event its run's tape could not hold,
 * and an export never writes a tape its reader refuses (real LevelDB, real files).
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError, TapeFormatError } from '../core/errors.js';
import type { RunEvent } from '../core/events.js';
import { eventKey } from './store-events.js';
import { openTapeFile, validateTapeFile, writeTapeFile } from './tape-file.js';
import { TAPE_LIMITS } from './tape-limits.js';
import { TapeStore, type NewRun } from './tape-store.js';

const newRun: NewRun = { kind: 'record', task: 't', model: 'm', config: {}, seed: 1 };
const runStart: RunEvent = { type: 'run_start', seq: 0, step: 0, t: 0, task: 't', model: 'm', seed: 1, config: {} };
const warning = (seq: number, message = `event ${seq}`): RunEvent => ({ type: 'warning', seq, step: 0, t: seq, message });
/** A value nested `depth` arrays deep: more than a tape line may nest past TAPE_LIMITS.maxDepth. */
const nested = (depth: number): unknown => (depth === 0 ? 'bottom' : [nested(depth - 1)]);
const tooDeep = (seq: number): RunEvent => ({
  type: 'http_exchange', seq, step: 0, t: seq, method: 'GET', path: '/x', hash: 'h', durationMs: 1,
  response: { status: 200, headers: {}, body: nested(TAPE_LIMITS.maxDepth + 5) },
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-limits-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function stored(store: TapeStore, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of store.readEvents(runId)) events.push(event);
  return events;
}

describe('a store takes only events a tape can hold', () => {
  it('a recording: the event is refused (exit 9) before it is written, the events before it are kept, and the run exports and imports', async () => {
    const path = join(dir, 'store');
    let store = await TapeStore.open(path);
    const run = await store.createRun(newRun);
    const writer = store.writer(run.id);
    void writer.append(runStart);
    for (let seq = 1; seq < 3; seq++) void writer.append(warning(seq));
    const refused = await writer.append(tooDeep(3), { sync: true }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TapeFormatError);
    expect(refused).toMatchObject({
      exitCode: 9,
      message: `${path}: run ${run.id}: event 3 (http_exchange) nests more than 64 levels deep, more than a tape line may: a tape could not hold it, so it is not recorded`,
    });
    await expect(writer.append(warning(4))).rejects.toBe(refused);
    await store.close();
    // The journal held only what went before: it is put back at the next open.
    store = await TapeStore.open(path);
    try {
      expect(await stored(store, run.id)).toEqual([runStart, warning(1), warning(2)]);
      const tape = join(dir, 'run.tape.jsonl');
      await writeTapeFile(tape, await store.getRun(run.id), store.readEvents(run.id));
      expect(await validateTapeFile(await openTapeFile(tape))).toBe(3);
      const other = await TapeStore.open(join(dir, 'other'));
      try {
        await other.putRun((await openTapeFile(tape)).meta, (await openTapeFile(tape)).events());
        expect(await other.countEvents(run.id)).toBe(3);
      } finally {
        await other.close();
      }
    } finally {
      await store.close();
    }
  });

  it('an import of such an event is refused and undone; so is a run whose metadata a header could not hold', async () => {
    const store = await TapeStore.open(join(dir, 'store'));
    try {
      const meta = { ...(await store.createRun(newRun)), id: 'IMPORTED', status: 'complete' as const };
      async function* events(): AsyncGenerator<RunEvent> {
        yield warning(0);
        yield tooDeep(1);
      }
      await expect(store.putRun(meta, events())).rejects.toThrow(/event 1 \(http_exchange\) nests more than 64 levels deep/);
      await expect(store.getRun('IMPORTED')).rejects.toThrow(/no run/);
      expect(await store.countEvents('IMPORTED')).toBe(0);
      await expect(store.append('IMPORTED', tooDeep(0))).rejects.toBeInstanceOf(TapeFormatError);
      const deepConfig = { ...newRun, config: { deep: nested(TAPE_LIMITS.maxDepth) } };
      await expect(store.createRun(deepConfig)).rejects.toThrow(/its metadata nests more than 64 levels deep/);
    } finally {
      await store.close();
    }
  });
});

describe('a finished run whose events are not all in the store', () => {
  it('is a damaged store (exit 9) for every read of its events, never a shorter run: no export is written', async () => {
    const path = join(dir, 'store');
    const store = await TapeStore.open(path);
    const run = await store.createRun(newRun);
    for (let seq = 0; seq < 3; seq++) await store.append(run.id, seq === 0 ? runStart : warning(seq), { sync: true });
    await store.finishRun(run.id, { eventCount: 3 });
    await store.close();
    // A damaged key (no checksum covers a key LevelDB reads back) moves an event out of its run's range.
    const db = new Level<string, unknown>(path, { valueEncoding: 'json' });
    await db.sublevel<string, unknown>('events', { valueEncoding: 'json' }).del(eventKey(run.id, 2));
    await db.close();
    const reopened = await TapeStore.open(path);
    try {
      const read = await stored(reopened, run.id).catch((e: unknown) => e);
      expect(read).toBeInstanceOf(TapeFormatError);
      expect((read as Error).message).toBe(`${path}: run ${run.id} has 2 events in the store where its metadata says 3: the store is damaged`);
      const tape = join(dir, 'short.tape.jsonl');
      await expect(writeTapeFile(tape, await reopened.getRun(run.id), reopened.readEvents(run.id))).rejects.toBeInstanceOf(TapeFormatError);
      expect(existsSync(tape)).toBe(false);
    } finally {
      await reopened.close();
    }
  });

  it('a run still being recorded, or one whose recorder died, is read as far as it goes', async () => {
    const path = join(dir, 'store');
    const store = await TapeStore.open(path);
    try {
      const run = await store.createRun(newRun);
      await store.append(run.id, runStart, { sync: true });
      expect(await stored(store, run.id)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});

describe('an export never writes a tape its reader refuses', () => {
  it('an event a tape could not hold, stored by an older agentctl: exit 9 naming it, and no file', async () => {
    const path = join(dir, 'store');
    const store = await TapeStore.open(path);
    const run = await store.createRun(newRun);
    await store.append(run.id, warning(0), { sync: true });
    await store.finishRun(run.id, { eventCount: 2 });
    await store.close();
    // Written behind the store's back, as a store written before events were bounded could hold it.
    const db = new Level<string, unknown>(path, { valueEncoding: 'json' });
    await db.sublevel<string, unknown>('events', { valueEncoding: 'json' }).put(eventKey(run.id, 1), tooDeep(1));
    await db.close();
    const reopened = await TapeStore.open(path);
    try {
      const tape = join(dir, 'old.tape.jsonl');
      const error = await writeTapeFile(tape, await reopened.getRun(run.id), reopened.readEvents(run.id)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TapeFormatError);
      expect((error as Error).message).toBe(
        `run ${run.id}: event 1 (http_exchange) nests more than 64 levels deep, more than a tape line may: the run cannot be exported`,
      );
      expect(readdirSync(dir).filter((name) => name.includes('tape'))).toEqual([]);
    } finally {
      await reopened.close();
    }
  });

  it('a gzip tape that would inflate more than a reader allows for its size is refused (exit 2), and written plain it reads', async () => {
    const store = await TapeStore.open(join(dir, 'store'));
    try {
      // 70 MB of one repeated letter: each event a line a tape holds, the whole compressing ~1000×.
      const big = 'x'.repeat(35 * 1024 * 1024);
      const run = await store.createRun(newRun);
      await store.append(run.id, runStart);
      await store.append(run.id, warning(1, big));
      await store.append(run.id, warning(2, big), { sync: true });
      await store.finishRun(run.id, { eventCount: 3, status: 'incomplete' });
      const meta = await store.getRun(run.id);
      const gz = join(dir, 'big.tape.jsonl.gz');
      const error = await writeTapeFile(gz, meta, store.readEvents(run.id)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as Error).message).toMatch(
        /^cannot write .*big\.tape\.jsonl\.gz: the tape compresses from \d+ to \d+ bytes, more than a gzip tape may inflate \(256×\)/,
      );
      expect(existsSync(gz)).toBe(false);
      const plain = join(dir, 'big.tape.jsonl');
      await writeTapeFile(plain, meta, store.readEvents(run.id));
      expect(await validateTapeFile(await openTapeFile(plain))).toBe(3);
    } finally {
      await store.close();
    }
  });
});
