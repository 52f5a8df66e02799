/**
 * Where a library session's tape is: a tape file, or a run in a store. This module reads a tape to
 * serve it, tells whether one exists, and opens what a recording writes into (a file: file-target.ts).
 */
import { existsSync } from 'node:fs';
import { InvalidOptionError, NotFoundError } from '../core/errors.js';
import type { RunMeta } from '../core/run-meta.js';
import { readCallTape, type CallTape } from '../replay/call-tape.js';
import { openTapeFile } from '../tape/tape-file.js';
import { runOrDirectory } from '../tape/tape-path.js';
import { TapeStore } from '../tape/tape-store.js';
import { fileTarget } from './file-target.js';
import type { RecordTarget } from './record-target.js';

/** A tape file path (`*.tape.jsonl`, `.gz`), or a run in a store (for a recording: the new run's name). */
export type TapeRef = string | { store: TapeStore | string; run?: string };

/** The tape as messages name it: the file's path, or `run <ref> in <store dir>`. */
export function tapeLabel(tape: TapeRef): string {
  if (typeof tape === 'string') return tape;
  const dir = typeof tape.store === 'string' ? tape.store : tape.store.dir;
  return tape.run === undefined ? `the store ${dir}` : `run ${tape.run} in ${dir}`;
}

/** The tape option checked: a path, or a store with a run name. */
export function checkTape(tape: unknown): TapeRef {
  if (typeof tape === 'string' && tape !== '') return tape;
  if (typeof tape === 'object' && tape !== null && 'store' in tape) {
    const { store, run } = tape as { store: unknown; run?: unknown };
    if ((typeof store === 'string' && store !== '') || store instanceof TapeStore) {
      if (run === undefined || typeof run === 'string') return tape as TapeRef;
    }
  }
  throw new InvalidOptionError('tape: give a tape file path, or { store, run }', { hint: "e.g. { tape: 'tapes/checkout.tape.jsonl' }" });
}

export interface LoadedTape {
  run: RunMeta;
  tape: CallTape;
}

/** Read a tape to serve it. NotFoundError (exit 10) when there is none. */
export async function loadTape(source: TapeRef): Promise<LoadedTape> {
  if (typeof source === 'string') {
    const file = await openTapeFile(source);
    return { run: file.meta, tape: await readCallTape(file.events()) };
  }
  const ref = source.run;
  if (ref === undefined) throw new InvalidOptionError(`tape: name the run to replay in ${tapeLabel(source)} ({ store, run })`);
  const { store, owned } = await runOrDirectory(ref, openStore(source.store, false));
  try {
    const run = await store.resolveRun(ref);
    return { run, tape: await readCallTape(store.readEvents(run.id)) };
  } finally {
    if (owned) await store.close();
  }
}

/** The tape, when there is one: undefined when its file, its store or its run does not exist. */
export async function findTape(source: TapeRef): Promise<LoadedTape | undefined> {
  if (typeof source === 'string' && !existsSync(source)) return undefined;
  if (typeof source !== 'string' && (source.run === undefined || (typeof source.store === 'string' && !TapeStore.exists(source.store)))) return undefined;
  try {
    return await loadTape(source);
  } catch (error) {
    // No run of that name in the store: nothing recorded yet. A file that exists and cannot be read is an error.
    if (typeof source !== 'string' && error instanceof NotFoundError) return undefined;
    throw error;
  }
}

export async function recordTarget(tape: TapeRef, warn: (message: string) => void): Promise<RecordTarget> {
  if (typeof tape === 'string') return fileTarget(tape, warn);
  const { store, owned } = await openStore(tape.store, true);
  const release = async (): Promise<void> => (owned ? store.close() : undefined);
  return { store, ...(tape.run === undefined ? {} : { runName: tape.run }), done: release, release };
}

async function openStore(store: TapeStore | string, create: boolean): Promise<{ store: TapeStore; owned: boolean }> {
  return typeof store === 'string' ? { store: await TapeStore.open(store, { create }), owned: true } : { store, owned: false };
}
