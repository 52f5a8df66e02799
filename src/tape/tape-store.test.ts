import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { Level } from 'level';
import { InvalidOptionError, NotFoundError, StoreLockedError, TapeFormatError } from '../core/errors.js';
import { eventKey } from './store-events.js';
import { TapeStore, type NewRun } from './tape-store.js';

const newRun = (over: Partial<NewRun> = {}): NewRun => ({
  kind: 'record',
  task: 'fix the failing test',
  model: 'gpt-test',
  config: { model: 'gpt-test' },
  seed: 7,
  ...over,
});

const warning = (seq: number, message = `event ${seq}`): RunEvent => ({ type: 'warning', seq, step: 0, t: seq, message });

/** A store at `dir` holding one run of one event, closed again. */
async function storeWithOneRun(dir: string): Promise<RunMeta> {
  const store = await TapeStore.open(dir);
  const run = await store.createRun(newRun());
  await store.append(run.id, warning(0), { sync: true });
  await store.close();
  return run;
}

/**
 * The TapeStore contract, written once so any store implementation can be held to it.
 * Here it runs against a real LevelDB in a fresh temp dir.
 */
function tapeStoreContract(open: (dir: string) => Promise<TapeStore>): void {
  let dir: string;
  let store: TapeStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentctl-store-'));
    store = await open(dir);
  });
  afterEach(async () => {
    await store.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it('creates runs with sortable ULID ids and status recording', async () => {
    const a = await store.createRun(newRun());
    const b = await store.createRun(newRun());
    expect(a.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(a.status).toBe('recording');
    expect(a.tapeVersion).toBe(1);
    expect(b.id > a.id).toBe(true);
    expect(await store.getRun(a.id)).toEqual(a);
  });

  it('appends events and streams them back in seq order', async () => {
    const run = await store.createRun(newRun());
    // Written out of key order on purpose: iteration must follow seq, not write order.
    for (const seq of [2, 0, 11, 1, 10]) await store.append(run.id, warning(seq), { sync: seq === 11 });
    const seqs: number[] = [];
    for await (const event of store.readEvents(run.id)) seqs.push(event.seq);
    expect(seqs).toEqual([0, 1, 2, 10, 11]);
    expect(await store.countEvents(run.id)).toBe(5);
  });

  it('reads a run back in batches of the size asked for, not of what a small read buffer holds', async () => {
    // 2,500 events of ~200 bytes: LevelDB's default read buffer (16 KiB) would hold ~80 of them.
    const run = await store.createRun(newRun());
    const writer = store.writer(run.id);
    await Promise.all(Array.from({ length: 2500 }, (_, seq) => writer.append(warning(seq, `event ${seq} ${'x'.repeat(150)}`))));
    await writer.close();
    const sizes: number[] = [];
    let seq = 0;
    for await (const batch of store.readEventBatches(run.id, 1000)) {
      sizes.push(batch.length);
      for (const event of batch) expect(event.seq).toBe(seq++);
    }
    expect(sizes).toEqual([1000, 1000, 500]);
  });

  it("keeps each run's events apart", async () => {
    const a = await store.createRun(newRun());
    const b = await store.createRun(newRun());
    await store.append(a.id, warning(0, 'a0'));
    await store.append(b.id, warning(0, 'b0'));
    await store.append(b.id, warning(1, 'b1'));
    const messages = async (id: string): Promise<string[]> => {
      const all: string[] = [];
      for await (const e of store.readEvents(id)) if (e.type === 'warning') all.push(e.message);
      return all;
    };
    expect(await messages(a.id)).toEqual(['a0']);
    expect(await messages(b.id)).toEqual(['b0', 'b1']);
  });

  it('batches writes through a writer and keeps order', async () => {
    const run = await store.createRun(newRun());
    const writer = store.writer(run.id);
    const writes = Array.from({ length: 500 }, (_, seq) => writer.append(warning(seq), { sync: seq === 250 }));
    await Promise.all(writes);
    await writer.close();
    expect(writer.count).toBe(500);
    let expected = 0;
    for await (const event of store.readEvents(run.id)) expect(event.seq).toBe(expected++);
    expect(expected).toBe(500);
  });

  it('writes a recorded run through its journal: LevelDB has every event once the writer is closed, and a second writer is refused', async () => {
    const run = await store.createRun(newRun());
    const writer = store.writer(run.id);
    expect(() => store.writer(run.id)).toThrow(/already has a writer/);
    for (let seq = 0; seq < 30; seq++) void writer.append(warning(seq), { sync: seq % 10 === 9, soon: seq % 7 === 0 });
    await writer.close();
    expect(await store.countEvents(run.id)).toBe(30);
    const finished = await store.finishRun(run.id, { eventCount: 30, status: 'incomplete' });
    expect(finished.eventCount).toBe(30);
  });

  it('refuses an out-of-order append through a writer', async () => {
    const run = await store.createRun(newRun());
    const writer = store.writer(run.id);
    await expect(writer.append(warning(1))).rejects.toThrow(/out of order/);
  });

  it('lists runs newest first with their status', async () => {
    const first = await store.createRun(newRun({ task: 'first' }));
    const second = await store.createRun(newRun({ task: 'second' }));
    await store.finishRun(first.id, { finalState: 'COMPLETED', eventCount: 0 });
    const listed: string[] = [];
    for await (const meta of store.listRuns()) listed.push(`${meta.task}:${meta.status}`);
    expect(listed).toEqual(['second:recording', 'first:complete']);
    expect(second.id > first.id).toBe(true);
  });

  it('finishes a run with its final state and totals', async () => {
    const run = await store.createRun(newRun());
    const totals = { steps: 3, llmCalls: 3, toolCalls: 2, inputTokens: 10, outputTokens: 5, cost: 0.01 };
    const done = await store.finishRun(run.id, { finalState: 'MAX_STEPS', totals, eventCount: 9 });
    expect(done).toMatchObject({ status: 'complete', finalState: 'MAX_STEPS', totals, eventCount: 9 });
    expect(await store.getRun(run.id)).toEqual(done);
  });

  it('resolves runs by id, lower-case id, unique prefix and name', async () => {
    const a = await store.createRun(newRun({ name: 'flaky-test' }));
    expect((await store.resolveRun(a.id)).id).toBe(a.id);
    expect((await store.resolveRun(a.id.toLowerCase())).id).toBe(a.id);
    expect((await store.resolveRun(a.id.slice(0, 20))).id).toBe(a.id);
    expect((await store.resolveRun('flaky-test')).id).toBe(a.id);
  });

  it('reports an unknown run as not found (exit 10) and an ambiguous prefix as usage (exit 2)', async () => {
    await expect(store.getRun('01ARZ3NDEKTSV4RRFFQ69G5FAV')).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.resolveRun('nope')).rejects.toMatchObject({ exitCode: 10, hint: expect.stringContaining('agentctl ls') });
    await store.createRun(newRun());
    await store.createRun(newRun());
    await expect(store.resolveRun('0')).rejects.toBeInstanceOf(InvalidOptionError);
  });

  it('deletes a run and all its events, leaving others', async () => {
    const a = await store.createRun(newRun());
    const b = await store.createRun(newRun());
    for (let seq = 0; seq < 5; seq++) {
      await store.append(a.id, warning(seq));
      await store.append(b.id, warning(seq));
    }
    await store.deleteRun(a.id);
    await expect(store.getRun(a.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await store.countEvents(a.id)).toBe(0);
    expect(await store.countEvents(b.id)).toBe(5);
    await expect(store.deleteRun(a.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('marks a run left recording by an earlier process as incomplete after reopening', async () => {
    const run = await store.createRun(newRun());
    await store.append(run.id, warning(0));
    expect((await store.getRun(run.id)).status).toBe('recording');
    await store.close();
    store = await open(dir);
    expect((await store.getRun(run.id)).status).toBe('incomplete');
    const listed: string[] = [];
    for await (const meta of store.listRuns()) listed.push(meta.status);
    expect(listed).toEqual(['incomplete']);
  });

  it('refuses to create a run id that already exists', async () => {
    const run = await store.createRun(newRun());
    await expect(store.createRun(newRun({ id: run.id }))).rejects.toBeInstanceOf(InvalidOptionError);
  });

  it('an import that fails midway leaves no events behind, and can be done again', async () => {
    const meta: RunMeta = {
      id: '01JD0000000000000000000009', kind: 'record', createdAt: '2026-11-21T23:49:51.000Z', task: 't', model: 'm', config: {}, seed: 0,
      status: 'incomplete', eventCount: 3000, tapeVersion: 1,
    };
    async function* events(fail: boolean): AsyncGenerator<RunEvent> {
      for (let seq = 0; seq < 3000; seq++) yield warning(seq);
      if (fail) throw new Error('bad line 3002');
    }
    await expect(store.putRun(meta, events(true))).rejects.toThrow('bad line 3002');
    expect(await store.countEvents(meta.id)).toBe(0);
    await expect(store.getRun(meta.id)).rejects.toBeInstanceOf(NotFoundError);
    await store.putRun(meta, events(false));
    expect(await store.countEvents(meta.id)).toBe(3000);
    expect(await store.getRun(meta.id)).toEqual(meta);
  });

  it('sweeps the events of an import that never finished when it is next opened', async () => {
    const meta: RunMeta = {
      id: '01JD000000000000000000000A', kind: 'record', createdAt: '2026-11-21T23:49:51.000Z', task: 't', model: 'm', config: {}, seed: 0,
      status: 'incomplete', tapeVersion: 1,
    };
    const other = await store.createRun(newRun());
    await store.append(other.id, warning(0));
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    async function* stalls(): AsyncGenerator<RunEvent> {
      for (let seq = 0; seq < 2500; seq++) yield warning(seq);
      wrote();
      await new Promise(() => undefined); // the importing process stops here for good
    }
    void store.putRun(meta, stalls());
    await written;
    while ((await store.countEvents(meta.id)) < 2500) await new Promise((resolve) => setTimeout(resolve, 5));
    await store.close();
    store = await open(dir);
    expect(await store.countEvents(meta.id)).toBe(0);
    await expect(store.getRun(meta.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await store.countEvents(other.id)).toBe(1);
  });

  it('is locked against another process (exit 11)', () => {
    // The built module, as another program would load it (the tests build dist/ first).
    const module = pathToFileURL(join(process.cwd(), 'dist', 'tape', 'tape-store.js')).href;
    const script = `const { TapeStore } = await import(${JSON.stringify(module)});
      await TapeStore.open(${JSON.stringify(dir)}).then(() => console.log('opened'), (e) => console.log(e.code));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stdout.trim(), child.stderr).toBe('AGENTCTL_STORE_LOCKED');
    expect(new StoreLockedError(dir).exitCode).toBe(11);
  });

  it('is shared by a second opener in the same process, closed when the last one closes it', async () => {
    const second = await TapeStore.open(dir);
    expect(second).toBe(store);
    const run = await second.createRun(newRun());
    await second.close();
    // Still open for the first opener.
    expect((await store.getRun(run.id)).id).toBe(run.id);
    await store.close();
    store = await open(dir);
    expect((await store.getRun(run.id)).status).toBe('incomplete');
  });
}

describe('TapeStore on LevelDB', () => {
  tapeStoreContract((dir) => TapeStore.open(dir));

  it('does not create a store when asked not to', async () => {
    const dir = join(tmpdir(), `agentctl-missing-${process.pid}`);
    await expect(TapeStore.open(dir, { create: false })).rejects.toBeInstanceOf(NotFoundError);
    expect(TapeStore.exists(dir)).toBe(false);
  });

  it('refuses a stored value that is not an event as bad tape data (exit 9), naming its run and place', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentctl-store-'));
    try {
      const run = await storeWithOneRun(dir);
      // Written behind the store's back, as a damaged or foreign database could hold it.
      const db = new Level<string, unknown>(dir, { valueEncoding: 'json' });
      await db.sublevel<string, unknown>('events', { valueEncoding: 'json' }).put(eventKey(run.id, 1), 42);
      await db.close();
      const reopened = await TapeStore.open(dir);
      try {
        const read = async (): Promise<number> => {
          let n = 0;
          for await (const _event of reopened.readEvents(run.id)) n++;
          return n;
        };
        const error = await read().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TapeFormatError);
        expect((error as TapeFormatError).exitCode).toBe(9);
        expect((error as Error).message).toContain(`event 1 of run ${run.id} is not a run event`);
      } finally {
        await reopened.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('TapeStore opened read-only', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentctl-store-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads, and refuses every write with one line (a copy read in place of the store must never take writes)', async () => {
    const run = await storeWithOneRun(dir);
    const reader = await TapeStore.open(dir, { readOnly: true, create: true });
    try {
      expect(await reader.countEvents(run.id)).toBe(1);
      const refused = [
        reader.createRun(newRun()),
        reader.append(run.id, warning(1)),
        reader.finishRun(run.id, { eventCount: 1 }),
        reader.putRun({ ...run, id: 'OTHER' }, (async function* () {})()),
        reader.deleteRun(run.id),
        Promise.resolve().then(() => reader.writer(run.id)),
      ];
      for (const attempt of refused) await expect(attempt).rejects.toThrow(`the store ${dir} was opened read-only: nothing can be written to it`);
      expect(await reader.countEvents(run.id)).toBe(1);
    } finally {
      await reader.close();
    }
  });

  it('shared with a writer that opens it after a reader (by another spelling of its path), is writable for the writer', async () => {
    const run = await storeWithOneRun(dir);
    const reader = await TapeStore.open(dir, { readOnly: true });
    const writer = await TapeStore.open(relative(process.cwd(), join(dir, '.', 'x', '..')));
    try {
      expect(writer).toBe(reader);
      const created = await writer.createRun(newRun());
      expect((await reader.getRun(created.id)).id).toBe(created.id);
      expect(await writer.countEvents(run.id)).toBe(1);
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it('never creates a store, even when asked to', async () => {
    const missing = join(dir, 'missing');
    await expect(TapeStore.open(missing, { readOnly: true, create: true })).rejects.toBeInstanceOf(NotFoundError);
    expect(existsSync(missing)).toBe(false);
  });
});

it('a directory with store data but no CURRENT is refused (exit 9) and left as it was, even with create', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agentctl-store-'));
  try {
    await storeWithOneRun(dir);
    await rm(join(dir, 'CURRENT'));
    const before = readdirSync(dir).sort();
    const error = await TapeStore.open(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TapeFormatError);
    expect((error as TapeFormatError).file).toBe(join(dir, 'CURRENT'));
    expect(readdirSync(dir).sort()).toEqual(before);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
