/**
 * Portable tape files: `*.tape.jsonl` (or `.tape.jsonl.gz`). Line 1 is the header
 * `{"format":"agentctl-tape","version":1,"run":{…}}`, then one event per line. Lines are canonical
 * JSON (sorted keys), so export → import → export gives the same bytes.
 */
import { createWriteStream } from 'node:fs';
import { lstat, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { InvalidOptionError, NotFoundError, TapeFormatError } from '../core/errors.js';
import type { RunEvent } from '../core/events.js';
import { readFailure, writeFailure } from '../core/fs-failure.js';
import { notAFile } from '../core/input-file.js';
import { TAPE_VERSION, type RunMeta } from '../core/run-meta.js';
import { canonicalJson } from '../guardrails/canonical-json.js';
import { lineProblem } from './line-bounds.js';
import type { CheckedTape, CheckedTapes, TapeTrust } from './checked-tapes.js';
import { readTapeLines, type ReadOptions, type TapeLine } from './line-reader.js';
import { checkHeader } from './header-checks.js';
import { LineChecks, parseJson, trustedEvents } from './line-checks.js';
import { quickHeader } from './quick-event-check.js';
import { checkRecordedConfig } from './tape-checks.js';
import { headerLine, TAPE_FORMAT } from './tape-header.js';
import { directoryError, hasTapeName } from './tape-path.js';
import { maxInflatedBytes, TAPE_LIMITS, type TapeLimits } from './tape-limits.js';

export { TAPE_FORMAT } from './tape-header.js';
export { isTapePath } from './tape-path.js';

/**
 * The tape file's lines, in order: header first. An event that could not be a tape line (a store
 * written before events were bounded when recorded: line-bounds.ts) ends them with exit 9, rather
 * than make a tape no reader takes.
 */
export async function* tapeLines(meta: RunMeta, events: AsyncIterable<RunEvent>): AsyncGenerator<string> {
  yield headerLine(meta) + '\n';
  for await (const event of events) {
    const line = canonicalJson(event);
    const problem = lineProblem(line);
    if (problem !== undefined) throw new TapeFormatError(`run ${meta.id}: event ${event.seq} (${event.type}) ${problem}: the run cannot be exported`);
    yield line + '\n';
  }
}

/**
 * Write a tape file atomically: into a temporary file beside the target, renamed into place only
 * when complete, so an interrupted export never leaves a half-written tape. `.gz` → gzip. The
 * temporary files of exports that were killed before they could remove theirs are removed first.
 */
export async function writeTapeFile(path: string, meta: RunMeta, events: AsyncIterable<RunEvent>): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, tempName(basename(path), process.pid));
  await removeStaleTempFiles(dir);
  let plainBytes = 0;
  async function* counted(): AsyncGenerator<string> {
    for await (const line of tapeLines(meta, events)) {
      plainBytes += Buffer.byteLength(line);
      yield line;
    }
  }
  try {
    if (path.endsWith('.gz')) {
      await pipeline(Readable.from(counted()), createGzip(), createWriteStream(temp));
      checkInflation(path, plainBytes, (await stat(temp)).size);
    } else await pipeline(Readable.from(tapeLines(meta, events)), createWriteStream(temp));
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw writeFailure(path, error);
  }
}

/**
 * A gzip tape is read only as far as it may inflate for its size (a small file must not make its
 * reader work through gigabytes): one that compresses better than that is not written.
 */
function checkInflation(path: string, plainBytes: number, compressedBytes: number): void {
  if (plainBytes <= maxInflatedBytes(TAPE_LIMITS, compressedBytes)) return;
  throw new InvalidOptionError(
    `cannot write ${path}: the tape compresses from ${plainBytes} to ${compressedBytes} bytes, more than a gzip tape may inflate (${TAPE_LIMITS.maxInflateRatio}×): its reader would refuse it`,
    { hint: 'export it without .gz' },
  );
}

/** `.<name>.<pid>.tmp`: the temporary file of an export to `<name>` by process `pid`. */
const tempName = (name: string, pid: number): string => `.${name}.${pid}.tmp`;
const TEMP_NAME = /^\.(.+)\.([1-9][0-9]{0,9})\.tmp$/;
/** A temporary file untouched this long, whose process is gone, is left by a killed export. */
const STALE_TEMP_MS = 60_000;

