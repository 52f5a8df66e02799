/**
 * Runs made by hand for the analysis's tests: a library recording of answers, one per step, each
 * followed by its calls' recorded outcomes and the recording's own decisions about them.
 */
import type { GuardrailEvent, RunEvent } from '../../core/events.js';

const HASH = '0'.repeat(64);

export interface Call {
  id: string;
  name?: string;
  args?: unknown;
  /** How it ended, as a tool_result with the model's id (absent: no trace of it). */
  status?: 'ok' | 'error' | 'denied';
  /** A guardrail decision the recording made about it, right after the answer. */
  recorded?: Pick<GuardrailEvent, 'gate' | 'verdict' | 'rule'>;
}
export interface Step {
  calls?: Call[];
  finish?: 'stop' | 'length';
  model?: string;
}

/** A run of answers, one per step, each with its calls' outcomes after it; numbered in order. */
export function events(steps: readonly Step[], config: Record<string, unknown> = {}): RunEvent[] {
  const out: RunEvent[] = [{ type: 'run_start', seq: 0, step: 0, t: 0, task: 't', model: 'm', seed: 0, config }];
  steps.forEach((s, step) => {
    const calls = (s.calls ?? []).map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name ?? 'lookup', arguments: JSON.stringify(c.args ?? { q: 'x' }) } }));
    out.push({ type: 'llm_request', seq: 0, step, t: 0, iteration: step, hash: HASH, prefix: 0, append: [], model: s.model ?? 'm', stream: false, tools: [] });
    out.push({
      type: 'llm_response', seq: 0, step, t: 0, iteration: step, attempt: 0, durationMs: 1,
      response: {
        message: calls.length === 0 ? { role: 'assistant', content: 'done' } : { role: 'assistant', content: null, tool_calls: calls },
        finishReason: s.finish ?? (calls.length === 0 ? 'stop' : 'tool_calls'),
        usage: { inputTokens: 10, outputTokens: 2 },
      },
    });
    for (const c of s.calls ?? []) {
      const tool = c.name ?? 'lookup';
      if (c.recorded !== undefined) {
        out.push({ type: 'guardrail', seq: 0, step, t: 0, callId: c.id, tool, counters: { before: {}, after: {} }, reason: 'recorded', ...c.recorded });
      }
      if (c.status !== undefined) out.push({ type: 'tool_result', seq: 0, step, t: 0, callId: c.id, tool, status: c.status, output: c.status, durationMs: 0 });
    }
  });
  return out.map((e, seq) => ({ ...e, seq, t: seq }));
}

/** `n` steps each asking for the same lookup, which succeeds. */
export const same = (n: number, from = 0): Step[] => Array.from({ length: n }, (_, i) => ({ calls: [{ id: `c${from + i}`, status: 'ok' as const }] }));
