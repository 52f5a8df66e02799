/**
 * Files the user names to be read whole (a `--config` file, a `--patch N=@file`): only a regular
 * file, and only up to a size fit for what it holds. A path can name anything — a FIFO that never
 * ends (or never opens), `/dev/zero`, a directory — and reading such a thing whole would wait or
 * grow without bound; each is one usage error (exit 2) instead. A leading UTF-8 byte order mark, as
 * some Windows editors write, is dropped: it is no part of the text.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { InvalidOptionError } from './errors.js';
import { readFailure } from './fs-failure.js';
import { sizeText } from './size-text.js';

/**
 * Opened without waiting: opening a FIFO for reading otherwise blocks until a writer comes, before
 * its kind can be looked at. Reads of a regular file are the same either way (Windows has no flag).
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Bytes read at a time. */
const CHUNK_BYTES = 64 * 1024;

/** Dropped when it starts a file's text (U+FEFF). */
const BOM = '\uFEFF';

/** What a path that is not a regular file is, in words; undefined for a regular file. */
export function notAFile(info: Stats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isDirectory()) return 'it is a directory';
  if (info.isFIFO()) return 'it is a FIFO, not a regular file';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'it is a device, not a regular file';
  if (info.isSocket()) return 'it is a socket, not a regular file';
  return 'it is not a regular file';
}

/** `text` without the byte order mark it may start with. */
export const withoutBom = (text: string): string => (text.startsWith(BOM) ? text.slice(1) : text);

/**
 * The text of the regular file at `path`, at most `maxBytes` long. A file that does not exist is
 * NotFoundError (exit 10, `no such file`); one that is no regular file or is larger, a usage error
 * naming it; any other failure of the system, as fs-failure.ts words it.
 */
export function readInputFile(path: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    throw readFailure(path, error);
  }
  try {
    const info = fstatSync(fd);
    const kind = notAFile(info);
    if (kind !== undefined) throw new InvalidOptionError(`cannot read ${path}: ${kind}`);
    const tooLarge = (): InvalidOptionError => new InvalidOptionError(`cannot read ${path}: it is larger than ${sizeText(maxBytes)}`);
    if (info.size > maxBytes) throw tooLarge();
    // Read to the end rather than to the size looked at: a file may grow while it is read.
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - length));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      length += n;
      if (length > maxBytes) throw tooLarge();
    }
    return withoutBom(Buffer.concat(chunks, length).toString('utf8'));
  } catch (error) {
    throw readFailure(path, error);
  } finally {
    closeSync(fd);
  }
}
