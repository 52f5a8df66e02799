/**
 * The write-ahead journal of a run being recorded: what makes a model reply durable at the cost of
 * one fdatasync of a small file, instead of a synced LevelDB write (which costs several times that:
 * BENCHMARKS.md, "Recording overhead").
 *
 * Every batch of a recorded run's events is appended here first, with synchronous system calls on
 * the main thread (`writeSync`, and `fdatasyncSync` for a batch that must be durable: no trip
 * through the thread pool), and only then written to LevelDB without sync. A batch is therefore
 * with the OS (safe from a SIGKILL) once `append` returns, and on disk when it was synced — along
 * with every batch before it, since they are in the same file. When the run finishes, LevelDB is
 * synced and the journal removed; a journal still there when the store is opened was left by a
 * recorder that died (or a machine that lost power), and is replayed into LevelDB (TapeStore.open).
 *
 * One file per run, `journal-<run id>.jsonl` in the store directory (LevelDB leaves files whose names
 * are not its own alone; a file, not a subdirectory, so a scan of the store's files reads it too);
 * one line per batch:
 * `<sha-256 of the JSON, hex> <JSON of { run, events }>` — JSON.stringify never writes a raw
 * newline, so a record is exactly one line. The hash makes each record self-checking: a torn last
 * record (power lost mid-write) is ignored, and a damaged one ends what is read.
 *
 * The file is preallocated: zeros are written and synced ahead of the records (RESERVE_BYTES at a
 * time), and records overwrite them. An fdatasync that does not change the file's size or block
 * map only writes the data and flushes the disk's cache — no filesystem journal commit, which also
 * would wait for other files' data (LevelDB's) — and costs less than one that appends (on ext4,
 * at least). The zeros after the last record end the reading
 * (JSON.stringify never writes a NUL byte, so a record holding one was never written whole).
 */
import type * as Crypto from 'node:crypto';
import { closeSync, fdatasyncSync, fsyncSync, openSync, readdirSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { storeWriteFailed } from '../core/errors.js';
import type { RunEvent } from '../core/events.js';
import { nestsDeeperThan } from './json-depth.js';

const PREFIX = 'journal-';
const SUFFIX = '.jsonl';
/** The longest record read back; a longer one is damage. Room for one event as long as a tape line may be (64 MiB). */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;
/** A batch whose JSON is longer than this is written as several records (a UTF-16 unit is at most 3 bytes). */
const SPLIT_CHARS = 16 * 1024 * 1024;
/** The deepest nesting of a record read back: one more than an event may nest on a tape (64). */
const MAX_DEPTH = 66;
const HASH_HEX = 64;
/** How far ahead of the records the file is preallocated (zeros, synced); grown by this much at a time. */
export const RESERVE_BYTES = 1024 * 1024;

/**
 * node:crypto, loaded when a record is first written or checked: a store opened only to be read
 * (`ls`, `show`) has no journal to check, and loading the module is a noticeable part of their start-up.
 */
let crypto: typeof Crypto | undefined;
/**
 * sha-256 hex of a record's JSON. One-shot `crypto.hash` where Node has it (≥ 20.12): a Hash object's
 * JS set-up runs cold in a recording, where it is a sizeable part of a waited write; the one-shot call
 * costs a fraction of that. The same digest either way.
 */
const sha256 = (text: string): string => {
  const node = (crypto ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto) as typeof Crypto & {
    hash?: (algorithm: string, data: string, encoding: 'hex') => string;
  };
  return node.hash === undefined ? node.createHash('sha256').update(text).digest('hex') : node.hash('sha256', text, 'hex');
};

/**
 * A run id as a file name: itself when it is plain and short (a ULID always is), else `x` and its
 * sha-256 (65 characters: never a plain id, never too long for a file system).
 */
function fileName(runId: string): string {
  return PREFIX + (/^[0-9A-Za-z]{1,64}$/.test(runId) ? runId : `x${sha256(runId)}`) + SUFFIX;
}

/**
 * The system calls that write a journal: node:fs's, called through this object rather than imported
 * one by one, so that a test can watch them in order (test-support/journal-syscalls.ts). That a
 * synced batch is fdatasync'd before its append returns is a call made at the right moment, which no
 * file read back afterwards can show.
 */
export const journalSyscalls = { openSync, writeSync, fdatasyncSync, fsyncSync, closeSync };

/** A failed write to the journal, as the one-line error it is (disk full, an I/O error). */
function writing<T>(path: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw storeWriteFailed(dirname(path), error);
  }
}

/** Make a new directory entry durable (a file created or removed in `dir`). */
function syncDir(dir: string): void {
  const fd = journalSyscalls.openSync(dir, 'r');
  try {
    journalSyscalls.fsyncSync(fd);
  } finally {
    journalSyscalls.closeSync(fd);
  }
}

