/**
 * Watches the system calls that write journals (journal.ts's journalSyscalls), in the order they are
 * made, each still made by node:fs: what a durability test checks is that an fdatasync of a journal
 * came after its record's write and before the caller was told, which no file read back can show.
 */
import { journalSyscalls } from '../journal.js';

export type Syscall =
  | { call: 'open'; fd: number; path: string }
  | { call: 'write'; fd: number; text: string }
  | { call: 'fdatasync' | 'fsync' | 'close'; fd: number }
  /** A moment of the test's own (a promise settled), among the calls. */
  | { call: 'mark'; what: string };

export interface SyscallWatch {
  readonly log: Syscall[];
  /** The descriptor of the last file opened at a path that `match` accepts. */
  fdOf(match: (path: string) => boolean): number;
  mark(what: string): void;
  /** Put node:fs's own functions back. */
  restore(): void;
}

export function watchJournalSyscalls(): SyscallWatch {
  const log: Syscall[] = [];
  const original = { ...journalSyscalls };
  journalSyscalls.openSync = (path, flags, mode) => {
    const fd = original.openSync(path, flags, mode);
    log.push({ call: 'open', fd, path: String(path) });
    return fd;
  };
  journalSyscalls.writeSync = ((fd: number, buffer: Buffer, offset: number, length: number, position: number) => {
    const written = original.writeSync(fd, buffer, offset, length, position);
    log.push({ call: 'write', fd, text: buffer.toString('utf8', offset, offset + written) });
    return written;
  }) as typeof journalSyscalls.writeSync;
  journalSyscalls.fdatasyncSync = (fd) => {
    original.fdatasyncSync(fd);
    log.push({ call: 'fdatasync', fd });
  };
  journalSyscalls.fsyncSync = (fd) => {
    original.fsyncSync(fd);
    log.push({ call: 'fsync', fd });
  };
  journalSyscalls.closeSync = (fd) => {
    original.closeSync(fd);
    log.push({ call: 'close', fd });
  };
  return {
    log,
    fdOf: (match) => {
      const open = log.findLast((entry) => entry.call === 'open' && match(entry.path));
      if (open?.call !== 'open') throw new Error('no such file was opened');
      return open.fd;
    },
    mark: (what) => log.push({ call: 'mark', what }),
    restore: () => void Object.assign(journalSyscalls, original),
  };
}
