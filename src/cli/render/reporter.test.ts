import { describe, expect, it } from 'vitest';
import type { GuardrailEvent, RunEvent } from '../../core/events.js';
import { createRedactor } from '../../core/redact.js';
import { jsonReporter } from './reporter.js';

const decision = (extra: Partial<GuardrailEvent>): GuardrailEvent => ({
  type: 'guardrail', seq: 7, step: 2, t: 10, gate: 'repetition', verdict: 'allow', rule: 'R-REP-OK', reason: 'no repeated step',
  counters: { before: { repeats: 0 }, after: { repeats: 0 } }, ...extra,
});

function lines(events: RunEvent[], redact = createRedactor()): Record<string, unknown>[] {
  const out: string[] = [];
  const reporter = jsonReporter({ redact }, (text) => out.push(text));
  for (const event of events) reporter.event(event);
  return out.join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('jsonReporter', () => {
  it('gives every guardrail line a `tool`: null for a step-level gate, the tool otherwise', () => {
    const [stepLevel, perCall] = lines([decision({}), decision({ gate: 'loop_guard', tool: 'read_file', callId: 'call_1', key: 'k' })]);
    expect(stepLevel).toHaveProperty('tool', null);
    expect(perCall).toHaveProperty('tool', 'read_file');
    expect(perCall).toEqual({ ...decision({ gate: 'loop_guard', tool: 'read_file', callId: 'call_1', key: 'k' }) });
  });

  it('redacts what it prints', () => {
    const [line] = lines([decision({ reason: 'key sk-abcdefghijklmnop1234 seen' })]);
    expect(JSON.stringify(line)).not.toContain('sk-abcdefghijklmnop1234');
    expect(line?.reason).toContain('[REDACTED]');
  });
});
