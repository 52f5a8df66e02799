/** LevelDB's failures, as LevelDB reports them, mapped to agentctl's errors (the decision, without a failing disk). */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError, IoError, StoreLockedError, TapeFormatError } from '../core/errors.js';
import { storeFailure, systemError, type StoreDoing } from './store-failure.js';

const place = { dir: '/data/store', files: '/data/store' };
/** An error as classic-level makes one from a LevelDB status. */
const level = (code: string, message: string): Error => Object.assign(new Error(message), { code });
const io = (file: string, text: string): Error => level('LEVEL_IO_ERROR', `IO error: ${file}: ${text}`);
/** classic-level's failed open: the status is the cause. */
const notOpen = (cause: Error): Error => Object.assign(new Error('Database failed to open'), { code: 'LEVEL_DATABASE_NOT_OPEN', cause });

function mapped(error: Error, doing: StoreDoing): { name: string; exit: number; message: string } {
  const failure = storeFailure(place, error, doing) as Error & { exitCode: number };
  return { name: failure.constructor.name, exit: failure.exitCode, message: failure.message };
}

describe('systemError reads the C library text back into its code', () => {
  it.each([
    ['No space left on device', 'ENOSPC'],
    ['Disk quota exceeded', 'EDQUOT'],
    ['Disc quota exceeded', 'EDQUOT'],
    ['Input/output error', 'EIO'],
    ['Read-only file system', 'EROFS'],
    ['Permission denied', 'EACCES'],
    ['Invalid argument', 'EINVAL'],
    ['Too many open files', 'EUNKNOWN'],
  ])('%s → %s', (text, code) => {
    expect(systemError(io('/data/store/000012.log', text))).toEqual({ code, file: '/data/store/000012.log', message: text });
  });

  it('is nothing for anything else', () => {
    expect(systemError(level('LEVEL_CORRUPTION', 'Corruption: bad block'))).toBeUndefined();
    expect(systemError(new Error('IO error: x: No space left on device'))).toBeUndefined();
  });
});

describe('storeFailure', () => {
  it('a full disk or an I/O error is the machine\'s: exit 12, when opening, reading or writing', () => {
    expect(mapped(notOpen(io('/data/store/MANIFEST-000009', 'No space left on device')), 'open')).toEqual({
      name: 'IoError', exit: 12, message: 'cannot write /data/store: no space left on the device (ENOSPC)',
    });
    expect(mapped(io('/data/store/000005.ldb', 'Input/output error'), 'read')).toEqual({
      name: 'IoError', exit: 12, message: 'cannot read /data/store/000005.ldb: an I/O error (EIO)',
    });
    expect(mapped(io('/data/store/000012.log', 'No space left on device'), 'write')).toMatchObject({ name: 'IoError', exit: 12 });
    expect(mapped(io('/data/store/000012.log', 'Too many open files'), 'read')).toMatchObject({ name: 'IoError', exit: 12 });
  });

  it('a store that may not be written, at open: a path that cannot be used (exit 2); mid-write: exit 12 (the run is kept incomplete)', () => {
    expect(mapped(notOpen(io('/data/store/LOCK', 'Read-only file system')), 'open')).toEqual({
      name: 'InvalidOptionError', exit: 2, message: 'cannot write /data/store: read-only file system',
    });
    expect(mapped(notOpen(io('/data/store/LOCK', 'Permission denied')), 'open')).toMatchObject({ name: 'InvalidOptionError', exit: 2 });
    expect(mapped(io('/data/store/000012.log', 'Read-only file system'), 'write')).toMatchObject({ name: 'IoError', exit: 12 });
  });

  it('a store file gone, cut short or of the wrong kind, and any corruption, is damage: exit 9 naming the file', () => {
    expect(mapped(io('/data/store/000005.ldb', 'Invalid argument'), 'read')).toMatchObject({
      name: 'TapeFormatError', exit: 9, message: expect.stringMatching(/^\/data\/store\/000005\.ldb: the store \/data\/store is damaged: LevelDB says: IO error/),
    });
    expect(mapped(notOpen(io('/data/store/MANIFEST-000004', 'No such file or directory')), 'open')).toMatchObject({
      exit: 9, message: expect.stringMatching(/^\/data\/store\/MANIFEST-000004: /),
    });
    expect(mapped(notOpen(level('LEVEL_CORRUPTION', 'Corruption: 1 missing files; e.g.: /data/store/000005.ldb')), 'open')).toMatchObject({
      exit: 9,
      message: expect.stringMatching(/^\/data\/store\/000005\.ldb: the store \/data\/store is damaged: LevelDB says: Corruption: 1 missing files/),
    });
    // No file named and no table to check: the store's directory is named.
    expect(mapped(level('LEVEL_CORRUPTION', 'Corruption: corrupted compressed block contents'), 'read')).toMatchObject({
      exit: 9, message: '/data/store: the store /data/store is damaged: LevelDB says: Corruption: corrupted compressed block contents',
    });
    expect(storeFailure(place, level('LEVEL_DECODE_ERROR', 'Could not decode value'), 'read')).toBeInstanceOf(TapeFormatError);
  });

  it('the lock held: exit 11; a copy read in the store\'s place is named as the store', () => {
    const locked = notOpen(level('LEVEL_LOCKED', 'IO error: lock /data/store/LOCK: Resource temporarily unavailable'));
    expect(storeFailure(place, locked, 'open')).toBeInstanceOf(StoreLockedError);
    const copy = { dir: '/data/store', files: '/tmp/agentctl-store-1a2b' };
    const failure = storeFailure(copy, io('/tmp/agentctl-store-1a2b/000005.ldb', 'Invalid argument'), 'read') as TapeFormatError;
    expect(failure.file).toBe('/data/store/000005.ldb');
    expect(failure.message).not.toContain('agentctl-store-1a2b');
  });

  it('agentctl errors pass as they are; an error that is not LevelDB\'s is a bug when reading, a failed write when writing', () => {
    const own = new InvalidOptionError('x');
    expect(storeFailure(place, own, 'write')).toBe(own);
    const bug = new TypeError('oops');
    expect(storeFailure(place, bug, 'read')).toBe(bug);
    expect(storeFailure(place, bug, 'write')).toBeInstanceOf(IoError);
    expect(storeFailure(place, bug, 'open')).toBeInstanceOf(TapeFormatError);
  });
});
