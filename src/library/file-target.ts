/**
 * Recording onto a tape FILE. A tape file is recorded as durably as a run in a store is, because it
 * is one: the session records into a store of its own, `.<file name>.recording` beside the file (the
 * same recorder, journal and syncs as any recording), and when it finishes the run is exported onto
 * the file with writeTapeFile (a temporary file renamed into place, so a re-recording replaces the
 * old tape whole or not at all) and the directory is removed.
 *
 * A run that never became the file — its process died, or the export failed — stays in that
 * directory: it is never deleted. The export's error names the directory and how to recover the run;
 * the next recording of the same file finds what is left there (complete or not), warns naming it,
 * and keeps it (it records its own run beside them and removes only its own); `agentctl ls --store
 * <dir>` lists what it holds and `agentctl export --store <dir> <run> -o <file>` recovers one.
 *
 * The path is checked before anything is recorded: a path that exists and is no regular file (a
 * directory, a FIFO, a device) is refused, as replay refuses to read one, and so is a path whose
 * directory cannot be made. Two processes recording the same file: the second gets StoreLockedError
 * (exit 11) naming the directory. Two sessions of one process share that store's handle, so the lock
 * cannot tell them apart: the second is refused here while the first is open, or the last finish
 * would silently replace the other's tape. Different files never share a lock, so parallel test
 * workers each record their own.
 */
import { mkdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { InvalidOptionError, IoError } from '../core/errors.js';
import { writeFailure } from '../core/fs-failure.js';
import { notAFile } from '../core/input-file.js';
import type { RunMeta } from '../core/run-meta.js';
import { printableLine } from '../core/terminal-text.js';
import { writeTapeFile } from '../tape/tape-file.js';
import { TapeStore } from '../tape/tape-store.js';
import type { RecordTarget } from './record-target.js';

/** The directory a recording of `file` goes into until it is exported. */
export function recordingDir(file: string): string {
  return join(dirname(file), `.${basename(file)}.recording`);
}

/** The tape files (absolute paths) a session of this process is recording. */
const recording = new Set<string>();

export async function fileTarget(file: string, warn: (message: string) => void): Promise<RecordTarget> {
  const claim = resolve(file);
  if (recording.has(claim)) {
    throw new InvalidOptionError(`tape: ${printableLine(file)} is being recorded by another session of this process`, {
      hint: 'finish that session first (its finish() lets go of the tape), or record onto another file',
    });
  }
  recording.add(claim);
  let store: TapeStore | undefined;
  try {
    await checkWritable(file);
    store = await TapeStore.open(recordingDir(file), { create: true });
    await warnLeft(store, file, warn);
  } catch (error) {
    await store?.close();
    recording.delete(claim);
    throw error;
  }
  const opened = store;
  return {
    store: opened,
    done: async (meta) => {
      try {
        await exported(opened, file, meta);
      } finally {
        recording.delete(claim);
      }
    },
    release: async () => {
      try {
        await opened.close();
      } finally {
        recording.delete(claim);
      }
    },
  };
}

/** The tape file can be written: it is a regular file or nothing yet, and its directory exists (made if need be). */
async function checkWritable(file: string): Promise<void> {
  try {
    const kind = notAFile(await stat(file));
    if (kind !== undefined) throw new InvalidOptionError(`cannot write ${printableLine(file)}: ${kind}`, { hint: 'give the path of a tape file, e.g. tapes/checkout.tape.jsonl' });
    return;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw writeFailure(file, error);
  }
  try {
    await mkdir(dirname(file), { recursive: true });
  } catch (error) {
    // EEXIST: a part of the directory's path is a file (mkdir says so when another process made it meanwhile).
    if ((error as { code?: unknown }).code === 'EEXIST') throw new InvalidOptionError(`cannot write ${printableLine(file)}: a part of the path is not a directory`, { cause: error });
    throw writeFailure(dirname(file), error);
  }
}

/** Warn about the runs a recording directory holds when a recording opens it: none of them is its own. */
async function warnLeft(store: TapeStore, file: string, warn: (message: string) => void): Promise<void> {
  let left = 0;
  for await (const _meta of store.listRuns()) left++;
  if (left === 0) return;
  const dir = printableLine(recordingDir(file));
  warn(
    `${dir} holds ${left === 1 ? 'a recording' : `${left} recordings`} of ${printableLine(file)} never written to it (its process died, or writing the file failed): kept there; ` +
      `see agentctl ls --store ${dir}, recover one with agentctl export --store ${dir} <run> -o ${printableLine(file)}, then remove the directory`,
  );
}

/** Export the finished run onto the file and let go of the store; the directory goes when nothing else is in it. */
async function exported(store: TapeStore, file: string, meta: RunMeta): Promise<void> {
  let others = false;
  try {
    try {
      await writeTapeFile(file, meta, store.readEvents(meta.id));
    } catch (error) {
      throw keptIn(error, recordingDir(file), file, meta.id);
    }
    for await (const run of store.listRuns()) if (run.id !== meta.id) others = true;
    // Exported: the run is the file now. What others left here stays (see the module comment).
    if (others) await store.deleteRun(meta.id);
  } finally {
    await store.close();
  }
  if (!others) await rm(recordingDir(file), { recursive: true, force: true });
}

/** The export's error, saying where the run is kept and how to get it out. */
function keptIn(error: unknown, dir: string, file: string, runId: string): Error {
  const message = `${error instanceof Error ? error.message : String(error)}; the recording is kept in ${printableLine(dir)}`;
  const hint = `recover it with agentctl export --store ${printableLine(dir)} ${runId} -o ${printableLine(file)}, then remove the directory`;
  if (error instanceof InvalidOptionError) return new InvalidOptionError(message, { hint, cause: error });
  return new IoError(message, { hint, cause: error });
}
