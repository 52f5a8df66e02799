/**
 * Context trimming in the loop (docs/loop.md): with a small window, what the server receives really
 * shrinks; the system message and the task stay; a tool message never arrives without the
 * assistant message that called it.
 */
import { describe, expect, it } from 'vitest';
import { estimateAll } from '../src/agent/context.js';
import type { ChatMessage } from '../src/core/messages.js';
import { ofType, orphanToolMessages, useLoopHarness, type WireRequest } from './support/loop-harness.js';

const harness = useLoopHarness();
const WINDOW = 250;

/** The tool_call ids of a request's assistant messages, in order. */
function callIds(body: WireRequest | undefined): string[] {
  return (body?.messages ?? []).flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
}

function expectWellFormed(bodies: WireRequest[]): void {
  for (const body of bodies) {
    expect(body.messages[0]).toEqual({ role: 'system', content: 'You are a test agent.' });
    expect(body.messages[1]).toEqual({ role: 'user', content: 'Fix the failing test in this project.' });
    expect(orphanToolMessages(body.messages)).toEqual([]);
  }
}

describe('context trimming in the loop', () => {
  it('without a window nothing is trimmed (the baseline the other cases shrink)', async () => {
    const run = await harness.run('long-reads');
    expect(run.bodies.map((b) => b.messages.length)).toEqual([2, 4, 7, 9, 11, 13]);
    expect(estimateAll(run.bodies[5]?.messages as ChatMessage[])).toBeGreaterThan(WINDOW);
    expect(ofType(run.events, 'warning')).toEqual([]);
  });

  it('sliding_window drops the oldest tool steps until the request fits, keeping system and task', async () => {
    const run = await harness.run('long-reads', { config: { context: { strategy: 'sliding_window', window: WINDOW } } });
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    const { bodies } = run;
    expectWellFormed(bodies);

    // Every request the server saw fits the window.
    for (const body of bodies) expect(estimateAll(body.messages as ChatMessage[])).toBeLessThanOrEqual(WINDOW);
    // The 3rd request no longer carries step 0 (the long NOTES.md read) — its call and its result went together.
    expect(callIds(bodies[2])).toEqual(['call_1_0', 'call_1_1']);
    expect(bodies[2]?.messages.some((m) => m.tool_call_id === 'call_0_0')).toBe(false);
    expect(bodies[2]?.messages.some((m) => (m.content ?? '').includes('These notes are long on purpose'))).toBe(false);
    // The last request: only the newest step is left after the pinned two.
    expect(callIds(bodies[5])).toEqual(['call_4_0']);
    expect(bodies[5]?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);

    expect(ofType(run.events, 'warning').map((w) => [w.step, w.message])).toEqual([
      [2, 'context: sliding_window removed 2 message(s) to fit a window of 250 tokens'],
      [5, 'context: sliding_window removed 7 message(s) to fit a window of 250 tokens'],
    ]);
    // The tape's request deltas follow the trimmed conversation: only the pinned prefix is shared.
    const requests = ofType(run.events, 'llm_request');
    expect(requests[2]?.prefix).toBe(2);
    expect(requests[5]?.prefix).toBe(2);
    run.server.assertConsumed();
  });

  it('compact keeps the first messages and the last keepLast, with one marker saying how many were removed', async () => {
    const run = await harness.run('long-reads', { config: { context: { strategy: 'compact', window: WINDOW, keepLast: 3 } } });
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    const { bodies } = run;
    expectWellFormed(bodies);

    // First compaction (3rd request): step 0's call and result are replaced by the marker.
    expect(bodies[2]?.messages[2]).toEqual({ role: 'user', content: '[2 earlier messages were removed to fit the context window]' });
    expect(callIds(bodies[2])).toEqual(['call_1_0', 'call_1_1']);
    // Second compaction (6th request): the marker counts every message removed so far, and there is only one.
    const last = bodies[5]?.messages ?? [];
    expect(last[2]).toEqual({ role: 'user', content: '[7 earlier messages were removed to fit the context window]' });
    expect(last.filter((m) => (m.content ?? '').includes('earlier message'))).toHaveLength(1);
    // keepLast 3 would start the tail at a tool result; the tail is widened to its assistant call instead.
    expect(callIds(bodies[5])).toEqual(['call_3_0', 'call_4_0']);
    expect(last.map((m) => m.role)).toEqual(['system', 'user', 'user', 'assistant', 'tool', 'assistant', 'tool']);

    expect(ofType(run.events, 'warning').map((w) => w.message)).toEqual([
      'context: compact removed 2 message(s) to fit a window of 250 tokens',
      'context: compact removed 5 message(s) to fit a window of 250 tokens',
    ]);
    // On the tape the marker keeps its internal tag.
    const marker = ofType(run.events, 'llm_request')[2]?.append.find((m) => m.role === 'user');
    expect(marker).toEqual({ role: 'user', content: '[2 earlier messages were removed to fit the context window]', internal: { reason: 'compaction' } });
    run.server.assertConsumed();
  });
});
