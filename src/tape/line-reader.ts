/**
 * The lines of a tape file, read with bounds: a tape is untrusted input, and a small file must not
 * be able to make the reader spend unbounded memory or time. A line longer than `maxLineBytes` is
 * refused while it is still being read (never buffered whole), and a gzip file is inflated only as
 * far as `maxInflatedBytes(compressed size)` allows: the gunzip stream is stopped there. A UTF-8 byte
 * order mark before the first line (plain or inflated) is dropped, as from any file the user names.
 */
import { readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Readable, type Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { TapeFormatError } from '../core/errors.js';
import { readFailure } from '../core/fs-failure.js';
import { withoutBom } from '../core/input-file.js';
import { digestedBlocks, type BlockMode } from './block-digests.js';

export interface LineLimits {
  /** The longest line, in bytes (without its newline). */
  maxLineBytes: number;
  /** How many bytes a gzip file of `compressedBytes` may inflate to. */
  maxInflatedBytes(compressedBytes: number): number;
}

export interface TapeLine {
  /** The line's text, without its line break (a trailing CR is dropped too). */
  text: string;
  /** 1-based line number. */
  line: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Bytes read from disk at a time. Larger chunks are no faster: a batch of events that lives
 * longer is more for the garbage collector to move.
 */
const CHUNK_BYTES = 64 * 1024;

/** How to read: the file already open (kept open), and its blocks' digests to collect or verify. */
export interface ReadOptions {
  /**
   * The file, opened by the caller, who closes it: everything is read through this one descriptor,
   * so what is read is the file the caller looked at (`handle.stat()`), whatever its path names
   * since. Without it the path is opened here, and closed when the reading ends.
   */
  handle?: FileHandle;
  /**
   * The file's bytes (as stored, before any gunzip) pass through digestedBlocks on their way: their
   * digests are collected, or each block is verified before a line is made of it; a block that is
   * not the expected one fails the read with TapeFormatError.
   */
  blocks?: BlockMode;
}

/**
 * Every line of the file, blank ones included, in order, in batches: the lines that end in each
 * chunk read (so a consumer pays one async step per chunk, not per line). Gzip is detected by its
 * magic bytes. A file the system cannot read (an I/O error, no permission) is an agentctl error
 * naming it (fs-failure.ts).
 */
export async function* readTapeLines(path: string, limits: LineLimits, options: ReadOptions = {}): AsyncGenerator<TapeLine[]> {
  try {
    const handle = options.handle ?? (await open(path, 'r'));
    try {
      let first = true;
      for await (const lines of linesFrom(path, handle, limits, options.blocks)) {
        // A byte order mark some editors put first is no part of the header line.
        if (first && lines[0] !== undefined) lines[0] = { ...lines[0], text: withoutBom(lines[0].text) };
        first = false;
        yield lines;
      }
    } finally {
      if (options.handle === undefined) await handle.close();
    }
  } catch (error) {
    throw readFailure(path, error);
  }
}

async function* linesFrom(path: string, handle: FileHandle, limits: LineLimits, blocks: BlockMode | undefined): AsyncGenerator<TapeLine[]> {
  const gz = await isGzip(handle);
  const maxInflated = gz ? limits.maxInflatedBytes((await handle.stat()).size) : Infinity;
  // Plain async generators from the file to the lines: no stream machinery but gunzip's.
  const stored = blocks === undefined
    ? chunksOf(handle)
    : digestedBlocks(chunksOf(handle), blocks, () => new TapeFormatError('the file changed while it was read', { file: path }));
  let gunzip: { source: Readable; stream: Transform } | undefined;
  if (gz) {
    const source = Readable.from(stored, { objectMode: false });
    const stream = source.pipe(createGunzip());
    // An error after the reader has stopped (a gunzip destroyed mid-stream) must not go unhandled.
    stream.on('error', () => undefined);
    source.on('error', (error) => stream.destroy(error));
    gunzip = { source, stream };
  }
  const bytes: AsyncIterable<Buffer> = gunzip?.stream ?? stored;
  let line = 0;
  /** The start of the line being read, when it spans chunks. */
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let inflated = 0;
  const tooLong = (): TapeFormatError =>
    new TapeFormatError(`line longer than ${limits.maxLineBytes} bytes: not an agentctl tape line`, { file: path, line: line + 1 });
  const lineOf = (piece: Buffer): TapeLine => {
    const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece], pendingBytes + piece.length);
    pending = [];
    pendingBytes = 0;
    line++;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
    let text: string;
    try {
      text = utf8.decode(bytes.subarray(0, end));
    } catch {
      throw new TapeFormatError('not valid UTF-8 (corrupt line)', { file: path, line });
    }
    return { text, line };
  };
  /**
   * The lines of `chunk[from, to)` (which ends just after a newline), with no line pending: decoded
   * in one go and split, rather than one decoder call per line. Bytes that are not UTF-8 are then
   * found line by line, so the error names the line.
   */
  const linesOf = (chunk: Buffer, from: number, to: number, lines: TapeLine[]): void => {
    if (to <= from) return;
    let text: string;
    try {
      text = utf8.decode(chunk.subarray(from, to - 1));
    } catch {
      for (let at = from, nl = chunk.indexOf(NEWLINE, at); nl !== -1 && nl < to; at = nl + 1, nl = chunk.indexOf(NEWLINE, at)) {
        lines.push(lineOf(chunk.subarray(at, nl)));
      }
      return;
    }
    for (const piece of text.split('\n')) {
      line++;
      lines.push({ text: piece.endsWith('\r') ? piece.slice(0, -1) : piece, line });
    }
  };
  try {
    for await (const chunk of bytes) {
      inflated += chunk.length;
      if (inflated > maxInflated) {
        throw new TapeFormatError(
          `compressed data inflates to more than ${maxInflated} bytes, more than an agentctl tape of this size can hold`,
          { file: path, line: line + 1 },
        );
      }
      let start = 0;
      const lines: TapeLine[] = [];
      try {
        // The end of a line begun in an earlier chunk…
        const first = pendingBytes > 0 ? chunk.indexOf(NEWLINE) : -1;
        if (first !== -1) {
          if (pendingBytes + first > limits.maxLineBytes) throw tooLong();
          lines.push(lineOf(chunk.subarray(0, first)));
          start = first + 1;
        }
        // …then the lines that begin and end in this one.
        if (pendingBytes === 0) {
          let end = start;
          for (let nl = chunk.indexOf(NEWLINE, end); nl !== -1; nl = chunk.indexOf(NEWLINE, end)) {
            if (nl - end > limits.maxLineBytes) {
              linesOf(chunk, start, end, lines);
              throw tooLong();
            }
            end = nl + 1;
          }
          linesOf(chunk, start, end, lines);
          start = end;
        }
      } catch (error) {
        // The lines before a bad one are given first, as they would be one by one.
        if (lines.length > 0) yield lines;
        throw error;
      }
      if (lines.length > 0) yield lines;
      if (start < chunk.length) {
        if (pendingBytes + chunk.length - start > limits.maxLineBytes) throw tooLong();
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
      }
    }
    if (pendingBytes > 0) yield [lineOf(Buffer.alloc(0))];
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('Z_')) {
      throw new TapeFormatError(`compressed data is corrupt or truncated after line ${line}`, { file: path, line: line + 1 });
    }
    throw error;
  } finally {
    // The plain generators were ended by the loop; gunzip's streams are stopped here.
    gunzip?.stream.destroy();
    gunzip?.source.destroy();
  }
}

/**
 * The file's bytes from its start, CHUNK_BYTES at a time, read at explicit positions, each when the
 * caller asks for it; a failed read is the caller's error for that chunk.
 *
 * The reads are synchronous. A read through the thread pool, even one begun a chunk ahead, reaches
 * its caller only through a turn of the event loop, which a replay otherwise never takes while it
 * works through a chunk's events: every chunk would cost such a turn, idle while it waits on the
 * pool (tens of milliseconds of a 10,000-step replay), against microseconds for a synchronous read
 * of 64 KiB from the page cache.
 */
async function* chunksOf(handle: FileHandle): AsyncGenerator<Buffer> {
  for (let position = 0; ;) {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    const bytesRead = readSync(handle.fd, buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    yield bytesRead === CHUNK_BYTES ? buffer : buffer.subarray(0, bytesRead);
  }
}

async function isGzip(handle: FileHandle): Promise<boolean> {
  const head = Buffer.alloc(2);
  const { bytesRead } = await handle.read(head, 0, 2, 0);
  return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
}
