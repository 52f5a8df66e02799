/**
 * TapeStore: runs and their events in LevelDB (the only importer of `level`, README, "Development").
 *
 * Two sublevels: `runs` (runId → RunMeta) and `events` (`runId!seq` → RunEvent, seq zero-padded so
 * keys sort in order). LevelDB allows one process at a time, which gives `incomplete` for free: a
 * run still marked `recording` that this process did not start was left by a process that died.
 * A third, `imports`, marks runs whose import is under way; one left by a killed import is swept
 * (its events deleted) when the store is next opened, so no events are ever left without a run.
 *
 * A run recorded by this process goes through a write-ahead journal (journal.ts): each batch is in
 * the journal — fdatasync'd when it must be durable — before it is written to LevelDB without sync.
 * The run's end makes its events durable in LevelDB's own files (flushRun) and removes the journal;
 * a journal found at open was left by a recorder that died, and is put back into LevelDB before
 * anything else reads the store (journal-recovery.ts).
 *
 * A damaged store is refused, never repaired by dropping what it holds (store-open.ts); every failure
 * of LevelDB is the agentctl error it is (store-failure.ts). A store opened `readOnly` is only read
 * (one this process may not write, from a copy). Every event it takes could be a line of its run's
 * tape (line-bounds.ts): one that could not is refused before it is written anywhere (exit 9).
 */
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InvalidOptionError, TapeFormatError } from '../core/errors.js';
import type { RunEvent, RunTotals } from '../core/events.js';
import { TAPE_VERSION, type RunMeta } from '../core/run-meta.js';
import type { TerminalState } from '../core/states.js';
import { EventWriter } from './event-writer.js';
import { checkRecordableMeta, eventLines, unrecordable } from './line-bounds.js';
import { recordingWriter } from './recording-writer.js';
import { Journal } from './journal.js';
import { recoverJournals } from './journal-recovery.js';
import { notFound, pickRun } from './run-refs.js';
import { countStoredEvents, eventKey, readStoredBatches, runRange, type EventsSublevel } from './store-events.js';
import { storeFailure, type StoreDoing, type StorePlace } from './store-failure.js';
import { openDb, type Db } from './store-open.js';

/** The stores this process has open, by absolute directory: open() shares them. */
const OPEN_STORES = new Map<string, Promise<TapeStore>>();

/**
 * Run ids increase even for runs created in the same millisecond, so newest-first is exact. `ulid`
 * (and node:crypto with it) is loaded when a run is first created: `ls` and `show` never need it.
 */
let nextRunId: (() => string) | undefined;
async function newRunId(): Promise<string> {
  nextRunId ??= (await import('ulid')).monotonicFactory();
  return nextRunId();
}

type Sub = EventsSublevel;

/** Fields a caller gives when it starts a run; the store fills in id, status and version. */
export type NewRun = Omit<RunMeta, 'id' | 'status' | 'tapeVersion' | 'createdAt' | 'eventCount'> & {
  id?: string;
  createdAt?: string;
};

export interface OpenStoreOptions {
  /** When false (read-only commands), a missing store is reported instead of created. */
  create?: boolean;
  /**
   * The store is only read (`ls`, `show`, `export`…): one this process may not write is read from a
   * temporary copy (store-open.ts), and every write is refused. Implies `create: false`.
   */
  readOnly?: boolean;
  /** Where a damaged journal is reported at open (one line); default: standard error. */
  warn?: (message: string) => void;
}

/** classic-level's compaction (the `level` typings leave it out; in Node, `Level` is classic-level). */
interface Compactable {
  compactRange(start: string, end: string): Promise<void>;
}

export class TapeStore {
  readonly dir: string;
  /** The directory, and where its files were opened (a temporary copy, for a store read from one). */
  private readonly place: StorePlace;
  private readonly db: Db;
  private readonly runs: Sub;
  private readonly events: Sub;
  /** Imports under way: run id → when it started. */
  private readonly imports: Sub;
  /** Runs this process is recording right now; any other `recording` run is `incomplete`. */
  private readonly active = new Set<string>();
  /** Journaled runs: their journal, and the writer that puts their events into LevelDB behind it. */
  private readonly journaled = new Map<string, { journal: Journal; behind: EventWriter }>();
  /** Openers that have not closed it yet (open() shares a handle within a process). */
  private refs = 1;
  /** The closing of the database, once the last opener closed it. */
  private closing: Promise<void> = Promise.resolve();

