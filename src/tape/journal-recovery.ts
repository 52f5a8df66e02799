/**
 * Putting back, when a store is opened, what recorders that died left in their journals (journal.ts):
 * every whole, valid record is written to the store (puts by run and seq: replaying twice is
 * harmless), made durable, and the journal removed. A journal of a run marked finished is only
 * removed: its events were made durable before the run was (TapeStore.finishRun). A damaged journal
 * — not just a torn last record — has its valid records put back, is kept aside as `*.damaged` (or
 * `*.damaged.1`, …: nothing is deleted) and reported through `warn`, and the store opens all the same.
 */
import { existsSync, renameSync } from 'node:fs';
import { isAgentctlError, TapeFormatError } from '../core/errors.js';
import type { RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { journalRecords, listJournals, removeJournal } from './journal.js';

/** What recovery needs of the store. */
export interface RecoveryTarget {
  /** The run's status; undefined when the store has no such run. */
  status(runId: string): Promise<RunMeta['status'] | null | undefined>;
  /** Write events (unsynced). */
  put(runId: string, events: RunEvent[]): Promise<void>;
  /** Make a run's written events durable. */
  flush(runId: string): Promise<void>;
}

/** Events put back per write. */
const BATCH = 1000;

export async function recoverJournals(storeDir: string, store: RecoveryTarget, warn: (message: string) => void): Promise<void> {
  for (const path of listJournals(storeDir)) {
    let recovered = 0;
    let damage: string | undefined;
    let foreign = false;
    let finished = false;
    try {
      // Streamed: a batch of events at a time, never the whole journal in memory.
      const records = journalRecords(path);
      let runId: string | undefined;
      let pending: RunEvent[] = [];
      for (;;) {
        const next = records.next();
        if (next.done === true) {
          damage = next.value;
          break;
        }
        if (runId === undefined) {
          runId = next.value.runId;
          const status = await store.status(runId);
          // A journal is created after its run's meta: a run that is not there means the journal is not ours.
          if (status === undefined) {
            damage = `its run ${runId} is not in the store`;
            foreign = true;
            break;
          }
          if (status === 'complete') {
            finished = true;
            break;
          }
        }
        if (pending.length >= BATCH) {
          await store.put(runId, pending);
          recovered += pending.length;
          pending = [];
        }
        for (const event of next.value.events) pending.push(event);
      }
      if (!finished && runId !== undefined && pending.length > 0) {
        await store.put(runId, pending);
        recovered += pending.length;
      }
      // Durable in the store's own files: only then may the journal go.
      if (!finished && !foreign && runId !== undefined) await store.flush(runId);
    } catch (error) {
      // The store's own failures (a full disk, a damaged store) say what they are.
      if (isAgentctlError(error)) throw error;
      throw new TapeFormatError(`cannot replay the recording journal ${path}: ${(error as Error).message}`, { file: storeDir });
    }
    if (damage === undefined || finished) {
      removeJournal(path);
      continue;
    }
    const kept = keepAside(path);
    const what = foreign ? 'nothing was replayed' : `${recovered} events before it were recovered`;
    warn(`the recording journal ${path} is damaged (${damage}): ${what}; ${kept === null ? 'it could not be renamed and is left as it is' : `the file is kept as ${kept}`}`);
  }
}

/** Rename a damaged journal to a free `*.damaged` name (never over an earlier one); the new path, or null. */
function keepAside(path: string): string | null {
  for (let n = 0; n < 100; n++) {
    const target = n === 0 ? `${path}.damaged` : `${path}.damaged.${n}`;
    if (existsSync(target)) continue;
    try {
      renameSync(path, target);
      return target;
    } catch {
      return null;
    }
  }
  return null;
}
