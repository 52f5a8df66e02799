import { describe, expect, it } from 'vitest';
import type { StepSummary } from '../../replay/run-diff-summary.js';
import type { StepDiff } from '../../replay/run-diff.js';
import { DiffTextReport, summaryLine } from './diff-report.js';

const side = (over: Partial<StepSummary> = {}): StepSummary => ({
  events: 3, user: [], model: null, modelErrors: 0, tools: [], decisions: [], states: [], warnings: [], end: null, ...over,
});
const same = (step: number): StepDiff => ({ step, same: true, a: side(), b: side() });

describe('DiffTextReport', () => {
  it('collapses identical runs, details the first difference, marks later ones and one-sided steps', () => {
    const report = new DiffTextReport();
    const lines = [
      ...report.step(same(0)),
      ...report.step(same(1)),
      ...report.step({
        step: 2, same: false,
        a: side({ decisions: [{ gate: 'loop_guard', verdict: 'allow', rule: 'identical_call', tool: 'read_file', reason: 'identical call 2 of 3' }] }),
        b: side({ decisions: [{ gate: 'loop_guard', verdict: 'block', rule: 'identical_call_block', tool: 'read_file', reason: 'identical call 3 of 3' }] }),
        firstDifference: { index: 4, typeA: 'guardrail', typeB: 'guardrail', path: 'rule', a: 'identical_call', b: 'identical_call_block' },
      }),
      ...report.step(same(3)),
      ...report.step({
        step: 4, same: false, a: side({ states: [{ from: 'RUNNING', to: 'WAITING_FOR_TOOL' }, { from: 'WAITING_FOR_TOOL', to: 'RUNNING' }] }), b: side(),
        firstDifference: { index: 0, typeA: 'llm_request', typeB: 'llm_request', path: 'hash', a: 'x', b: 'y' },
      }),
      ...report.step({
        step: 5, same: false, a: null, b: side({ end: { state: 'COMPLETED', reason: 'done' } }),
        firstDifference: { index: 0, typeA: null, typeB: 'state', path: '(event)', a: undefined, b: {} },
      }),
      ...report.end({ identical: false, firstDifferenceStep: 2, stepsA: 5, stepsB: 6, differingSteps: 3, identicalSteps: 3 }),
    ];
    expect(lines).toEqual([
      'steps 0–1  =  identical',
      'step 2  ≠  first difference',
      '  A  guard ✓ allow loop_guard/identical_call read_file: identical call 2 of 3',
      '  B  guard ✗ block loop_guard/identical_call_block read_file: identical call 3 of 3',
      '  first differing: event 4 (guardrail) at rule',
      '    A: "identical_call"',
      '    B: "identical_call_block"',
      'step 3  =  identical',
      'step 4  ≠',
      '  A  state RUNNING → WAITING_FOR_TOOL → RUNNING',
      '  B  (3 events)',
      '  differs at event 0 (llm_request) at hash',
      'step 5  ≠',
      '  A  (no step 5)',
      '  B  end COMPLETED: done',
      'first difference at step 2: 3 of 6 steps differ (A has 5 steps, B 6)',
    ]);
  });

  it('says identical, with the step count', () => {
    expect(summaryLine({ identical: true, firstDifferenceStep: null, stepsA: 4, stepsB: 4, differingSteps: 0, identicalSteps: 4 }))
      .toBe('identical: 4 steps each, every event the same (timing ignored)');
  });
});
