/**
 * A file that could not be read or written, as the agentctl error it is: a path the caller gave
 * that cannot be used is theirs to fix (InvalidOptionError, exit 2; a file to read that does not
 * exist, NotFoundError, exit 10); anything else the operating system says — a full disk, an I/O
 * error, a quota — is the machine's (IoError, exit 12).
 */
import { InvalidOptionError, IoError, NotFoundError } from './errors.js';

/** Errors of a path that cannot be used, as the user should read them. */
const BAD_PATH: Readonly<Record<string, string>> = {
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the name is too long',
};

/** Errors of a failing disk that say more in words than in their code. */
const DISK: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'an I/O error',
};

/** The error to throw for `error`, met while writing `path` (see failure). */
export function writeFailure(path: string, error: unknown): unknown {
  return failure('write', path, error);
}

/** The error to throw for `error`, met while reading `path` (see failure). */
export function readFailure(path: string, error: unknown): unknown {
  return failure('read', path, error);
}

/**
 * An error of the operating system (one naming its `syscall`) becomes an agentctl error; any other
 * error — say, one of the data being read or written — is returned as it is.
 */
function failure(doing: 'read' | 'write', path: string, error: unknown): unknown {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  if (typeof code !== 'string' || typeof syscall !== 'string') return error;
  if (code === 'ENOENT') {
    return doing === 'read' ? new NotFoundError(`no such file ${path}`) : new InvalidOptionError(`cannot write ${path}: its directory does not exist`, { cause: error });
  }
  const badPath = BAD_PATH[code];
  if (badPath !== undefined) return new InvalidOptionError(`cannot ${doing} ${path}: ${badPath}`, { cause: error });
  const reason = DISK[code] ?? (error instanceof Error ? error.message : code);
  return new IoError(`cannot ${doing} ${path}: ${reason}${DISK[code] === undefined ? '' : ` (${code})`}`, { cause: error });
}
