import { describe, expect, it } from 'vitest';
import { analysisWhatIf } from './analysis-what-if.js';
import { events, type Step } from './test-support/hand-made-run.js';
import { LOOPING_META } from './test-support/looping-run.js';

/** A step of `n` calls of a tool that fails, each with other arguments. */
const failing = (step: number, n: number): Step => ({
  calls: Array.from({ length: n }, (_, i) => ({ id: `f${step}_${i}`, name: 'fetch_page', args: { page: step * 100 + i }, status: 'error' as const })),
});

describe('analysisWhatIf', () => {
  it('an override that brings a failure halt: changed, and the run would have ended in ERROR at its stop', () => {
    const run = events([failing(0, 1), failing(1, 1), failing(2, 1), {}]);
    const result = analysisWhatIf(LOOPING_META, run, { config: { failureWarn: 1, failureHalt: 2 } });
    expect(result.outcome).toBe('changed');
    expect(result.analysis.stop).toMatchObject({ step: 1, rule: 'consecutive_failures_halt' });
    expect(result.whatIf.state).toEqual({ before: 'COMPLETED', after: 'ERROR' });
    expect(result.whatIf.steps).toEqual({ before: 4, after: 2 });
  });

  it('an override that moves only the stop point, every decision the same, is a change', () => {
    // The 8th failure in a row halts in the last step with calls: with a halt nudge, the same decisions and no stop.
    const run = events([failing(0, 8), {}]);
    const result = analysisWhatIf(LOOPING_META, run, { config: { haltNudges: 1 } });
    expect(result.whatIf.decisionChanges).toBe(0);
    expect(result.analysis.stop).toBeNull();
    expect(result.outcome).toBe('changed');
  });
});
