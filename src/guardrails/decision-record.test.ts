import { describe, expect, it } from 'vitest';
import { decisionRecord, describeDecision } from './decision-record.js';

describe('decision records', () => {
  it('leave absent fields out, so equal decisions serialise to identical JSON', () => {
    const a = decisionRecord({ gate: 'budget', verdict: 'continue', rule: 'within_budget', before: {}, after: {}, reason: 'ok', tool: undefined });
    const b = decisionRecord({ gate: 'budget', verdict: 'continue', rule: 'within_budget', before: {}, after: {}, reason: 'ok' });
    expect(Object.keys(a)).toEqual(['gate', 'verdict', 'rule', 'counters', 'reason']);
    expect(Object.values(a)).not.toContain(undefined);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('put the fields in one order whatever order they were given in', () => {
    const record = decisionRecord({
      reason: 'identical call 2 of 3', threshold: 3, key: 'k', tool: 'read_file', after: { attempts: 2 }, before: { attempts: 1 },
      rule: 'identical_call', verdict: 'allow', gate: 'loop_guard',
    });
    expect(JSON.stringify(record)).toBe(
      '{"gate":"loop_guard","verdict":"allow","rule":"identical_call","tool":"read_file","key":"k",' +
        '"counters":{"before":{"attempts":1},"after":{"attempts":2}},"threshold":3,"reason":"identical call 2 of 3"}',
    );
  });

  it('describe themselves in one line', () => {
    const record = decisionRecord({
      gate: 'loop_guard', verdict: 'allow', rule: 'identical_call', tool: 'read_file', before: {}, after: {}, reason: 'identical call 2 of 3',
    });
    expect(describeDecision(record)).toBe('loop_guard allow identical_call read_file: identical call 2 of 3');
    expect(describeDecision({ ...record, tool: undefined })).toBe('loop_guard allow identical_call: identical call 2 of 3');
  });
});
