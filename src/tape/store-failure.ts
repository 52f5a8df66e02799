/**
 * A LevelDB failure as the agentctl error it is. LevelDB reports damage as `LEVEL_CORRUPTION`, and a
 * failed system call as `LEVEL_IO_ERROR` with only the C library's text for the error
 * (`IO error: <file>: No space left on device`): that text is read back into its code, and the code
 * decides — a file of the store that is missing, cut short or of the wrong kind is damage (exit 9,
 * naming the file); a full disk or an I/O error is the machine's (exit 12); a store that may not be
 * written is a path that cannot be used (exit 2; fs-failure.ts).
 */
import { isAgentctlError, StoreLockedError, storeWriteFailed, TapeFormatError } from '../core/errors.js';
import { readFailure, writeFailure } from '../core/fs-failure.js';
import { damagedFile, fileDamage } from './store-damage.js';

/** Where a store is: the directory the user named, and where its files are opened (a copy's, for a store read from a copy). */
export interface StorePlace {
  dir: string;
  files: string;
}

/** What was being done: opening (LevelDB writes at open), reading, or writing (recording, importing, deleting). */
export type StoreDoing = 'open' | 'read' | 'write';

/** The C library's texts (glibc's and BSD's) of the errors LevelDB reports, by code. */
const SYSTEM_TEXTS: readonly (readonly [string, RegExp])[] = [
  ['ENOSPC', /^no space left on device$/i],
  ['EDQUOT', /^dis[ck] quota exceeded$/i],
  ['EIO', /^input\/output error$/i],
  ['EROFS', /^read-only file system$/i],
  ['EACCES', /^permission denied$/i],
  ['EPERM', /^operation not permitted$/i],
  ['ENOENT', /^no such file or directory$/i],
  ['EINVAL', /^invalid argument$/i],
  ['EISDIR', /^is a directory$/i],
  ['ENOTDIR', /^not a directory$/i],
];

/**
 * Codes that mean a file of the store is not what LevelDB wrote: gone, a directory where a file
 * should be, or read past its end (LevelDB reads tables through memory maps, and a read past the
 * end of a truncated one is EINVAL).
 */
const DAMAGE = new Set(['ENOENT', 'EINVAL', 'EISDIR', 'ENOTDIR']);

/** Codes that mean the store may not be written here: for a command that only reads, a copy is read instead. */
export const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

/** A LevelDB `IO error: <file>: <text>`, read back into the file and the system error's code. */
export function systemError(error: unknown): { code: string; file: string; message: string } | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'LEVEL_IO_ERROR' || typeof message !== 'string') return undefined;
  const match = /^IO error: (.*): ([^:]+)$/.exec(message);
  if (match === null) return undefined;
  const text = (match[2] as string).trim();
  const known = SYSTEM_TEXTS.find(([, pattern]) => pattern.test(text));
  return { code: known?.[0] ?? 'EUNKNOWN', file: match[1] as string, message: text };
}

/** The error to throw for `error`, met while `doing` something with the store at `place`. */
export function storeFailure(place: StorePlace, error: unknown, doing: StoreDoing): unknown {
  if (isAgentctlError(error)) return error;
  const { code, message, cause } = (error ?? {}) as { code?: unknown; message?: unknown; cause?: unknown };
  const text = typeof message === 'string' ? message.replaceAll(place.files, place.dir) : String(error);
  // An open that failed says why in its cause.
  if (code === 'LEVEL_DATABASE_NOT_OPEN' && cause !== undefined) return storeFailure(place, cause, doing);
  if (code === 'LEVEL_LOCKED') return new StoreLockedError(place.dir);
  if (code === 'LEVEL_CORRUPTION') return damaged(place, text, mentionedFile(String(message)));
  if (code === 'LEVEL_DECODE_ERROR') return new TapeFormatError('a value in the store is not valid JSON', { file: place.dir }, { cause: error });
  const system = systemError(error);
  if (system !== undefined) {
    if (DAMAGE.has(system.code)) return damaged(place, text, system.file);
    const file = system.file.replaceAll(place.files, place.dir);
    if (doing === 'write') return storeWriteFailed(place.dir, error);
    const asNode = Object.assign(new Error(text), { code: system.code, syscall: 'open' });
    // LevelDB writes when it opens a store (its lock, a new manifest and log): a failure then is the store's.
    return doing === 'open' ? writeFailure(place.dir, asNode) : readFailure(file, asNode);
  }
  if (doing === 'open') return new TapeFormatError(`cannot open the store: ${text}`, { file: place.dir }, { cause: error });
  if (doing === 'write') return storeWriteFailed(place.dir, error);
  return error;
}

/** The store file a LevelDB message names, if it names one. */
function mentionedFile(text: string): string | undefined {
  return /(\/[^\s:]*\/(?:\d+\.(?:ldb|sst|log)|MANIFEST-\d+|CURRENT))\b/.exec(text)?.[1];
}

/**
 * Damage LevelDB found (exit 9), naming the file: the one LevelDB names, else the one whose
 * checksums do not check out (store-damage.ts), else the store's directory.
 */
function damaged(place: StorePlace, text: string, file: string | undefined): TapeFormatError {
  const damage = file === undefined ? damagedFile(place.files) : fileDamage(file);
  const where = (file ?? damage?.file)?.replaceAll(place.files, place.dir) ?? place.dir;
  const what = damage === undefined ? '' : `${damage.problem}; `;
  return new TapeFormatError(`the store ${place.dir} is damaged: ${what}LevelDB says: ${text}`, { file: where }, {
    hint: 'its runs cannot be read as they are; restore the store directory from a backup',
  });
}