  private constructor(
    place: StorePlace,
    db: Db,
    private mode: { readOnly: boolean; copy: boolean },
  ) {
    this.place = place;
    this.dir = place.dir;
    this.db = db;
    this.runs = db.sublevel<string, unknown>('runs', { valueEncoding: 'json' });
    this.events = db.sublevel<string, unknown>('events', { valueEncoding: 'json' });
    this.imports = db.sublevel<string, unknown>('imports', { valueEncoding: 'json' });
  }

  /** True when a store has been created at `dir`. */
  static exists(dir: string): boolean {
    return existsSync(join(dir, 'CURRENT'));
  }

  /**
   * Open (and by default create) the store at `dir`. Exit 11 when another process holds it, 9 when
   * it is damaged (store-open.ts), 10 when there is none and it is not to be created.
   *
   * LevelDB's lock is per process, not per handle: a store this process already has open (a replay
   * still reading it while a recording starts, two test helpers on one store) is shared — the same
   * handle, closed when the last of its openers closes it — instead of refused as "in use".
   */
  static async open(dir: string, options: OpenStoreOptions = {}): Promise<TapeStore> {
    const key = resolve(dir);
    const readOnly = options.readOnly ?? false;
    for (;;) {
      const shared = OPEN_STORES.get(key);
      if (shared === undefined) break;
      const store = await shared.catch(() => undefined);
      // The handle failed to open or is closing: open the store again once it has let go.
      if (store === undefined || store.refs === 0) {
        await store?.closing;
        if (OPEN_STORES.get(key) === shared) OPEN_STORES.delete(key);
        continue;
      }
      // A read-only copy (store-open.ts) is no handle for a writer: the store itself is opened.
      if (store.mode.copy && !readOnly) break;
      // Shared by a writer, the store is writable for all its openers (a reader just does not write).
      if (!readOnly) store.mode = { ...store.mode, readOnly: false };
      store.refs++;
      return store;
    }
    const opening = TapeStore.openHandle(dir, options, readOnly);
    OPEN_STORES.set(key, opening);
    try {
      return await opening;
    } catch (error) {
      if (OPEN_STORES.get(key) === opening) OPEN_STORES.delete(key);
      throw error;
    }
  }

  private static async openHandle(dir: string, options: OpenStoreOptions, readOnly: boolean): Promise<TapeStore> {
    const { db, place, copy } = await openDb(dir, { create: !readOnly && (options.create ?? true), readOnly });
    const store = new TapeStore(place, db, { readOnly, copy });
    try {
      await store.sweepImports();
      const warn = options.warn ?? ((message: string) => process.stderr.write(`agentctl: warning: ${message}\n`));
      await store.replayJournals((message) => warn(message.replaceAll(place.files, place.dir)));
    } catch (error) {
      await store.closeDb().catch(() => undefined);
      throw error;
    }
    return store;
  }

  /** Let go of this handle; the store is closed when every opener has (see `open`). */
  async close(): Promise<void> {
    if (this.refs === 0) return this.closing;
    this.refs--;
    if (this.refs > 0) return;
    this.closing = this.closeDb();
    try {
      await this.closing;
    } finally {
      const key = resolve(this.dir);
      const entry = OPEN_STORES.get(key);
      if (entry !== undefined && (await entry.catch(() => undefined)) === this) OPEN_STORES.delete(key);
    }
  }

  private async closeDb(): Promise<void> {
    // Runs still being recorded keep their journals (replayed at the next open); their LevelDB writes end first.
    for (const { journal, behind } of this.journaled.values()) {
      await behind.close().catch(() => undefined);
      journal.close();
    }
    this.journaled.clear();
    try {
      await this.db.close();
    } catch (error) {
      throw storeFailure(this.place, error, 'write');
    } finally {
      if (this.mode.copy) rmSync(this.place.files, { recursive: true, force: true });
    }
  }

