/**
 * A store directory's files, looked at without LevelDB: whether a store is there, and a copy of it
 * for reading a store this process may not write.
 *
 * LevelDB finds its data through `CURRENT`, which names the manifest that lists the table files.
 * Opened with `createIfMissing` in a directory without `CURRENT`, LevelDB makes a new, empty
 * database there: it replays the `*.log` files it finds (the latest writes) and deletes every table
 * file the new manifest does not list — the events of every run written out before. So a directory
 * holding data files but no `CURRENT` is a damaged store, never a place to create one.
 */
import { constants, copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFailure, writeFailure } from '../core/fs-failure.js';

/**
 * What a store keeps: LevelDB's tables, logs and manifests, and agentctl's recording journals
 * (journal.ts). `LOCK` and `LOG*` are not data: LevelDB makes them at every open, a failed one too.
 */
const DATA_FILE = /^(?:\d+\.(?:ldb|sst|log)|MANIFEST-\d+|journal-.+)$/;
const MANIFEST = /^MANIFEST-(\d+)$/;
/** Files a copy leaves out: the lock and LevelDB's own info log are the original's, not data. */
const NOT_COPIED = new Set(['LOCK', 'LOG', 'LOG.old']);

/**
 * `none`: nothing is there, or a directory without store data (a store may be created there).
 * `store`: a store (whether LevelDB can open it is for LevelDB to say). `no-current`: store data
 * without `CURRENT` (damaged). `not-a-directory`: something else is at the path.
 */
export type StoreState = 'none' | 'store' | 'no-current' | 'not-a-directory';

/** What is at `dir`. A directory that cannot be listed is an agentctl error naming it (fs-failure.ts). */
export function storeState(dir: string): StoreState {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) return 'not-a-directory';
    names = readdirSync(dir);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return 'none';
    throw readFailure(dir, error);
  }
  if (names.includes('CURRENT')) return 'store';
  return names.some((name) => DATA_FILE.test(name)) ? 'no-current' : 'none';
}

/** The highest-numbered manifest in `dir` — the one `CURRENT` named, unless a switch to a newer one was cut short. */
export function newestManifest(dir: string): string | undefined {
  let newest: { name: string; n: number } | undefined;
  for (const name of readdirSync(dir)) {
    const n = Number(MANIFEST.exec(name)?.[1] ?? NaN);
    if (!Number.isNaN(n) && (newest === undefined || n > newest.n)) newest = { name, n };
  }
  return newest?.name;
}

/**
 * Copy the store at `dir` into a new temporary directory, and return its path: every regular file
 * but the lock and the info log (a clone where the file system can make one). LevelDB never writes
 * into a file it finds at open; it writes new ones beside them, which here go to the copy.
 */
export function copyStore(dir: string): string {
  let copy: string;
  try {
    copy = mkdtempSync(join(tmpdir(), 'agentctl-store-'));
  } catch (error) {
    throw writeFailure(tmpdir(), error);
  }
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isFile() || NOT_COPIED.has(entry.name)) continue;
      const from = join(dir, entry.name);
      try {
        copyFileSync(from, join(copy, entry.name), constants.COPYFILE_FICLONE);
      } catch (error) {
        // A full or read-only temporary directory is where the copy goes; anything else, the file copied.
        throw WRITE_SIDE.has((error as { code?: string }).code ?? '') ? writeFailure(copy, error) : readFailure(from, error);
      }
    }
  } catch (error) {
    rmSync(copy, { recursive: true, force: true });
    throw readFailure(dir, error);
  }
  return copy;
}

const WRITE_SIDE = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);
