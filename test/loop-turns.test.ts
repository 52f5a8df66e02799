/**
 * Interactive sessions (docs/loop.md WAITING_FOR_INPUT): user messages from `deps.input` start new
 * turns; each turn gets a fresh LoopGuard and ReplayControl (docs/guardrails.md §3, §4), while the session-level
 * counters go on.
 */
import { describe, expect, it } from 'vitest';
import type { UserInput } from '../src/agent/loop.js';
import { decisions, ofType, runEnd, statePath, useLoopHarness } from './support/loop-harness.js';

const harness = useLoopHarness();

/** Gives `messages` one by one, then null (the session ends); remembers how often it was asked. */
function scriptedInput(messages: string[]): UserInput & { asked: number } {
  const queue = [...messages];
  return {
    asked: 0,
    next(): Promise<string | null> {
      this.asked++;
      return Promise.resolve(queue.shift() ?? null);
    },
  };
}

describe('interactive turns', () => {
  it('two user messages then null: WAITING_FOR_INPUT between turns, then COMPLETED', async () => {
    const input = scriptedInput(['Is it still a calculator?', 'Thanks, bye.']);
    const run = await harness.run('interactive-turns', { input, task: 'What is this project?' });
    const { events } = run;

    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0, reason: 'the session ended' });
    expect(input.asked).toBe(3);
    expect(statePath(events)).toEqual([
      'RUNNING', 'WAITING_FOR_TOOL', 'RUNNING', // turn 1: a read, then the answer
      'WAITING_FOR_INPUT', 'RUNNING', 'WAITING_FOR_TOOL', 'RUNNING', // turn 2: the same read, then the answer
      'WAITING_FOR_INPUT', 'RUNNING', // turn 3: a direct answer
      'WAITING_FOR_INPUT', 'COMPLETED', // no more input
    ]);
    expect(runEnd(events).state).toBe('COMPLETED');
    expect(ofType(events, 'user_message').map((m) => m.content)).toEqual([
      'What is this project?', 'Is it still a calculator?', 'Thanks, bye.',
    ]);

    // Each turn's request carries the whole session so far, the new user message last.
    const bodies = run.bodies;
    expect(bodies).toHaveLength(5);
    expect(bodies[2]?.messages.at(-1)).toEqual({ role: 'user', content: 'Is it still a calculator?' });
    expect(bodies[2]?.messages.at(-2)).toMatchObject({ role: 'assistant', content: 'It is a calculator.' });
    expect(bodies[4]?.messages.at(-1)).toEqual({ role: 'user', content: 'Thanks, bye.' });
    expect(bodies[4]?.messages.filter((m) => m.role === 'user')).toHaveLength(3);
    run.server.assertConsumed();
  });

  it('LoopGuard and ReplayControl start afresh each turn: the identical read in turn 2 runs again', async () => {
    const run = await harness.run('interactive-turns', { input: scriptedInput(['Again?', 'Bye.']) });
    const { events } = run;

    const results = ofType(events, 'tool_result');
    expect(results.map((r) => [r.callId, r.status])).toEqual([['call_0_0', 'ok'], ['call_2_0', 'ok']]);
    expect(results[1]?.output).toBe(results[0]?.output);
    // Turn 2's read is a first attempt and a first call again — not "identical call 2 of 3", not a duplicate.
    expect(decisions(events, 'loop_guard', 'call_2_0')).toEqual([
      expect.objectContaining({ verdict: 'allow', rule: 'first_attempt', counters: { before: { attempts: 0 }, after: { attempts: 1 } } }),
    ]);
    expect(decisions(events, 'replay_control', 'call_2_0')).toEqual([expect.objectContaining({ verdict: 'allow', rule: 'first_call' })]);
  });

  it('aborting while waiting for input ends the session as CANCELLED', async () => {
    const controller = new AbortController();
    const input: UserInput = {
      next: (signal) => {
        controller.abort();
        return Promise.reject(signal?.reason as Error);
      },
    };
    const run = await harness.run('interactive-turns', { input, signal: controller.signal });
    expect(run.result).toMatchObject({ state: 'CANCELLED', exitCode: 130 });
    expect(statePath(run.events).slice(-2)).toEqual(['WAITING_FOR_INPUT', 'CANCELLED']);
    expect(run.server.remaining()).toBe(3);
  });
});