export class Journal {
  private fd: number | undefined;
  /** Where the next record goes. */
  private end = 0;
  /** How much of the file is written (zeros past `end`) and synced. */
  private reserved = 0;

  private constructor(
    readonly path: string,
    private readonly runId: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  /**
   * Create the journal of a run, preallocated. Its directory entry is synced, so a synced record is
   * found after a power loss. A journal already there (not replayed at open) is refused, not overwritten.
   */
  static open(storeDir: string, runId: string): Journal {
    const path = join(storeDir, fileName(runId));
    const journal = new Journal(path, runId, writing(path, () => journalSyscalls.openSync(path, 'wx')));
    try {
      journal.reserve();
      writing(path, () => syncDir(storeDir));
    } catch (error) {
      journal.close();
      throw error;
    }
    return journal;
  }

  /**
   * Append one batch — its events, each as its JSON (line-bounds.ts) — as one record. Returns once
   * the OS has it (from then on a SIGKILL does not lose it); with `sync`, once it is on disk, with
   * every record before it.
   */
  append(events: readonly string[], sync: boolean): void {
    const fd = this.openFd();
    writing(this.path, () => {
      this.write(fd, events);
      if (sync) journalSyscalls.fdatasyncSync(fd);
    });
  }

  /** One record, or — for a batch too large to be read back as one — several, each a part of it in order. */
  private write(fd: number, events: readonly string[]): void {
    // What JSON.stringify({ run, events }) writes, from the events' own JSON.
    const json = `{"run":${JSON.stringify(this.runId)},"events":[${events.join(',')}]}`;
    if (json.length > SPLIT_CHARS && events.length > 1) {
      const half = Math.ceil(events.length / 2);
      this.write(fd, events.slice(0, half));
      this.write(fd, events.slice(half));
      return;
    }
    const record = Buffer.from(`${sha256(json)} ${json}\n`);
    writeAll(fd, record, this.end);
    this.end += record.length;
  }

  /**
   * Preallocate more of the file when less than half of RESERVE_BYTES is left past the records: a
   * synced write of its own, for the writer to call when nobody waits for it. (Past the reserve,
   * records are plain appends: correct, only dearer to sync.)
   */
  reserve(): void {
    if (this.reserved - this.end >= RESERVE_BYTES / 2) return;
    const fd = this.openFd();
    const from = Math.max(this.reserved, this.end);
    writing(this.path, () => {
      writeAll(fd, Buffer.alloc(RESERVE_BYTES), from);
      journalSyscalls.fdatasyncSync(fd);
    });
    this.reserved = from + RESERVE_BYTES;
  }

  private openFd(): number {
    if (this.fd === undefined) throw new Error(`the journal of run ${this.runId} is closed`);
    return this.fd;
  }

  close(): void {
    if (this.fd !== undefined) journalSyscalls.closeSync(this.fd);
    this.fd = undefined;
  }

  /** Close and delete the journal: call only once LevelDB holds every event in it, synced. */
  remove(): void {
    this.close();
    removeJournal(this.path);
  }
}

/** Write all of `data` at `position` (writeSync may write less than asked; an error surfaces as a failed append). */
function writeAll(fd: number, data: Buffer, position: number): void {
  for (let at = 0; at < data.length; ) at += journalSyscalls.writeSync(fd, data, at, data.length - at, position + at);
}

export function removeJournal(path: string): void {
  writing(path, () => {
    unlinkSync(path);
    syncDir(dirname(path));
  });
}

/**
 * The journals in a store directory: regular files named like one. Anything else with such a name
 * (a directory, a symbolic link, a FIFO) was not made by a recorder and is left alone, unread.
 */
export function listJournals(storeDir: string): string[] {
  return readdirSync(storeDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.startsWith(PREFIX) && entry.name.endsWith(SUFFIX))
    .map((entry) => join(storeDir, entry.name))
    .sort();
}

/** What a journal holds: its run, its batches in order, and what (if anything) ended the reading early. */
export interface JournalContents {
  runId: string | undefined;
  batches: RunEvent[][];
  /** Set when the journal is damaged (not just a torn last record): what is wrong and where. */
  damage: string | undefined;
}

/** All of a journal at once (see journalRecords). */
export function readJournal(path: string): JournalContents {
  const out: JournalContents = { runId: undefined, batches: [], damage: undefined };
  const records = journalRecords(path);
  for (let next = records.next(); ; next = records.next()) {
    if (next.done === true) {
      out.damage = next.value;
      return out;
    }
    out.runId = next.value.runId;
    out.batches.push(next.value.events);
  }
}

/**
 * Read a journal back, record by record, checking each: its hash, its size, its nesting, its run
 * (one per journal, the one the file is named after), and its events (objects with a type, and
 * `seq`, `step`, `t` numbers, seq following on without a gap). Reading stops at the first record
 * that fails; everything before it is returned. A record without its newline, or holding a NUL
 * byte, is where the writing stopped (a torn write, the preallocated zeros) and ends the reading
 * quietly; anything else that fails is reported as `damage`. Never throws on content (only on I/O
 * errors).
 */
export function* journalRecords(path: string): Generator<{ runId: string; events: RunEvent[] }, string | undefined> {
  let runId: string | undefined;
  let nextSeq: number | undefined;
  let at = 0; // file offset of the record being read
  for (const { line, complete } of lines(path)) {
    if (line === undefined) return `record at byte ${at} is longer than ${MAX_RECORD_BYTES} bytes`;
    if (!complete || line.includes('\0')) {
      // Where the writing stopped: a last record cut short, then (if anything) the preallocated
      // zeros to the end of the file. Zeros with something after them are damage, not an end.
      return onlyZerosAfterFirstZero(path, at) ? undefined : `record at byte ${at}: zeros in the middle of the journal`;
    }
    const record = checkRecord(line, basename(path), runId, nextSeq);
    if (typeof record === 'string') return `record at byte ${at}: ${record}`;
    runId = record.runId;
    const last = record.events.at(-1);
    if (last !== undefined) nextSeq = last.seq + 1;
    at += Buffer.byteLength(line) + 1;
    yield record;
  }
  return undefined;
}

/** One record: a problem, or its run and events. */
function checkRecord(
  line: string,
  name: string,
  runId: string | undefined,
  nextSeq: number | undefined,
): string | { runId: string; events: RunEvent[] } {
  const hash = line.slice(0, HASH_HEX);
  const json = line.slice(HASH_HEX + 1);
  if (line.charAt(HASH_HEX) !== ' ' || sha256(json) !== hash) return 'checksum mismatch';
  if (nestsDeeperThan(json, MAX_DEPTH)) return `nested deeper than ${MAX_DEPTH} levels`;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return 'not JSON';
  }
  const record = value as { run?: unknown; events?: unknown };
  if (typeof value !== 'object' || value === null || typeof record.run !== 'string' || !Array.isArray(record.events)) {
    return 'not a journal record';
  }
  if (fileName(record.run) !== name) return `run ${JSON.stringify(record.run.slice(0, 80))} is not this journal's`;
  if (runId !== undefined && record.run !== runId) return 'a second run in one journal';
  let seq = nextSeq;
  for (const event of record.events as unknown[]) {
    const e = event as Partial<Record<'type' | 'seq' | 'step' | 't', unknown>>;
    if (typeof event !== 'object' || event === null || Array.isArray(event) || typeof e.type !== 'string') return 'an event that is not a run event';
    if (!Number.isSafeInteger(e.seq) || (e.seq as number) < 0 || (seq !== undefined && e.seq !== seq)) return `event seq ${String(e.seq)} out of order`;
    if (!Number.isSafeInteger(e.step) || (e.step as number) < 0 || typeof e.t !== 'number' || !Number.isFinite(e.t)) return `event ${String(e.seq)} has no valid step or t`;
    seq = (e.seq as number) + 1;
  }
  return { runId: record.run, events: record.events as RunEvent[] };
}

