import { describe, expect, it } from 'vitest';
import type { GuardrailEvent, LlmRequestEvent, RunEvent, ToolResultEvent } from '../core/events.js';
import type { ToolCall } from '../core/messages.js';
import { parseToolCall } from '../guardrails/call-key.js';
import { ToolOutcomes } from './analysis-outcomes.js';

const HASH = '0'.repeat(64);
const call = (id: string, name = 'lookup', args: unknown = { q: 'x' }): ToolCall => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });

/** A model answer asking for `calls`. */
const answer = (calls: ToolCall[]): RunEvent => ({
  type: 'llm_response', seq: 0, step: 0, t: 0, iteration: 0, attempt: 0, durationMs: 1,
  response: { message: { role: 'assistant', content: null, tool_calls: calls }, finishReason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 } },
});
/** A model request sending `tool` messages (id → content), to `endpoint`. */
const request = (tool: Record<string, string>, endpoint?: LlmRequestEvent['endpoint']): RunEvent => ({
  type: 'llm_request', seq: 0, step: 0, t: 0, iteration: 0, hash: HASH, prefix: 0, model: 'm', stream: false, tools: [],
  append: Object.entries(tool).map(([id, content]) => ({ role: 'tool' as const, tool_call_id: id, content })),
  ...(endpoint === undefined ? {} : { endpoint }),
});
/** A call the library's recordTool ran (its own id, not the model's), and how it ended. */
const recordTool = (id: string, c: ToolCall, status: ToolResultEvent['status'], output: string): RunEvent[] => [
  { type: 'tool_call', seq: 0, step: 0, t: 0, callId: id, tool: c.function.name, arguments: c.function.arguments, key: parseToolCall(c).key },
  { type: 'tool_result', seq: 0, step: 0, t: 0, callId: id, tool: c.function.name, status, output, durationMs: 0 },
];
const decision = (callId: string, fields: Pick<GuardrailEvent, 'gate' | 'verdict' | 'rule'>, analysis = false): RunEvent => ({
  type: 'guardrail', seq: 0, step: 0, t: 0, callId, tool: 'lookup', counters: { before: {}, after: {} }, reason: 'r', ...fields, ...(analysis ? { analysis: true as const } : {}),
});
/** The events in order, numbered. */
const numbered = (...events: RunEvent[]): RunEvent[] => events.map((e, seq) => ({ ...e, seq, t: seq }));