/**
 * Remove the temporary files that killed exports left in `dir`: named for a tape file, written by a
 * process that no longer exists, and not modified for STALE_TEMP_MS (a process of another pid
 * namespace sharing the directory still writes to its file). Best effort: failures are ignored.
 */
export async function removeStaleTempFiles(dir: string, now = Date.now()): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  await Promise.all(
    names.map(async (name) => {
      const match = TEMP_NAME.exec(name);
      if (match === null || !hasTapeName(match[1] as string)) return;
      const pid = Number(match[2]);
      if (pid === process.pid || processExists(pid)) return;
      const file = join(dir, name);
      try {
        const info = await lstat(file);
        if (info.isFile() && now - info.mtimeMs >= STALE_TEMP_MS) await rm(file, { force: true });
      } catch {
        // Gone already, or not ours to remove.
      }
    }),
  );
}

/** True unless the system says there is no process `pid` (a process of another user exists too). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code !== 'ESRCH';
  }
}

/** An opened tape file: its run meta, and its events streamed from disk on demand. */
export interface TapeFile {
  path: string;
  meta: RunMeta;
  /**
   * Validated events, one line at a time; throws TapeFormatError (exit 9) naming file and line for
   * a line that fails its schema or bounds, events out of order, a request whose hash does not match
   * its content, or an end that does not agree with the header (see tape-checks.ts).
   */
  events(): AsyncGenerator<RunEvent>;
  /** The same events, checked the same way, handed over a batch at a time (the lines of one chunk read). */
  batches(): AsyncGenerator<RunEvent[]>;
}

export interface OpenTapeOptions {
  /** Tighter (or looser) bounds than TAPE_LIMITS, for tests. */
  limits?: Partial<TapeLimits>;
  /**
   * Files already checked (checked-tapes.ts): a file this agentctl read in full before, unchanged,
   * is read without its checks again — every block still verified to be the bytes that were
   * checked — and a file read in full that passes is remembered. Not with `limits`.
   */
  checked?: CheckedTapes | null;
}

/** Open and check a tape file's header. Its events are read lazily by `events()`. */
export async function openTapeFile(path: string, options: OpenTapeOptions = {}): Promise<TapeFile> {
  const limits: TapeLimits = { ...TAPE_LIMITS, ...options.limits };
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw directoryError(path);
    const kind = notAFile(info);
    // Never opened: a FIFO or a device could hold the read forever, or without end (core/input-file.ts).
    if (kind !== undefined) throw new InvalidOptionError(`cannot read ${path}: ${kind}`);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') {
      throw new NotFoundError(`no tape file ${path}`);
    }
    throw readFailure(path, error);
  }
  let first: { text: string; meta: RunMeta } | undefined;
  for await (const [header] of readLines(path, limits)) {
    if (header !== undefined) first = { text: header.text, meta: await parseHeader(path, header.text, header.line, limits) };
    break;
  }
  if (first === undefined) throw new TapeFormatError('empty file: not an agentctl tape', { file: path, line: 1 });
  const { text: headerText, meta } = first;
  checkHeader(meta, { file: path, line: 1 });
  await checkRecordedConfig(meta.config, { file: path, line: 1 });
  async function* batches(): AsyncGenerator<RunEvent[]> {
    // One descriptor for the whole read: the file the cache is asked about is the file read.
    const handle = await open(path, 'r').catch((error: unknown) => {
      throw readFailure(path, error);
    });
    try {
      const trust = options.checked == null || options.limits !== undefined ? null : await options.checked.open(handle);
      const known = trust?.known ?? null;
      if (trust !== null && known !== null) yield* checkedBefore(path, handle, headerText, limits, known, trust.forget);
      else yield* checking(handle, trust);
    } finally {
      await handle.close();
    }
  }
  /** A read that checks every line; a file read in full and found sound is remembered by `trust`. */
  async function* checking(handle: FileHandle, trust: TapeTrust | null): AsyncGenerator<RunEvent[]> {
    // A file the cache may remember: its blocks' digests, and the lines the schema read.
    const seen: CheckedTape | null = trust === null ? null : { blocks: [], schemaLines: [] };
    const checks = new LineChecks(path, meta, headerText, limits, seen?.schemaLines ?? null);
    for await (const batch of readLines(path, limits, { handle, ...(seen === null ? {} : { blocks: { collect: seen.blocks } }) })) {
      const events: RunEvent[] = [];
      try {
        await checks.check(batch, events);
      } catch (error) {
        // The events before a bad line are given first, as they would be one by one.
        if (events.length > 0) yield events;
        throw error;
      }
      if (events.length > 0) yield events;
    }
    checks.finish();
    if (seen !== null) await trust?.remember(seen);
  }
  return {
    path,
    meta,
    batches,
    async *events() {
      for await (const batch of batches()) yield* batch;
    },
  };
}

