/**
 * Whether a library replay reproduced its tape, as one error a test fails with: the first request the
 * tape had no match for (named by its first differing field), else the first call past the tape's
 * end, else the recorded calls nothing asked for. Divergences a patch explains are not counted.
 */
import { ReplayDivergedError } from '../core/errors.js';
import { count } from '../core/plural.js';
import { printableLine } from '../core/terminal-text.js';
import { describeDivergence, type ReplayState } from '../replay/replay-engine.js';

/** The error for a replay of `tape` that did not reproduce it, or undefined when it did. */
export function notReproduced(state: ReplayState, tape: string, options: { cause?: unknown } = {}): ReplayDivergedError | undefined {
  const shown = printableLine(tape);
  const hint = `if the change is intended, re-record it: AGENTCTL_MODE=record${tape.endsWith('.jsonl') || tape.endsWith('.gz') ? `, or delete ${shown}` : ''}`;
  const base = { tape, hint, ...(options.cause === undefined ? {} : { cause: options.cause }) };
  const first = state.divergences.find((d) => !d.expected);
  if (first !== undefined) {
    const refused = !state.calls.some((c) => c.iteration === first.iteration && c.source !== 'live');
    return new ReplayDivergedError(
      `the replay of ${shown} diverged: ${printableLine(describeDivergence(first))}${refused ? ' (the request was refused)' : ''}`,
      { ...base, field: first.path },
    );
  }
  if (state.exhaustedAt !== null) {
    return new ReplayDivergedError(`the replay of ${shown} diverged: request ${state.exhaustedAt} is past the end of the tape (it has ${count(recordedCalls(state), 'call')})`, base);
  }
  if (state.remaining > 0) {
    return new ReplayDivergedError(
      `the replay of ${shown} diverged: ${count(state.remaining, 'recorded call')} never asked for (the agent made ${state.calls.length} of ${recordedCalls(state)})`,
      base,
    );
  }
  return undefined;
}

/** Calls on the tape: those served from it, and those left. */
function recordedCalls(state: ReplayState): number {
  return state.calls.filter((c) => c.source !== 'live').length + state.remaining;
}
