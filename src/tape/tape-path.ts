/**
 * Which `<run>` arguments are tape files. Its own small module: `show` and `rm` ask it before
 * anything else, and a run in the store must not load the tape-file reader to find out.
 */
import { statSync } from 'node:fs';

/**
 * True when a `<run>` argument names a tape file rather than a run in the store: a path that exists,
 * whatever its name (a directory too, which openTapeFile refuses as one), or a name that ends like a
 * tape's (so a missing `x.tape.jsonl` is "no tape file", not "no run"). A run whose name is also a
 * path is reached by its id. Gzip is told by a file's first bytes, never by its name (line-reader.ts).
 */
export function isTapePath(ref: string): boolean {
  return pathExists(ref) || hasTapeName(ref);
}

/** A name like a tape file's: `.tape.jsonl`, `.jsonl`, or either with `.gz`. */
export function hasTapeName(name: string): boolean {
  return name.endsWith('.jsonl') || name.endsWith('.jsonl.gz');
}

function pathExists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    // A path through a file (ENOTDIR) or too long to be one is no path; one this process may not
    // look at (EACCES, ELOOP) is, and opening it says what is wrong.
    const code = (error as { code?: string }).code;
    return code !== 'ENOTDIR' && code !== 'ENAMETOOLONG';
  }
}
