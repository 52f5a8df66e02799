/**
 * Portable tape files: `*.tape.jsonl` (or `.tape.jsonl.gz`). Line 1 is the header
 * `{"format":"agentctl-tape","version":1,"run":{…}}`, then one event per line. Lines are canonical
 * JSON (sorted keys), so export → import → export gives the same bytes.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { NotFoundError, TapeFormatError, UsageError } from '../core/errors.js';
import type { RunEvent } from '../core/events.js';
import { TAPE_VERSION, type RunMeta } from '../core/run-meta.js';
import { canonicalJson } from '../guardrails/canonical-json.js';
import { describeIssue, runEventSchema, runMetaSchema, tapeHeaderSchema } from './schema.js';

export const TAPE_FORMAT = 'agentctl-tape';

/** True for paths agentctl treats as tape files rather than run ids. */
export function isTapePath(ref: string): boolean {
  return /\.tape\.jsonl(\.gz)?$/.test(ref) || ref.endsWith('.jsonl') || ref.endsWith('.jsonl.gz');
}

/** The tape file's lines, in order: header first. */
export async function* tapeLines(meta: RunMeta, events: AsyncIterable<RunEvent>): AsyncGenerator<string> {
  yield canonicalJson({ format: TAPE_FORMAT, version: TAPE_VERSION, run: meta }) + '\n';
  for await (const event of events) yield canonicalJson(event) + '\n';
}

/**
 * Write a tape file atomically: into a temporary file beside the target, renamed into place only
 * when complete, so an interrupted export never leaves a half-written tape. `.gz` → gzip.
 */
export async function writeTapeFile(path: string, meta: RunMeta, events: AsyncIterable<RunEvent>): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const source = Readable.from(tapeLines(meta, events));
  try {
    if (path.endsWith('.gz')) await pipeline(source, createGzip(), createWriteStream(temp));
    else await pipeline(source, createWriteStream(temp));
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    const code = (error as { code?: string }).code;
    const reason = code === undefined ? undefined : WRITE_ERRORS[code];
    if (reason !== undefined) throw new UsageError(`cannot write ${path}: ${reason}`);
    throw error;
  }
}

/** File-system errors of a bad output path, as the user should read them. */
const WRITE_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'its directory does not exist',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
};

/** An opened tape file: its run meta, and its events streamed from disk on demand. */
export interface TapeFile {
  path: string;
  meta: RunMeta;
  /** Validated events, one line at a time; throws TapeFormatError (exit 9) naming file and line. */
  events(): AsyncGenerator<RunEvent>;
}

/** Open and check a tape file's header. Its events are read lazily by `events()`. */
export async function openTapeFile(path: string): Promise<TapeFile> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new TapeFormatError('not a file', { file: path });
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') {
      throw new NotFoundError(`no tape file ${path}`);
    }
    throw error;
  }
  let meta: RunMeta | undefined;
  for await (const { text, line } of readLines(path)) {
    meta = parseHeader(path, text, line);
    break;
  }
  if (meta === undefined) throw new TapeFormatError('empty file: not an agentctl tape', { file: path, line: 1 });
  const header = meta;
  return {
    path,
    meta: header,
    async *events() {
      let expectedSeq = 0;
      for await (const { text, line } of readLines(path)) {
        if (line === 1) continue;
        const event = parseEvent(path, text, line);
        if (event.seq !== expectedSeq) {
          throw new TapeFormatError(`event seq ${event.seq} where ${expectedSeq} was expected (missing or reordered lines)`, {
            file: path,
            line,
          });
        }
        expectedSeq++;
        yield event;
      }
    },
  };
}

/** Read every event once to check the whole file; returns the event count. */
export async function validateTapeFile(tape: TapeFile): Promise<number> {
  let count = 0;
  for await (const _event of tape.events()) count++;
  return count;
}

function parseHeader(file: string, text: string, line: number): RunMeta {
  const json = parseJson(file, text, line, 'not an agentctl tape (line 1 is not JSON)');
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
  return meta.data;
}

function parseEvent(file: string, text: string, line: number): RunEvent {
  const json = parseJson(file, text, line, 'not valid JSON (corrupt or truncated line)');
  const event = runEventSchema.safeParse(json);
  if (!event.success) throw new TapeFormatError(`invalid event: ${describeIssue(event.error)}`, { file, line });
  return event.data;
}

function parseJson(file: string, text: string, line: number, message: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new TapeFormatError(message, { file, line });
  }
}

/** The file's non-empty lines with 1-based line numbers; gzip is detected by its magic bytes. */
async function* readLines(path: string): AsyncGenerator<{ text: string; line: number }> {
  const gz = await isGzip(path);
  const source = createReadStream(path);
  const stream = gz ? source.pipe(createGunzip()) : source;
  // Every stream keeps an error listener for its whole life: a truncated gzip may report its error
  // after the reader is done with it, and an error without a listener would crash the process.
  let failure: Error | undefined;
  stream.on('error', (error: Error) => (failure ??= error));
  source.on('error', (error) => stream.destroy(error));
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of reader) {
      line++;
      if (text.trim() === '') continue;
      yield { text, line };
    }
    // readline ends quietly on some input errors: a stream that failed must not pass as complete.
    if (failure !== undefined) throw failure;
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('Z_')) {
      throw new TapeFormatError(`compressed data is corrupt or truncated after line ${line}`, { file: path, line: line + 1 });
    }
    throw error;
  } finally {
    reader.close();
    stream.destroy();
    source.destroy();
  }
}

async function isGzip(path: string): Promise<boolean> {
  const handle = createReadStream(path, { start: 0, end: 1 });
  const chunks: Buffer[] = [];
  for await (const chunk of handle) chunks.push(chunk as Buffer);
  const head = Buffer.concat(chunks);
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}
