/**
 * Opening a store's LevelDB database, or refusing to before LevelDB touches it.
 *
 * - A directory holding store data without `CURRENT` is refused (exit 9): LevelDB would make a new,
 *   empty database there and delete the tables of every run (store-files.ts). Nothing is written.
 * - A store LevelDB cannot open — an unreadable or missing manifest, a damaged table — is refused
 *   with what LevelDB found (store-failure.ts); LevelDB writes nothing of the store's data first.
 * - LevelDB has no read-only mode: opening writes its lock, a new manifest and log, and moves what
 *   the last log held into a table. So a store this process may not write (a read-only file system,
 *   no permission) is, for a command that only reads it, copied to a temporary directory and the
 *   copy opened; the copy is removed when the store is closed. Its runs are read as they were when
 *   it was copied, and nothing can be written to it (TapeStore refuses).
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { Level } from 'level';
import { InvalidOptionError, NotFoundError, TapeFormatError } from '../core/errors.js';
import { NOT_WRITABLE, storeFailure, systemError, type StorePlace } from './store-failure.js';
import { copyStore, newestManifest, storeState } from './store-files.js';

export type Db = Level<string, unknown>;

export interface OpenedDb {
  db: Db;
  place: StorePlace;
  /** The files opened are a temporary copy of the store's, to remove when it is closed. */
  copy: boolean;
}

export async function openDb(dir: string, options: { create: boolean; readOnly: boolean }): Promise<OpenedDb> {
  const path = resolve(dir);
  const state = storeState(path);
  if (state === 'not-a-directory') {
    throw new InvalidOptionError(`the store ${dir} is not a directory`, { hint: 'pass --store <dir> (or set AGENTCTL_STORE) to a directory' });
  }
  if (state === 'no-current') throw missingCurrent(dir, path);
  if (state === 'none' && (!options.create || options.readOnly)) {
    throw new NotFoundError(`no store at ${dir}`, { hint: 'record a run first (agentctl record), or pass --store <dir>' });
  }
  const inPlace = { dir, files: path };
  try {
    return { db: await openLevel(path, options.create), place: inPlace, copy: false };
  } catch (error) {
    const system = systemError((error as { cause?: unknown }).cause ?? error);
    if (!options.readOnly || system === undefined || !NOT_WRITABLE.has(system.code)) throw storeFailure(inPlace, error, 'open');
  }
  const copy = copyStore(path);
  try {
    return { db: await openLevel(copy, false), place: { dir, files: copy }, copy: true };
  } catch (error) {
    rmSync(copy, { recursive: true, force: true });
    throw storeFailure({ dir, files: copy }, error, 'open');
  }
}

async function openLevel(path: string, create: boolean): Promise<Db> {
  const db = new Level<string, unknown>(path, { valueEncoding: 'json', createIfMissing: create });
  await db.open();
  return db;
}

/** The refusal of a store without `CURRENT`, with how to put it back. */
function missingCurrent(dir: string, path: string): TapeFormatError {
  const manifest = newestManifest(path);
  return new TapeFormatError(
    `the store ${dir} is damaged: it has no CURRENT file, which names the manifest listing its data; nothing was changed`,
    { file: resolve(path, 'CURRENT') },
    {
      hint: manifest === undefined
        ? 'restore the store directory from a backup'
        : `if the store was not being changed when CURRENT was lost, ${manifest} is the manifest it named: printf '${manifest}\\n' > ${shellQuoted(resolve(path, 'CURRENT'))}`,
    },
  );
}

/** A path as one shell word. */
function shellQuoted(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