/** Whether, from `from` on, the file's bytes are: anything but zero, then (from the first zero) zeros only. */
function onlyZerosAfterFirstZero(path: string, from: number): boolean {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(1024 * 1024);
    let zeros = false;
    for (let position = from; ; ) {
      const n = readSync(fd, chunk, 0, chunk.length, position);
      if (n === 0) return true;
      for (let i = 0; i < n; i++) {
        if (chunk[i] === 0) zeros = true;
        else if (zeros) return false;
      }
      position += n;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The lines of a file, read in chunks (never the whole file at once). `complete` is false for a
 * last line without its newline, and for a line longer than MAX_RECORD_BYTES (then `line` is
 * undefined and reading stops).
 */
function* lines(path: string): Generator<{ line: string | undefined; complete: boolean }> {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(1024 * 1024);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      let start = 0;
      for (let nl = chunk.indexOf(0x0a, 0); nl !== -1 && nl < n; nl = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, nl);
        if (pendingBytes + piece.length > MAX_RECORD_BYTES) {
          yield { line: undefined, complete: false };
          return;
        }
        const line = pending.length === 0 ? piece.toString('utf8') : Buffer.concat([...pending, piece]).toString('utf8');
        pending = [];
        pendingBytes = 0;
        yield { line, complete: true };
        start = nl + 1;
      }
      if (start < n) {
        pending.push(Buffer.from(chunk.subarray(start, n)));
        pendingBytes += n - start;
        if (pendingBytes > MAX_RECORD_BYTES) {
          yield { line: undefined, complete: false };
          return;
        }
      }
    }
    if (pendingBytes > 0) yield { line: Buffer.concat(pending).toString('utf8'), complete: false };
  } finally {
    closeSync(fd);
  }
}
