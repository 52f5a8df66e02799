import { describe, expect, it } from 'vitest';
import type { RunTotals } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { checkPatchReach, type PatchReach } from './patch-reach.js';

const totals = (steps: number): RunTotals => ({ steps, llmCalls: steps, toolCalls: 0, inputTokens: 0, outputTokens: 0, cost: 0 });
const complete = (steps: number): Pick<RunMeta, 'status' | 'totals'> => ({ status: 'complete', totals: totals(steps) });

/** The UsageError's message and hint, or null when the patches pass. */
function refusal(reach: Partial<PatchReach> & Pick<PatchReach, 'patched'>): { message: string; hint: string | undefined } | null {
  try {
    checkPatchReach({ meta: complete(5), liveFallback: false, changed: false, ...reach });
    return null;
  } catch (error) {
    return { message: (error as Error).message, hint: (error as { hint?: string }).hint };
  }
}

describe('patches a replay can never reach', () => {
  it('a patch at or before the last step always passes', () => {
    expect(refusal({ patched: [0, 4] })).toBeNull();
  });

  it('a patch past the last step of a replay that changes nothing is refused, the lowest named first', () => {
    expect(refusal({ patched: [999, 5] })?.message).toBe("--patch 5: the tape's last step is 4");
    expect(refusal({ patched: [0], meta: complete(0) })?.message).toBe('--patch 0: the recorded run made no model call');
  });

  it('a change (--set, --config, --tools live) or an earlier patch may take the run there', () => {
    expect(refusal({ patched: [5], changed: true })).toBeNull();
    expect(refusal({ patched: [3, 5, 6] })).toBeNull();
  });

  it('past the last step, every step up to the patch must be answered: by patches, or the live model', () => {
    expect(refusal({ patched: [4, 6] })).toEqual({
      message: "--patch 6: the tape's last step is 4, and nothing answers step 5 before it",
      hint: 'patch step 5 too, or replay with --fallback live',
    });
    expect(refusal({ patched: [4, 5, 6, 8], changed: true })?.message).toMatch(/^--patch 8: .* nothing answers step 7 before it$/);
    expect(refusal({ patched: [4, 6], liveFallback: true })).toBeNull();
  });

  it('a tape whose recording never finished is not checked (no totals in its header; the replay goes on past its end)', () => {
    expect(refusal({ patched: [999], meta: { status: 'incomplete' } })).toBeNull();
    expect(refusal({ patched: [999], meta: { status: 'incomplete', totals: totals(1) } })).toBeNull();
  });
});
