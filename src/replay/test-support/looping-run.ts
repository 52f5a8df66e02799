/**
 * A run recorded through the library, of an agent that loops: the model asks for `lookup
 * {"q":"port"}` at steps 0 to 3, then answers. With it, the decisions an analysis of it makes — the
 * second call a duplicate of the first, the third blocked as identical call 3 of 3 — made by hand,
 * as the renderers get them, so their tests need no analysis.
 */
import type { GuardrailEvent, RunEvent } from '../../core/events.js';
import type { RunMeta } from '../../core/run-meta.js';

const HASH = '0'.repeat(64);
const CALL = { name: 'lookup', arguments: '{"q":"port"}' };
const STEPS = 4;

const TOTALS = { steps: STEPS + 1, llmCalls: STEPS + 1, toolCalls: STEPS, inputTokens: 50, outputTokens: 10, cost: 0 };

export const LOOPING_META: RunMeta = {
  id: '01M8FNWM8WFRH6168JMNYEBRC2',
  kind: 'record',
  status: 'complete',
  source: 'library',
  createdAt: '2026-01-01T00:00:00.000Z',
  task: 'find the port',
  model: 'm',
  seed: 0,
  config: {},
  eventCount: 2 * (STEPS + 1) + 2,
  finalState: 'COMPLETED',
  totals: TOTALS,
  tapeVersion: 1,
};

/** The recorded events: run_start, a request and an answer per step, run_end. */
export function loopingEvents(): RunEvent[] {
  const events: RunEvent[] = [{ type: 'run_start', seq: 0, step: 0, t: 0, task: 'find the port', model: 'm', seed: 0, config: {} }];
  for (let step = 0; step <= STEPS; step++) {
    const seq = events.length;
    const calls = step < STEPS ? [{ id: `call_${step}_0`, type: 'function' as const, function: CALL }] : undefined;
    events.push({ type: 'llm_request', seq, step, t: seq, iteration: step, hash: HASH, prefix: 0, append: [], model: 'm', stream: false, tools: ['lookup'] });
    events.push({
      type: 'llm_response',
      seq: seq + 1,
      step,
      t: seq + 1,
      iteration: step,
      attempt: 0,
      durationMs: 1,
      response: {
        message: calls === undefined ? { role: 'assistant', content: 'port 8080' } : { role: 'assistant', content: null, tool_calls: calls },
        finishReason: calls === undefined ? 'stop' : 'tool_calls',
        usage: { inputTokens: 10, outputTokens: 2 },
      },
    });
  }
  const last = events.length;
  events.push({ type: 'run_end', seq: last, step: STEPS, t: last, state: 'COMPLETED', reason: 'finished by the caller', totals: TOTALS });
  return events;
}

/** The seq of the answer of `step` (the event its decisions are about). */
const answerOf = (step: number): number => 2 + 2 * step;

function decision(step: number, fields: Omit<GuardrailEvent, 'type' | 'seq' | 'step' | 't' | 'analysis' | 'callId' | 'tool'>): GuardrailEvent {
  return { type: 'guardrail', seq: answerOf(step), step, t: answerOf(step), callId: `call_${step}_0`, tool: 'lookup', ...fields, analysis: true };
}

const attempts = (n: number): GuardrailEvent['counters'] => ({ before: { attempts: n - 1 }, after: { attempts: n } });

/** What an analysis decides of the loop: allow, then a duplicate skipped, then the identical-call block. */
export function loopingAnalysis(): GuardrailEvent[] {
  return [
    decision(0, { gate: 'loop_guard', verdict: 'allow', rule: 'first_attempt', counters: attempts(1), threshold: 3, reason: 'identical call 1 of 3' }),
    decision(0, { gate: 'replay_control', verdict: 'allow', rule: 'first_call', counters: { before: {}, after: {} }, reason: 'first call with these arguments' }),
    decision(1, { gate: 'loop_guard', verdict: 'allow', rule: 'identical_call', counters: attempts(2), threshold: 3, reason: 'identical call 2 of 3' }),
    decision(1, { gate: 'replay_control', verdict: 'skip', rule: 'duplicate_success', counters: { before: {}, after: {} }, reason: 'prior call succeeded at step 0' }),
    decision(2, { gate: 'loop_guard', verdict: 'block', rule: 'identical_call_block', counters: attempts(3), threshold: 3, reason: 'identical call 3 of 3: blocked' }),
  ];
}
