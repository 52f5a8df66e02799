import { describe, expect, it } from 'vitest';
import type { GuardrailEvent, RunEvent } from '../core/events.js';
import { decisionChange, decisionMatchKey, decisionSummary, describeDecision, indexDecisions, thresholdCounter } from './decision-change.js';

/** The loop_guard decision on the demo tape's third read of the same file. */
function loopGuard(overrides: Partial<GuardrailEvent> = {}): GuardrailEvent {
  return {
    type: 'guardrail', seq: 0, step: 2, t: 0, callId: 'call_2_0', gate: 'loop_guard', verdict: 'allow', rule: 'identical_call',
    tool: 'read_file', key: 'k1', counters: { before: { attempts: 1 }, after: { attempts: 2 } }, threshold: 3, reason: 'identical call 2 of 3',
    ...overrides,
  };
}

const blocked = (): GuardrailEvent =>
  loopGuard({ verdict: 'block', rule: 'identical_call_block', threshold: 2, reason: 'identical call 2 of 2: blocked' });

describe('decisionSummary / describeDecision', () => {
  it('keeps verdict, rule, the counters after and the threshold', () => {
    expect(decisionSummary(loopGuard())).toEqual({ verdict: 'allow', rule: 'identical_call', counters: { attempts: 2 }, threshold: 3 });
    const noThreshold = decisionSummary(loopGuard({ gate: 'replay_control', threshold: undefined }));
    expect('threshold' in noThreshold).toBe(false);
  });

  it('reads "verdict (counter of threshold)" when the decision has both, else just the verdict', () => {
    expect(describeDecision(decisionSummary(loopGuard()))).toBe('allow (2 of 3)');
    expect(describeDecision({ verdict: 'skip', rule: 'duplicate_success', counters: { history: 2 } })).toBe('skip');
    expect(describeDecision({ verdict: 'continue', rule: 'within_budget', counters: {}, threshold: 5 })).toBe('continue');
    // Two counters, neither one a threshold is known to apply to (budget: tokens and cost).
    expect(describeDecision({ verdict: 'warn', rule: 'near_token_budget', counters: { tokens: 900, cost: 0 }, threshold: 100 })).toBe('warn');
  });

  it('picks attempts, failures or repeated among several counters', () => {
    expect(thresholdCounter({ history: 4, attempts: 2 })).toBe(2);
    expect(thresholdCounter({ other: 1, failures: 3 })).toBe(3);
    expect(thresholdCounter({ recoveries: 1 })).toBe(1);
    expect(thresholdCounter({ a: 1, b: 2 })).toBeUndefined();
  });
});

describe('decisionMatchKey', () => {
  it('is the same for the same gate, tool, call and key, whatever the outcome', () => {
    expect(decisionMatchKey(blocked())).toBe(decisionMatchKey(loopGuard()));
  });

  it('tells apart another gate, tool, call or key, and an absent field from a present one', () => {
    const key = decisionMatchKey(loopGuard());
    expect(decisionMatchKey(loopGuard({ gate: 'replay_control' }))).not.toBe(key);
    expect(decisionMatchKey(loopGuard({ tool: 'list_dir' }))).not.toBe(key);
    expect(decisionMatchKey(loopGuard({ callId: 'call_2_1' }))).not.toBe(key);
    expect(decisionMatchKey(loopGuard({ key: 'k2' }))).not.toBe(key);
    expect(decisionMatchKey(loopGuard({ callId: undefined }))).not.toBe(key);
    expect(decisionMatchKey(loopGuard({ key: undefined }))).not.toBe(key);
  });
});

describe('decisionChange', () => {
  it('says which decision changed and how, with a summary of each side', () => {
    expect(decisionChange(loopGuard(), blocked())).toEqual({
      message: 'read_file loop_guard decision changed: recorded allow (2 of 3) → now block (2 of 2)',
      detail: {
        path: 'verdict',
        recorded: { verdict: 'allow', rule: 'identical_call', counters: { attempts: 2 }, threshold: 3 },
        replayed: { verdict: 'block', rule: 'identical_call_block', counters: { attempts: 2 }, threshold: 2 },
      },
    });
  });

  it('leaves out the tool for a gate that judges the whole step', () => {
    const repetition = (verdict: 'continue' | 'stuck', threshold: number): GuardrailEvent => loopGuard({
      gate: 'repetition', callId: undefined, verdict, rule: verdict === 'stuck' ? 'repetition' : 'repeated_tool_step',
      counters: { before: { repeated: 1 }, after: { repeated: 2 } }, threshold,
    });
    expect(decisionChange(repetition('continue', 3), repetition('stuck', 2))?.message).toBe(
      'repetition decision changed: recorded continue (2 of 3) → now stuck (2 of 2)',
    );
  });

  it('counts a changed rule with the same verdict as a change', () => {
    const change = decisionChange(loopGuard({ rule: 'first_attempt' }), loopGuard());
    expect(change?.message).toBe('read_file loop_guard decision changed: recorded allow (2 of 3) → now allow (2 of 3)');
  });

  it('is null for the same outcome under another threshold, reason or counters', () => {
    expect(decisionChange(loopGuard(), loopGuard({ threshold: 4, reason: 'identical call 2 of 4', counters: { before: {}, after: { attempts: 9 } } }))).toBeNull();
  });

  it('is null for two different decisions, however their verdicts differ', () => {
    expect(decisionChange(loopGuard(), { ...blocked(), callId: 'call_9_0' })).toBeNull();
  });
});

describe('indexDecisions', () => {
  it('groups a step\'s guardrail events by match key, in order, and ignores other events', () => {
    const warning: RunEvent = { type: 'warning', seq: 0, step: 2, t: 0, message: 'w' };
    const first = loopGuard();
    const second = blocked();
    const other = loopGuard({ tool: 'list_dir' });
    const index = indexDecisions([first, warning, other, second]);
    expect(index.get(decisionMatchKey(first))).toEqual([first, second]);
    expect(index.get(decisionMatchKey(other))).toEqual([other]);
    expect(index.size).toBe(2);
  });
});
