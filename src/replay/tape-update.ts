/**
 * `agentctl ci --update`: rewrite a drifted golden tape from its replay, as a snapshot test updates
 * its snapshot after an intended change. The model's answers and the tool outcomes are the recorded
 * ones (the replay took them from the tape); everything the loop derives from them — requests,
 * decisions, states, totals — is the replay's. The header keeps the run's metadata (id, name,
 * creation time), takes the task, model, seed and config the tape was replayed with (run_start's),
 * and notes the update.
 */
import type { RunEvent, RunTotals } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import type { TerminalState } from '../core/states.js';
import { writeTapeFile } from '../tape/tape-file.js';

export interface UpdatedTape {
  meta: RunMeta;
  events: RunEvent[];
}

/** The tape a replay's events make: divergence reports dropped, events renumbered. */
export function updatedTape(meta: RunMeta, replayed: readonly RunEvent[], note: { at: string; note: string }): UpdatedTape {
  const events: RunEvent[] = [];
  for (const event of replayed) if (event.type !== 'divergence') events.push({ ...event, seq: events.length });
  const start = events.find((e) => e.type === 'run_start');
  const end = [...events].reverse().find((e) => e.type === 'run_end');
  const next: RunMeta = {
    ...meta,
    // What the header shares with run_start is run_start's: a tape file's header must agree with it.
    ...(start?.type === 'run_start' ? { task: start.task, model: start.model, seed: start.seed, config: start.config } : {}),
    eventCount: events.length,
    updates: [...(meta.updates ?? []), note],
  };
  if (end?.type === 'run_end') {
    next.status = 'complete';
    next.finalState = end.state as TerminalState;
    next.totals = { ...(end.totals as RunTotals) };
  }
  return { meta: next, events };
}

/** Write the updated tape over the old one, atomically (a temp file renamed into place). */
export async function writeUpdatedTape(path: string, tape: UpdatedTape): Promise<void> {
  await writeTapeFile(path, tape.meta, (async function* () {
    yield* tape.events;
  })());
}
