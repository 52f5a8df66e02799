/**
 * Patches a replay can never use (`--patch N=…` with N past the tape's last step), refused before the
 * replay starts: otherwise the patch is dropped without a word and the replay says `reproduced`.
 *
 * The tape's model answers steps 0..L (L: its last step, from the header's totals — no reading of
 * the tape). A replay that changes nothing follows its tape and ends where it ended, so step N > L
 * is asked for only when something takes the run further than it went: a patch at L or before, a
 * what-if override, a replacement config, or tools run live. And every step between L and N must
 * then be answered — by a patch, or by the live model (`--fallback live`) — or the replay is
 * exhausted before N. A tape whose recording never finished is not checked: its header has no
 * totals, and a replay goes on past its end by itself (the run was cut, not over).
 */
import { InvalidOptionError } from '../core/errors.js';
import type { RunMeta } from '../core/run-meta.js';

export interface PatchReach {
  /** The patched steps. */
  patched: Iterable<number>;
  meta: Pick<RunMeta, 'status' | 'totals'>;
  /** Past the tape, model calls go to the live model (`--fallback live`). */
  liveFallback: boolean;
  /** Something other than a patch may change the run: `--set`, `--config`, `--tools live`. */
  changed: boolean;
}

/** Throws an InvalidOptionError naming the first patch the replay can never reach. */
export function checkPatchReach({ patched, meta, liveFallback, changed }: PatchReach): void {
  if (meta.status !== 'complete' || meta.totals === undefined) return;
  const last = meta.totals.steps - 1;
  const steps = [...new Set(patched)].sort((a, b) => a - b);
  const beyond = steps.filter((step) => step > last);
  const first = beyond[0];
  if (first === undefined) return;
  const tapeEnd = last < 0 ? 'the recorded run made no model call' : `the tape's last step is ${last}`;
  if (!changed && !steps.some((step) => step <= last)) {
    throw new InvalidOptionError(`--patch ${first}: ${tapeEnd}`, {
      hint: 'a replay that changes nothing ends where its tape does: a patch past it is used only when an earlier patch (or --set, --config, --tools live) takes the run further',
    });
  }
  if (liveFallback) return;
  // Past the tape only patches answer: each step from last + 1 on must have one, up to the last patch.
  let next = last + 1;
  for (const step of beyond) {
    if (step !== next) {
      throw new InvalidOptionError(`--patch ${step}: ${tapeEnd}, and nothing answers step ${next} before it`, {
        hint: `patch step ${next} too, or replay with --fallback live`,
      });
    }
    next++;
  }
}
