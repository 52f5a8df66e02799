import { describe, expect, it } from 'vitest';
import type { GuardrailEvent, RunEvent } from '../../core/events.js';
import { createRedactor } from '../../core/redact.js';
import { withAnalysis } from '../../replay/analysis-events.js';
import { loopingAnalysis, loopingEvents } from '../../replay/test-support/looping-run.js';
import { jsonReporter, textReporter } from './reporter.js';

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

describe('an analysed run', () => {
  const events = withAnalysis(loopingEvents(), loopingAnalysis());

  it('--json: the analysed decisions among the events, each with "analysis": true, the recorded events without it', () => {
    const out = lines(events);
    expect(out).toHaveLength(events.length);
    const analysed = out.filter((line) => line.type === 'guardrail');
    expect(analysed).toHaveLength(5);
    for (const line of analysed) expect(line).toHaveProperty('analysis', true);
    expect(analysed[4]).toMatchObject({ seq: 6, step: 2, gate: 'loop_guard', verdict: 'block', rule: 'identical_call_block', tool: 'lookup', callId: 'call_2_0' });
    for (const line of out.filter((l) => l.type !== 'guardrail')) expect(line).not.toHaveProperty('analysis');
    expect(lines([decision({})])[0]).not.toHaveProperty('analysis');
  });

  it('text: each analysed decision under the answer it is about, marked as analysis', () => {
    const out: string[] = [];
    const reporter = textReporter({}, (text) => out.push(text));
    for (const event of events) reporter.event(event);
    const text = out.join('').split('\n');
    const at = text.indexOf('[2]   analysis · ✗ block loop_guard/identical_call_block lookup: identical call 3 of 3: blocked');
    expect(at).toBeGreaterThan(0);
    expect(text[at - 1]).toMatch(/^\[2\] ← assistant \+ 1 tool call/);
    expect(text).toContain('[1]   analysis · ⊘ skip replay_control/duplicate_success lookup: prior call succeeded at step 0');
    const decisions = text.filter((line) => /(loop_guard|replay_control)\//.test(line));
    expect(decisions).toHaveLength(5);
    expect(decisions.every((line) => line.includes('analysis · '))).toBe(true);
  });
});