/** Read every event once to check the whole file; returns the event count. */
export async function validateTapeFile(tape: TapeFile): Promise<number> {
  let count = 0;
  for await (const _event of tape.events()) count++;
  return count;
}

async function parseHeader(file: string, text: string, line: number, limits: TapeLimits): Promise<RunMeta> {
  const json = parseJson(file, text, line, limits, 'not an agentctl tape (line 1 is not JSON)');
  // A plain header passes the quick check; the schemas (and their error messages) only for the rest.
  const quick = quickHeader(json);
  if (quick !== undefined && quick.version >= 1 && quick.version <= TAPE_VERSION) {
    return checkEventCount(quick.meta, file, line, limits);
  }
  const { describeIssue, runMetaSchema, tapeHeaderSchema } = await import('./meta-schema.js');
  const header = tapeHeaderSchema.safeParse(json);
  if (!header.success) {
    const format = (json as { format?: unknown } | null)?.format;
    if (format !== TAPE_FORMAT) throw new TapeFormatError('not an agentctl tape (no agentctl-tape header)', { file, line });
    throw new TapeFormatError(`bad tape header: ${describeIssue(header.error)}`, { file, line });
  }
  if (header.data.version > TAPE_VERSION) {
    throw new TapeFormatError(
      `tape version ${header.data.version} is newer than this agentctl supports (up to ${TAPE_VERSION}); upgrade agentctl`,
      { file, line },
    );
  }
  if (header.data.version < 1) throw new TapeFormatError(`unknown tape version ${header.data.version}`, { file, line });
  const meta = runMetaSchema.safeParse(header.data.run);
  if (!meta.success) throw new TapeFormatError(`bad run metadata: ${describeIssue(meta.error)}`, { file, line });
  return checkEventCount(meta.data, file, line, limits);
}

function checkEventCount(meta: RunMeta, file: string, line: number, limits: TapeLimits): RunMeta {
  if (meta.eventCount !== undefined && meta.eventCount > limits.maxEvents) {
    throw new TapeFormatError(`bad run metadata: eventCount ${meta.eventCount} is more than a tape may hold (${limits.maxEvents})`, { file, line });
  }
  return meta;
}

/**
 * The events of a file read in full and found sound before, unchanged since (checked-tapes.ts):
 * each block of the file is verified to be the one checked before its lines are read, so only
 * those bytes are read without checks; a line the schema read then is read through it again, so
 * the events are the ones a checking read gives. A block that differs fails the read, and the
 * cache forgets the file.
 */
async function* checkedBefore(
  path: string, handle: FileHandle, headerText: string, limits: TapeLimits, known: CheckedTape, forget: () => Promise<void>,
): AsyncGenerator<RunEvent[]> {
  const schemaLines = new Set(known.schemaLines);
  try {
    for await (const batch of readLines(path, limits, { handle, blocks: { expect: known.blocks } })) {
      const events = await trustedEvents(path, batch, headerText, limits, schemaLines);
      if (events.length > 0) yield events;
    }
  } catch (error) {
    await forget();
    throw error;
  }
}

/** The file's lines within the bounds: line length, and how far a gzip file may inflate. `options`: see readTapeLines. */
function readLines(path: string, limits: TapeLimits, options?: ReadOptions): AsyncGenerator<TapeLine[]> {
  return readTapeLines(path, {
    maxLineBytes: limits.maxLineBytes,
    maxInflatedBytes: (compressed) => maxInflatedBytes(limits, compressed),
  }, options);
}
