/**
 * Where a library session's tape is: a tape file, or a run in a store. This module reads a tape to
 * serve it, tells whether one exists, and opens what a recording writes into.
 *
 * A tape FILE is recorded as durably as a run in a store is, because it is one: the session records
 * into a store of its own, `.<file name>.recording` beside the file (the same recorder, journal and
 * syncs as any recording), and when it finishes the run is exported onto the file with
 * writeTapeFile (a temporary file renamed into place, so a re-recording replaces the old tape whole
 * or not at all) and the directory is removed. A process that dies mid-recording leaves that
 * directory with every reply it got: it is never deleted. The next recording of the same file finds
 * it, warns naming it, and keeps it (it records its own run beside the one left there and removes
 * only its own); `agentctl ls --store <dir>` lists what it holds and `agentctl export` recovers it.
 * Two processes recording the same file: the second gets StoreLockedError (exit 11) naming the
 * directory. Different files never share a lock, so parallel test workers each record their own.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { InvalidOptionError, NotFoundError } from '../core/errors.js';
import type { RunMeta } from '../core/run-meta.js';
import { printableLine } from '../core/terminal-text.js';
import { readCallTape, type CallTape } from '../replay/call-tape.js';
import { openTapeFile, writeTapeFile } from '../tape/tape-file.js';
import { runOrDirectory } from '../tape/tape-path.js';
import { TapeStore } from '../tape/tape-store.js';

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

/** What a recording writes into, and what happens when it ends. */
export interface RecordTarget {
  store: TapeStore;
  /** The new run's name. */
  runName?: string;
  /** The run is finished: put it where it belongs (a file: exported, the directory removed) and let go of the store. */
  done(meta: RunMeta): Promise<void>;
  /** Let go of the store, keeping what it holds. */
  release(): Promise<void>;
}

export async function recordTarget(tape: TapeRef, warn: (message: string) => void): Promise<RecordTarget> {
  if (typeof tape === 'string') return fileTarget(tape, warn);
  const { store, owned } = await openStore(tape.store, true);
  const release = async (): Promise<void> => (owned ? store.close() : undefined);
  return { store, ...(tape.run === undefined ? {} : { runName: tape.run }), done: release, release };
}

/** The directory a recording of `file` goes into until it is exported. */
export function recordingDir(file: string): string {
  return join(dirname(file), `.${basename(file)}.recording`);
}

async function fileTarget(file: string, warn: (message: string) => void): Promise<RecordTarget> {
  const dir = recordingDir(file);
  await mkdir(dirname(file), { recursive: true });
  const store = await TapeStore.open(dir, { create: true });
  try {
    const left: RunMeta[] = [];
    for await (const meta of store.listRuns()) if (meta.status === 'incomplete') left.push(meta);
    if (left.length > 0) {
      warn(
        `${printableLine(dir)} holds ${left.length === 1 ? 'a recording' : `${left.length} recordings`} of ${printableLine(file)} that did not finish (its process died): kept there; ` +
          `see agentctl ls --store ${printableLine(dir)}, recover one with agentctl export --store ${printableLine(dir)} <run> <file>, then remove the directory`,
      );
    }
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    store,
    done: async (meta) => {
      let others = false;
      try {
        await writeTapeFile(file, meta, store.readEvents(meta.id));
        for await (const run of store.listRuns()) if (run.id !== meta.id) others = true;
        // Exported: the run is the file now. What others left here stays (see the module comment).
        if (others) await store.deleteRun(meta.id);
      } finally {
        await store.close();
      }
      if (!others) await rm(dir, { recursive: true, force: true });
    },
    release: () => store.close(),
  };
}

async function openStore(store: TapeStore | string, create: boolean): Promise<{ store: TapeStore; owned: boolean }> {
  return typeof store === 'string' ? { store: await TapeStore.open(store, { create }), owned: true } : { store, owned: false };
}