  /** Run a LevelDB operation; its failure is the agentctl error it is (store-failure.ts). */
  private async level<T>(doing: StoreDoing, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw storeFailure(this.place, error, doing);
    }
  }

  /** Refuse a write to a store opened to be read. */
  private writable(): void {
    if (this.mode.readOnly) throw new InvalidOptionError(`the store ${this.dir} was opened read-only: nothing can be written to it`);
  }

  /** Start a run: writes its meta with status `recording` and returns it. */
  async createRun(run: NewRun): Promise<RunMeta> {
    this.writable();
    const meta: RunMeta = {
      ...run,
      id: run.id ?? (await newRunId()),
      createdAt: run.createdAt ?? new Date().toISOString(),
      status: 'recording',
      tapeVersion: TAPE_VERSION,
    };
    if ((await this.readMeta(meta.id)) !== undefined) throw new InvalidOptionError(`run ${meta.id} already exists in ${this.dir}`);
    checkRecordableMeta(meta, this.dir);
    await this.putMeta(meta);
    this.active.add(meta.id);
    return meta;
  }

  /**
   * A writer that appends a run's events in order, batching writes; see EventWriter. For a run this
   * process is recording, an append resolves once its batch is in the journal — with the OS, or on
   * disk when synced — and the batch is written to LevelDB, unsynced, behind it (`close` waits for
   * that). Other runs (an import: its marker covers a kill) are written straight to LevelDB.
   */
  writer(runId: string, firstSeq = 0): EventWriter {
    this.writable();
    if (!this.active.has(runId)) return new EventWriter((events, sync) => this.putBounded(runId, events, sync), firstSeq);
    // One writer per recorded run: its journal and the LevelDB writes behind it are that writer's.
    if (this.journaled.has(runId)) throw new Error(`run ${runId} already has a writer`);
    const journal = Journal.open(this.place.files, runId);
    const { writer, behind } = recordingWriter(journal, (events, lines) => this.putEvents(runId, events, false, lines), firstSeq, (refused) =>
      unrecordable(this.dir, runId, refused, 'recording'));
    this.journaled.set(runId, { journal, behind });
    return writer;
  }

  /** Put events; `lines`, when given, are their JSON (the text stored: not made again). */
  private async putEvents(runId: string, events: RunEvent[], sync: boolean, lines?: readonly string[]): Promise<void> {
    const value = (event: RunEvent, i: number): { value: unknown; valueEncoding?: 'utf8' } =>
      lines === undefined ? { value: event } : { value: lines[i], valueEncoding: 'utf8' };
    await this.level('write', () =>
      this.db.batch(events.map((event, i) => ({ type: 'put' as const, sublevel: this.events, key: eventKey(runId, event.seq), ...value(event, i) })), { sync }),
    );
  }

  /** Events not recorded through a journal (an import), each refused if a tape could not hold it. */
  private async putBounded(runId: string, events: RunEvent[], sync: boolean): Promise<void> {
    const { lines, refused } = eventLines(events);
    if (refused !== undefined) throw unrecordable(this.dir, runId, refused, 'import');
    await this.putEvents(runId, events, sync, lines);
  }

  /** Append one event durably (each call is its own write). Prefer `writer()` for many events. */
  async append(runId: string, event: RunEvent, options: { sync?: boolean } = {}): Promise<void> {
    this.writable();
    await this.putBounded(runId, [event], options.sync ?? false);
  }

  /** Mark a run finished. */
  async finishRun(
    runId: string,
    end: { finalState?: TerminalState; totals?: RunTotals; eventCount: number; status?: 'complete' | 'incomplete' },
  ): Promise<RunMeta> {
    this.writable();
    const meta = await this.getRun(runId);
    const finished: RunMeta = { ...meta, status: end.status ?? 'complete', eventCount: end.eventCount };
    if (end.finalState !== undefined) finished.finalState = end.finalState;
    if (end.totals !== undefined) finished.totals = end.totals;
    // Every journaled event is in LevelDB and on disk there before the meta says the run is finished;
    // only then is the journal removed. (A failed write throws here: the journal stays.)
    const journaled = this.journaled.get(runId);
    if (journaled !== undefined) {
      await journaled.behind.close();
      await this.flushRun(runId);
    }
    await this.putMeta(finished);
    if (journaled !== undefined) {
      journaled.journal.remove();
      this.journaled.delete(runId);
    }
    this.active.delete(runId);
    return finished;
  }

  /**
   * Store a complete run at once (import). The events go in batches under an import marker; the meta
   * and the marker's removal are one last write. A crash before it leaves no visible run, and the
   * marker has its events deleted at the next open; a failure (a bad line) deletes them at once.
   */
  async putRun(meta: RunMeta, events: AsyncIterable<RunEvent>): Promise<void> {
    this.writable();
    if ((await this.readMeta(meta.id)) !== undefined) {
      throw new InvalidOptionError(`run ${meta.id} already exists in ${this.dir}`, { hint: `remove it first: agentctl rm ${meta.id}` });
    }
    await this.level('write', () =>
      this.db.batch([{ type: 'put', sublevel: this.imports, key: meta.id, value: { startedAt: new Date().toISOString() } }], { sync: true }),
    );
    const writer = this.writer(meta.id);
    try {
      for await (const event of events) {
        const written = writer.append(event);
        // Back-pressure: never hold more than a few batches in memory.
        if (writer.pending >= 1024) await written;
      }
      await writer.close();
      await this.level('write', () =>
        this.db.batch(
          [
            { type: 'put', sublevel: this.runs, key: meta.id, value: meta },
            { type: 'del', sublevel: this.imports, key: meta.id },
          ],
          { sync: true },
        ),
      );
    } catch (error) {
      // Batches already handed to the writer land first; then they are deleted with the rest.
      await writer.close().catch(() => undefined);
      await this.discardImport(meta.id).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Make a run's events durable in LevelDB's own files. A synced write syncs only LevelDB's current
   * log: events in a memory table LevelDB has already switched away from (every ~4 MB written) sit
   * in an older log, not synced, until LevelDB writes that table out in the background. Compacting
   * the run's key range first writes every memory table out (synced) and waits for it.
   */
  private async flushRun(runId: string): Promise<void> {
    const range = runRange(runId);
    const prefix = this.events.prefix;
    await this.level('write', () => (this.db as unknown as Compactable).compactRange(prefix + range.gte, prefix + range.lte));
  }

  /** Put back what recorders that died left in their journals (journal-recovery.ts). */
  private async replayJournals(warn: (message: string) => void): Promise<void> {
    await recoverJournals(this.place.files, {
      status: async (runId) => {
        let meta: unknown;
        try {
          meta = await this.runs.get(runId);
        } catch (error) {
          // Metadata that is not JSON is still a run's: its journal is put back all the same.
          if ((error as { code?: unknown }).code !== 'LEVEL_DECODE_ERROR') throw storeFailure(this.place, error, 'read');
          meta = null;
        }
        return meta === undefined ? undefined : ((meta as RunMeta | null)?.status ?? null);
      },
      put: (runId, events) => this.putEvents(runId, events, false),
      flush: (runId) => this.flushRun(runId),
    }, warn);
  }

  /** Delete what imports that never finished (their process was killed) left behind. */
  private async sweepImports(): Promise<void> {
    const unfinished = await this.level('read', () => this.imports.keys().all());
    for (const runId of unfinished) await this.discardImport(runId);
  }

  private async discardImport(runId: string): Promise<void> {
    // The meta and the marker's removal are written together, so a marked run has no meta; checked anyway.
    if ((await this.level('read', () => this.runs.get(runId))) === undefined) await this.level('write', () => this.events.clear(runRange(runId)));
    await this.level('write', () => this.db.batch([{ type: 'del', sublevel: this.imports, key: runId }], { sync: true }));
  }

  /** The meta of one run, by full id. Exit 10 when there is none. */
  async getRun(runId: string): Promise<RunMeta> {
    const value = await this.readMeta(runId);
    if (value === undefined) throw notFound(runId);
    return value;
  }

  /**
   * Find a run by full id, unique id prefix (case-insensitive), or name (newest first).
   * Exit 10 when nothing matches, exit 2 when a prefix is ambiguous.
   */
  async resolveRun(ref: string): Promise<RunMeta> {
    const exact = await this.readMeta(ref.toUpperCase());
    if (exact !== undefined) return exact;
    const prefix = ref.toUpperCase();
    const matches: RunMeta[] = [];
    for await (const meta of this.listRuns()) if (meta.id.startsWith(prefix) || meta.name === ref) matches.push(meta);
    return pickRun(ref, matches);
  }

  /** Every run, newest first, with `incomplete` for runs whose recorder died. */
  async *listRuns(): AsyncGenerator<RunMeta> {
    try {
      for await (const [key, value] of this.runs.iterator({ reverse: true })) yield this.present(this.checkMeta(key, value));
    } catch (error) {
      throw storeFailure(this.place, error, 'read');
    }
  }

  /** A run's events in order, streamed: memory does not grow with tape length. */
  async *readEvents(runId: string): AsyncGenerator<RunEvent> {
    for await (const batch of this.readEventBatches(runId)) yield* batch;
  }

  /** A run's events in order, a batch at a time, the next read while the caller works on this one (store-events.ts). */
  async *readEventBatches(runId: string, size = 1000): AsyncGenerator<RunEvent[]> {
    await this.caughtUp(runId);
    const meta = await this.readMeta(runId);
    const expected = meta?.status === 'complete' ? meta.eventCount : undefined;
    yield* readStoredBatches(this.events, runId, size, this.place, expected);
  }

  /** For a run this process records: wait until LevelDB has what its journal has, so a read sees every written event. */
  private async caughtUp(runId: string): Promise<void> {
    await this.journaled.get(runId)?.behind.close();
  }

  /** Number of events stored for a run (counts keys, does not decode values). */
  async countEvents(runId: string): Promise<number> {
    await this.caughtUp(runId);
    return this.level('read', () => countStoredEvents(this.events, runId));
  }

  /** Delete a run and all of its events. */
  async deleteRun(runId: string): Promise<void> {
    this.writable();
    await this.getRun(runId);
    // A run deleted while this process records it: its journal goes too, once its LevelDB writes are done.
    const journaled = this.journaled.get(runId);
    if (journaled !== undefined) {
      await journaled.behind.close().catch(() => undefined);
      journaled.journal.remove();
      this.journaled.delete(runId);
    }
    await this.level('write', () => this.events.clear(runRange(runId)));
    await this.level('write', () => this.db.batch([{ type: 'del', sublevel: this.runs, key: runId }], { sync: true }));
    this.active.delete(runId);
  }

  private async putMeta(meta: RunMeta): Promise<void> {
    await this.level('write', () => this.db.batch([{ type: 'put', sublevel: this.runs, key: meta.id, value: meta }], { sync: true }));
  }

  private async readMeta(runId: string): Promise<RunMeta | undefined> {
    let value: unknown;
    try {
      value = await this.runs.get(runId);
    } catch (error) {
      if ((error as { code?: string }).code === 'LEVEL_DECODE_ERROR') {
        throw new TapeFormatError(`run ${runId}: stored metadata is not valid JSON`, { file: this.dir });
      }
      throw storeFailure(this.place, error, 'read');
    }
    return value === undefined ? undefined : this.present(this.checkMeta(runId, value));
  }

  private checkMeta(key: string, value: unknown): RunMeta {
    const meta = value as Partial<RunMeta> | null;
    if (meta === null || typeof meta !== 'object' || meta.id !== key || typeof meta.status !== 'string') {
      throw new TapeFormatError(`run ${key}: stored metadata is damaged`, { file: this.dir });
    }
    return meta as RunMeta;
  }

  private present(meta: RunMeta): RunMeta {
    return meta.status === 'recording' && !this.active.has(meta.id) ? { ...meta, status: 'incomplete' } : meta;
  }
}
