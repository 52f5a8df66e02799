/**
 * Which `<run>` arguments are tape files. Its own small module: `show` and `rm` ask it before
 * anything else, and a run in the store must not load the tape-file reader to find out.
 */
import { statSync } from 'node:fs';
import { InvalidOptionError, NotFoundError } from '../core/errors.js';

/**
 * True when a `<run>` argument names a tape file rather than a run in the store: a path that exists
 * and is no directory, whatever its name, or a name that ends like a tape's (so a missing
 * `x.tape.jsonl` is "no tape file", not "no run"). A directory is never a tape: the argument is a
 * run's id, prefix or name, and only when no run has it is the directory the error
 * (`directoryInstead`). A run whose name is also a file's path is reached by its id. Gzip is told
 * by a file's first bytes, never by its name (line-reader.ts).
 */
export function isTapePath(ref: string): boolean {
  const kind = pathKind(ref);
  return kind === 'file' || (kind === 'none' && hasTapeName(ref));
}

/** `agentctl: <path> is a directory`, exit 2: a tape is one file. */
export function directoryError(path: string): InvalidOptionError {
  return new InvalidOptionError(`${path} is a directory`, { hint: `give a tape file or a run id; agentctl ci ${path} replays every tape in a directory` });
}

/**
 * The error for a `<run>` argument that names no run: that it is a directory, when it is one (the
 * user most likely meant a tape there), else `notFound` as it is.
 */
export function directoryInstead(ref: string, notFound: Error): Error {
  return pathKind(ref) === 'directory' ? directoryError(ref) : notFound;
}

/**
 * `opening` (a store opened, and `ref` resolved in it), its NotFoundError — no store at all, or no
 * such run — given as `directoryInstead` words it.
 */
export function runOrDirectory<T>(ref: string, opening: Promise<T>): Promise<T> {
  return opening.catch((error: unknown) => {
    throw error instanceof NotFoundError ? directoryInstead(ref, error) : error;
  });
}

/** A name like a tape file's: `.tape.jsonl`, `.jsonl`, or either with `.gz`. */
export function hasTapeName(name: string): boolean {
  return name.endsWith('.jsonl') || name.endsWith('.jsonl.gz');
}

function pathKind(path: string): 'none' | 'directory' | 'file' {
  try {
    const info = statSync(path, { throwIfNoEntry: false });
    if (info === undefined) return 'none';
    return info.isDirectory() ? 'directory' : 'file';
  } catch (error) {
    // A path through a file (ENOTDIR) or too long to be one is no path; one this process may not
    // look at (EACCES, ELOOP) is a file to open, and opening it says what is wrong.
    const code = (error as { code?: string }).code;
    return code === 'ENOTDIR' || code === 'ENAMETOOLONG' ? 'none' : 'file';
  }
}
