import { describe, expect, it } from 'vitest';
import type { StepSummary } from '../../replay/run-diff-summary.js';
import type { StepDiff } from '../../replay/run-diff.js';
import { UNSEEN_DIFFERENCE } from '../../replay/request-difference.js';
import { DiffTextReport, summaryLine } from './diff-report.js';

const side = (over: Partial<StepSummary> = {}): StepSummary => ({
  events: 3, user: [], model: null, modelErrors: 0, tools: [], mcp: [], decisions: [], states: [], warnings: [], end: null, ...over,
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
        firstDifference: { index: 0, typeA: 'llm_request', typeB: 'llm_request', path: 'messages[3]', a: 'x', b: 'y' },
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
      '  differs at event 0 (llm_request) at messages[3]',
      'step 5  ≠',
      '  A  (no step 5)',
      '  B  end COMPLETED: done',
      'first difference at step 2: 3 of 6 steps differ (A has 5 steps, B 6)',
    ]);
  });

  it('says what an id label is when the first difference shows one, and what differing request hashes stand for', () => {
    const lines = new DiffTextReport().step({
      step: 0, same: false, a: side(), b: side(),
      firstDifference: { index: 6, typeA: 'tool_result', typeB: 'tool_result', path: 'callId', a: 'call#0.0', b: 'call#0.1' },
    });
    expect(lines.slice(3)).toEqual([
      '  first differing: event 6 (tool_result) at callId',
      '    (ids are compared by position: call#S.N stands for the N-th new tool-call id of step S on that side, id#S.N for other ids)',
      '    A: "call#0.0"',
      '    B: "call#0.1"',
    ]);
    const hashOnly = (path: string): string[] => new DiffTextReport().step({
      step: 2, same: false, a: side(), b: side(),
      firstDifference: { index: 0, typeA: 'llm_request', typeB: 'llm_request', path, a: 'x', b: 'y' },
    });
    expect(hashOnly(UNSEEN_DIFFERENCE).slice(3, 5)).toEqual([
      '  first differing: event 0 (llm_request) at tools (definitions) or parameters',
      "    (only the requests' hashes differ: they cover what the tape does not show, such as the tools' definitions; the hashes are shown)",
    ]);
    expect(hashOnly('messages[4]').slice(3, 5)).toEqual([
      '  first differing: event 0 (llm_request) at messages[4]',
      "    (the conversations differ from this message on, which an earlier step sent; the requests' hashes are shown)",
    ]);
  });

  it('says identical, with the step count', () => {
    expect(summaryLine({ identical: true, firstDifferenceStep: null, stepsA: 4, stepsB: 4, differingSteps: 0, identicalSteps: 4 }))
      .toBe('identical: 4 steps each, every event the same (timing ignored)');
  });

  it('counts with the right plural', () => {
    expect(summaryLine({ identical: true, firstDifferenceStep: null, stepsA: 1, stepsB: 1, differingSteps: 0, identicalSteps: 1 }))
      .toBe('identical: 1 step each, every event the same (timing ignored)');
    expect(summaryLine({ identical: false, firstDifferenceStep: 1, stepsA: 1, stepsB: 2, differingSteps: 1, identicalSteps: 1 }))
      .toBe('first difference at step 1: 1 of 2 steps differs (A has 1 step, B 2)');
  });
});
