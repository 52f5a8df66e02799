import { describe, expect, it } from 'vitest';
import type { TapeResult, WhatIf } from './tape-check.js';
import { whatIfSentence, whatIfTotals } from './what-if-summary.js';

function result(outcome: TapeResult['outcome'], whatIf?: Partial<WhatIf>): TapeResult {
  const base: WhatIf = {
    firstChange: null, decisionChanges: 0,
    state: { before: 'ERROR', after: 'ERROR' }, steps: { before: 10, after: 10 }, tokens: { before: 1000, after: 1000 }, cost: { before: 0.1, after: 0.1 },
  };
  return { tape: { path: '/t', relativePath: 't' }, name: 't', outcome, message: '', durationMs: 0, whatIf: { ...base, ...whatIf } };
}

describe('what-if totals', () => {
  it('adds up runs that stop earlier, state changes, undecided and unchanged tapes', () => {
    const results = [
      result('changed', { decisionChanges: 2, steps: { before: 20, after: 5 }, tokens: { before: 5000, after: 1200 }, cost: { before: 0.1, after: 0.02 } }),
      result('changed', { decisionChanges: 1, steps: { before: 30, after: 4 }, cost: { before: 0.05, after: 0.01 } }),
      result('changed', { decisionChanges: 1, state: { before: 'COMPLETED', after: 'ERROR' }, steps: { before: 6, after: 6 } }),
      result('exhausted'),
      result('pass'),
      result('pass'),
    ];
    const totals = whatIfTotals(results);
    expect(totals).toMatchObject({ tapes: 6, changed: 3, unchanged: 2, undecided: 1, stopEarlier: 2, runLonger: 0 });
    expect(totals).toMatchObject({ stepsSaved: 41, tokensSaved: 3800, decisionChanges: 4 });
    expect(totals.costSaved).toBeCloseTo(0.12, 10);
    expect(totals.stateChanges).toEqual([{ before: 'COMPLETED', after: 'ERROR', count: 1 }]);
    expect(whatIfSentence(totals)).toBe(
      '2 runs now stop earlier, saving 41 steps and $0.1200; 1 run that completed now ends in ERROR; 1 run needs more than the tape has to tell; 2 unchanged',
    );
  });

  it('says when nothing changes, and when runs only decide differently', () => {
    expect(whatIfSentence(whatIfTotals([result('pass')]))).toBe('1 unchanged');
    expect(whatIfSentence(whatIfTotals([result('changed', { decisionChanges: 1 }), result('pass')]))).toBe('1 run now decides differently; 1 unchanged');
    expect(whatIfSentence(whatIfTotals([result('changed', { steps: { before: 3, after: 5 }, state: { before: 'ERROR', after: 'COMPLETED' } })]))).toBe(
      '1 run now runs longer; 1 run that ended in ERROR now ends in COMPLETED; 0 unchanged',
    );
  });
});