describe('ToolOutcomes', () => {
  it('a recorded failures decision says how a call ended: failure_reset a success, any other a failure; an analysis\'s is no record', () => {
    const [a, b, c] = [call('a'), call('b', 'lookup', { q: 'y' }), call('c', 'lookup', { q: 'z' })];
    const outcomes = new ToolOutcomes(numbered(
      answer([a, b, c]),
      decision('a', { gate: 'failures', verdict: 'continue', rule: 'failure_reset' }),
      decision('b', { gate: 'failures', verdict: 'continue', rule: 'consecutive_failures' }),
      decision('c', { gate: 'failures', verdict: 'continue', rule: 'failure_reset' }, true),
    ));
    expect(outcomes.of(a, 0)).toMatchObject({ kind: 'ran', status: 'ok', from: 'recorded' });
    expect(outcomes.of(b, 0)).toMatchObject({ kind: 'ran', status: 'error', from: 'recorded' });
    expect(outcomes.of(c, 0)).toEqual({ kind: 'unknown' });
  });

  it('a denied result is a denial only when a policy of the recording\'s own refused the call, not its guardrails', () => {
    const [a, b, c] = [call('a'), call('b', 'lookup', { q: 'y' }), call('c', 'lookup', { q: 'z' })];
    const denied = (id: string): RunEvent => ({ type: 'tool_result', seq: 0, step: 0, t: 0, callId: id, tool: 'lookup', status: 'denied', output: 'no', durationMs: 0 });
    const outcomes = new ToolOutcomes(numbered(
      answer([a, b, c]),
      decision('a', { gate: 'policy', verdict: 'block', rule: 'unknown_tool' }), denied('a'),
      decision('b', { gate: 'policy', verdict: 'block', rule: 'after_halt' }), denied('b'),
      decision('c', { gate: 'loop_guard', verdict: 'block', rule: 'identical_call_block' }), denied('c'),
    ));
    expect(outcomes.of(a, 0)).toEqual({ kind: 'denied' });
    expect(outcomes.of(b, 0)).toEqual({ kind: 'unknown' });
    expect(outcomes.of(c, 0)).toEqual({ kind: 'unknown' });
  });

  it('recordTool results: each run matched once, only between the answer and the next request; a denied one is a failure', () => {
    const [a, b] = [call('a'), call('b')];
    // Two identical calls in one answer, each run by recordTool: the first run is the first call's.
    const twice = new ToolOutcomes(numbered(answer([a, b]), ...recordTool('r1', a, 'ok', 'first'), ...recordTool('r2', b, 'error', 'second'), request({})));
    expect(twice.of(a, 0)).toMatchObject({ kind: 'ran', status: 'ok', output: 'first' });
    expect(twice.of(b, 0)).toMatchObject({ kind: 'ran', status: 'error', output: 'second' });
    // A run before the answer asked for the call is not its outcome.
    const early = new ToolOutcomes(numbered(...recordTool('r1', a, 'ok', 'early'), answer([a]), request({})));
    expect(early.of(a, 2)).toEqual({ kind: 'unknown' });
    const refused = new ToolOutcomes(numbered(answer([a]), ...recordTool('r1', a, 'denied', 'not allowed'), request({})));
    expect(refused.of(a, 0)).toMatchObject({ kind: 'ran', status: 'error', output: 'not allowed' });
  });

  it('a tool message: a success, except one the Anthropic fold marked `[error] ` at its start; the first sent after the answer', () => {
    const a = call('a');
    const of = (...events: RunEvent[]) => new ToolOutcomes(numbered(answer([a]), ...events)).of(a, 0);
    expect(of(request({ a: '[error] no such city' }, 'messages'))).toMatchObject({ kind: 'ran', status: 'error', from: 'messages' });
    expect(of(request({ a: 'ok' }, 'messages'))).toMatchObject({ kind: 'ran', status: 'ok', from: 'messages' });
    // Only the Messages API has the mark; a tool's own text is only its text.
    expect(of(request({ a: '[error] no such city' }))).toMatchObject({ status: 'ok' });
    expect(of(request({ a: '[error] no such city' }, 'responses'))).toMatchObject({ status: 'ok' });
    expect(of(request({ a: 'found: [error] in the log' }, 'messages'))).toMatchObject({ status: 'ok' });
    expect(of(request({ a: '[error]x' }, 'messages'))).toMatchObject({ status: 'ok' });
    // A model that reuses its call ids: the message after this answer, not one sent before it.
    const reused = new ToolOutcomes(numbered(answer([a]), request({ a: 'first' }, 'messages'), answer([a]), request({ a: '[error] second' }, 'messages')));
    expect(reused.of(a, 2)).toMatchObject({ kind: 'ran', status: 'error', output: '[error] second' });
  });

  it('a model that gives every step\'s call the same id: each call gets the outcome recorded after its own answer', () => {
    const a = call('call_0');
    const result = (status: ToolResultEvent['status'], output: string): RunEvent => ({ type: 'tool_result', seq: 0, step: 0, t: 0, callId: 'call_0', tool: 'lookup', status, output, durationMs: 0 });
    const results = new ToolOutcomes(numbered(answer([a]), result('ok', 'first'), answer([a]), result('error', 'second')));
    expect(results.of(a, 0)).toMatchObject({ kind: 'ran', status: 'ok', output: 'first' });
    expect(results.of(a, 2)).toMatchObject({ kind: 'ran', status: 'error', output: 'second' });
    // Refused by a policy at the second step only: the first call ran.
    const denials = new ToolOutcomes(numbered(
      answer([a]), result('ok', 'ran'),
      answer([a]), decision('call_0', { gate: 'policy', verdict: 'block', rule: 'unknown_tool' }), result('denied', 'no'),
      answer([a]), result('denied', 'no'),
    ));
    expect(denials.of(a, 0)).toMatchObject({ kind: 'ran', status: 'ok' });
    expect(denials.of(a, 2)).toEqual({ kind: 'denied' });
    expect(denials.of(a, 5)).toEqual({ kind: 'unknown' });
    // Refused by its guardrails at the first step, by a policy at the second: only the second is a denial.
    const later = new ToolOutcomes(numbered(
      answer([a]), decision('call_0', { gate: 'loop_guard', verdict: 'block', rule: 'identical_call_block' }), result('denied', 'no'),
      answer([a]), decision('call_0', { gate: 'policy', verdict: 'block', rule: 'unknown_tool' }), result('denied', 'no'),
    ));
    expect(later.of(a, 0)).toEqual({ kind: 'unknown' });
    expect(later.of(a, 3)).toEqual({ kind: 'denied' });
    // Failures decisions: the step's own.
    const failures = new ToolOutcomes(numbered(
      answer([a]), decision('call_0', { gate: 'failures', verdict: 'continue', rule: 'consecutive_failures' }),
      answer([a]), decision('call_0', { gate: 'failures', verdict: 'continue', rule: 'failure_reset' }),
    ));
    expect(failures.of(a, 0)).toMatchObject({ kind: 'ran', status: 'error' });
    expect(failures.of(a, 2)).toMatchObject({ kind: 'ran', status: 'ok' });
  });
});
