import { describe, expect, it } from 'vitest';
import type { ToolHost } from '../agent/tool-host.js';
import type { RunEvent } from '../core/events.js';
import type { ToolCall } from '../core/messages.js';
import { callKey } from '../guardrails/index.js';
import type { ToolSpec } from '../core/tools.js';
import { replayToolHost } from './recorded-tools.js';
import type { LoopProgress } from './loop-progress.js';

const call: ToolCall = { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } };
const spec: ToolSpec = { name: 'read_file', description: '', parameters: {}, idempotent: true, mutating: false, timeoutMs: 1000 };
const base = { seq: 0, t: 0, step: 0 };
const step: RunEvent[] = [
  { ...base, type: 'tool_call', callId: 'call_1', tool: 'read_file', arguments: '{"path":"a.ts"}', key: callKey('read_file', { path: 'a.ts' }) },
  { ...base, type: 'tool_result', callId: 'call_1', tool: 'read_file', status: 'ok', output: 'recorded contents', durationMs: 3 },
];

function host(recorded: (step: number) => readonly RunEvent[], ran: string[]): ToolHost {
  const live: ToolHost = {
    lookup: () => spec,
    definitions: () => [],
    execute: async () => {
      ran.push('live');
      return { status: 'ok', output: 'live contents', durationMs: 1 };
    },
    policies: [],
  };
  const state: LoopProgress = { step: 0, exhaustedAt: null, liveCalls: 0 };
  return replayToolHost({ live, recorded, state, mode: 'recorded', recordedOnly: new Set(), allowSideEffects: false });
}

describe('the recorded tools of a replay', () => {
  it('give the recorded outcome at once; a call the tape has no outcome for (and safe to run) runs live', async () => {
    const ran: string[] = [];
    const signal = new AbortController().signal;
    const atOnce = host(() => step, ran).execute(call, { path: 'a.ts' }, spec, signal);
    expect(atOnce).toEqual({ status: 'ok', output: 'recorded contents', durationMs: 3 });
    expect(ran).toEqual([]);
    const other: ToolCall = { ...call, id: 'call_2', function: { ...call.function, arguments: '{"path":"b.ts"}' } };
    const live = host(() => step, ran).execute(other, { path: 'b.ts' }, spec, signal);
    expect(await live).toMatchObject({ output: 'live contents' });
    expect(ran).toEqual(['live']);
  });
});
