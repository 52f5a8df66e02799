/**
 * One scenario per terminal state of the loop (docs/loop.md): the whole loop in-process against the
 * scripted HTTP server, with real tools in a temp workspace and a ManualClock.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import type { RunEvent } from '../src/core/events.js';
import { decisions, ofType, runEnd, statePath, TEST_API_KEY, useLoopHarness } from './support/loop-harness.js';

const harness = useLoopHarness();

describe('loop terminal states', () => {
  it('COMPLETED: read, failing test, edit, passing test, answer (exit 0)', async () => {
    const run = await harness.run('fix-the-bug');
    const { events, result } = run;

    expect(result).toEqual({
      state: 'COMPLETED',
      reason: 'the model gave its final answer',
      exitCode: 0,
      totals: expect.objectContaining({ steps: 5, llmCalls: 5, toolCalls: 4 }),
    });
    expect(statePath(events)).toEqual([
      'RUNNING',
      ...Array.from({ length: 4 }, () => ['WAITING_FOR_TOOL', 'RUNNING']).flat(),
      'COMPLETED',
    ]);
    expect(runEnd(events)).toMatchObject({ type: 'run_end', state: 'COMPLETED', totals: result.totals });
    expect(events[0]).toMatchObject({ type: 'run_start', seq: 0, model: 'test-model', seed: 7 });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));

    const results = ofType(events, 'tool_result');
    expect(results.map((r) => [r.tool, r.status])).toEqual([
      ['read_file', 'ok'],
      ['exec_shell', 'error'],
      ['edit_file', 'ok'],
      ['exec_shell', 'ok'],
    ]);
    expect(results[1]?.output).toContain('FAIL: add(2, 3) should be 5');
    expect(results[3]?.output).toContain('ok: add(2, 3) is 5');
    // The edit really happened in the workspace.
    expect(await readFile(join(run.workspace, 'src/add.js'), 'utf8')).toContain('return a + b;');

    // Every request went to the real server, each one the whole conversation so far.
    expect(run.bodies).toHaveLength(5);
    expect(run.bodies[4]?.messages.map((m) => m.role)).toEqual([
      'system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool',
    ]);
    expect(run.server.requests[0]?.headers.authorization).toBe(`Bearer ${TEST_API_KEY}`);
    // The key never reaches an event.
    expect(JSON.stringify(events)).not.toContain(TEST_API_KEY);
    run.server.assertConsumed();
  });

  it('MAX_STEPS: stops before the third model call with limits.maxSteps 2 (exit 4)', async () => {
    const run = await harness.run('three-reads-then-answer', { config: { limits: { maxSteps: 2 } } });

    expect(run.result.state).toBe('MAX_STEPS');
    expect(run.result.exitCode).toBe(4);
    expect(run.result.reason).toBe('reached the limit of 2 steps');
    expect(run.result.totals).toMatchObject({ steps: 2, llmCalls: 2, toolCalls: 2 });
    expect(statePath(run.events).at(-1)).toBe('MAX_STEPS');
    expect(runEnd(run.events)).toMatchObject({ state: 'MAX_STEPS', step: 2 });
    expect(run.bodies).toHaveLength(2);
    expect(run.server.remaining()).toBe(2);
  });

  describe('BUDGET_EXCEEDED (exit 5)', () => {
    it('over limits.tokenBudget: warns when near the budget, then stops once over it', async () => {
      const run = await harness.run('budget-burn', { config: { limits: { tokenBudget: 1600 } } });

      expect(run.result).toMatchObject({ state: 'BUDGET_EXCEEDED', exitCode: 5, reason: 'used 2460 tokens of a budget of 1600' });
      expect(ofType(run.events, 'budget').map((b) => [b.inputTokens, b.outputTokens, b.nearBudget])).toEqual([
        [600, 100, false],
        [1400, 150, true],
        [2300, 160, true],
      ]);
      const near = decisions(run.events, 'budget');
      expect(near.map((d) => [d.step, d.verdict, d.rule])).toEqual([
        [1, 'warn', 'near_token_budget'],
        [2, 'warn', 'near_token_budget'],
      ]);
      // The answer that went over the budget is not acted on: the run ends right after the budget event.
      expect(run.events.slice(-4).map((e) => e.type)).toEqual(['budget', 'guardrail', 'state', 'run_end']);
      expect(run.result.totals).toMatchObject({ inputTokens: 2300, outputTokens: 160, llmCalls: 3 });
      run.server.assertConsumed();
    });

    it('over limits.costLimit with a price override for the model', async () => {
      const run = await harness.run('budget-burn', {
        // $100 / $400 per million tokens: 600+100 tokens cost 0.10, the next 800+50 another 0.10.
        config: { prices: { 'test-model': { input: 100, output: 400 } }, limits: { costLimit: 0.15 } },
      });

      expect(run.result).toMatchObject({ state: 'BUDGET_EXCEEDED', exitCode: 5, reason: 'cost 0.2000 exceeded the limit of 0.15' });
      const costs = ofType(run.events, 'budget').map((b) => b.cost);
      expect(costs).toHaveLength(2);
      expect(costs[0]).toBeCloseTo(0.1, 10);
      expect(costs[1]).toBeCloseTo(0.2, 10);
      expect(run.result.totals.cost).toBeCloseTo(0.2, 10);
      expect(run.server.remaining()).toBe(1);
    });
  });

  it('TIMED_OUT: the clock passes limits.timeoutMs between steps (exit 6), without real waiting', async () => {
    const clock = new ManualClock(5_000);
    const run = await harness.run('three-reads-then-answer', {
      config: { limits: { timeoutMs: 60_000 } },
      clock,
      // Each model answer "takes" 40 s on the manual clock.
      onEvent: (event) => {
        if (event.type === 'llm_response') clock.advance(40_000);
      },
    });
    expect(run.result).toMatchObject({ state: 'TIMED_OUT', exitCode: 6 });
    expect(run.result.reason).toBe('run time exceeded the limit of 60000 ms');
    expect(run.result.totals).toMatchObject({ steps: 2, llmCalls: 2 });
    expect(runEnd(run.events)).toMatchObject({ state: 'TIMED_OUT', t: 80_000 });
    expect(run.server.remaining()).toBe(2);
  });

  describe('TIMED_OUT at the deadline, whatever is in flight (the clock reaching the limit aborts it)', () => {
    /** Once `event` is seen, move the manual clock to the run's limit from outside, as time passing would. */
    const passLimit = (clock: ManualClock, limitMs: number, when: (event: RunEvent) => boolean) => (event: RunEvent): void => {
      if (when(event)) setTimeout(() => clock.advance(limitMs - event.t), 30);
    };

    it('a model call that is not answered: aborted, TIMED_OUT at the limit', async () => {
      const clock = new ManualClock(1_000);
      const run = await harness.run('model-never-answers', {
        clock, config: { limits: { timeoutMs: 1_000 } }, onEvent: passLimit(clock, 1_000, (e) => e.type === 'llm_request'),
      });
      expect(run.result).toMatchObject({ state: 'TIMED_OUT', exitCode: 6, reason: 'run time exceeded the limit of 1000 ms during the model call' });
      expect(runEnd(run.events)).toMatchObject({ t: 1_000, totals: { llmCalls: 1, steps: 1 } });
      expect(statePath(run.events)).toEqual(['RUNNING', 'TIMED_OUT']);
      // Not a provider failure: no error event, no retry.
      expect(ofType(run.events, 'llm_error')).toEqual([]);
      expect(run.server.remaining()).toBe(1);
    });

    it('a stream that stalls: its one finished chunk says why, then TIMED_OUT at the limit', async () => {
      const clock = new ManualClock(1_000);
      const run = await harness.run('stalled-stream', {
        clock, config: { stream: true, limits: { timeoutMs: 1_000 } }, onEvent: passLimit(clock, 1_000, (e) => e.type === 'llm_chunk'),
      });
      expect(run.result).toMatchObject({ state: 'TIMED_OUT', reason: 'run time exceeded the limit of 1000 ms during the model call' });
      expect(runEnd(run.events).t).toBe(1_000);
      const chunks = ofType(run.events, 'llm_chunk');
      expect(chunks.at(-1)?.chunk).toMatchObject({ finished: true, error: 'run time exceeded the limit of 1000 ms' });
      expect(run.server.remaining()).toBe(1);
    });

    it('a Retry-After longer than the time left: not waited for, TIMED_OUT at once, saying why', async () => {
      const clock = new ManualClock(1_000);
      const run = await harness.run('retry-after-a-day', { clock, config: { limits: { timeoutMs: 3_000 } } });
      expect(run.result.state).toBe('TIMED_OUT');
      expect(run.result.reason).toBe('run time would exceed the limit of 3000 ms: the model server asked to wait 86400000 ms before a retry (Retry-After)');
      expect(ofType(run.events, 'llm_error')).toEqual([expect.objectContaining({ status: 429, retryAfterMs: 86_400_000 })]);
      expect(ofType(run.events, 'llm_error')[0]).not.toHaveProperty('retryInMs');
      expect(clock.now()).toBe(1_000);
      expect(run.server.remaining()).toBe(1);
    });

    it('a tool that runs past the limit: stopped, its result recorded, TIMED_OUT at the limit', async () => {
      const clock = new ManualClock(1_000);
      const run = await harness.run('slow-tool', {
        clock,
        config: { toolModules: ['tools/wait.mjs'], limits: { timeoutMs: 1_000 } },
        onEvent: passLimit(clock, 1_000, (e) => e.type === 'tool_call'),
      });
      expect(run.result).toMatchObject({ state: 'TIMED_OUT', reason: 'run time exceeded the limit of 1000 ms while tools ran' });
      expect(runEnd(run.events).t).toBe(1_000);
      expect(ofType(run.events, 'tool_result')).toEqual([expect.objectContaining({ tool: 'wait', status: 'error', output: "tool 'wait' was cancelled" })]);
      expect(statePath(run.events)).toEqual(['RUNNING', 'WAITING_FOR_TOOL', 'TIMED_OUT']);
      expect(run.server.remaining()).toBe(1);
    });

    it('the wait for the next user message', async () => {
      const clock = new ManualClock(1_000);
      const input = {
        next: (signal?: AbortSignal) => new Promise<string | null>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error))),
      };
      const run = await harness.run([{ content: 'Done.' }], {
        clock, input, config: { limits: { timeoutMs: 1_000 } },
        onEvent: passLimit(clock, 1_000, (e) => e.type === 'state' && e.to === 'WAITING_FOR_INPUT'),
      });
      expect(run.result).toMatchObject({ state: 'TIMED_OUT', reason: 'run time exceeded the limit of 1000 ms while waiting for user input' });
      expect(runEnd(run.events).t).toBe(1_000);
    });
  });

  describe('CANCELLED (exit 130)', () => {
    it('aborted by the event consumer after the first tool result: the step ends, no further model call', async () => {
      const controller = new AbortController();
      const run = await harness.run('three-reads-then-answer', {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'tool_result') controller.abort();
        },
      });

      expect(run.result).toMatchObject({ state: 'CANCELLED', exitCode: 130, reason: 'cancelled by the user' });
      expect(statePath(run.events)).toEqual(['RUNNING', 'WAITING_FOR_TOOL', 'CANCELLED']);
      expect(runEnd(run.events).state).toBe('CANCELLED');
      expect(run.bodies).toHaveLength(1);
      expect(run.server.remaining()).toBe(3);
    });

    it('aborted while a streamed answer is arriving: the HTTP call in flight is abandoned', async () => {
      const controller = new AbortController();
      const run = await harness.run('stalled-stream', {
        config: { stream: true },
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'llm_chunk') controller.abort();
        },
      });

      expect(run.result).toMatchObject({ state: 'CANCELLED', exitCode: 130 });
      expect(statePath(run.events)).toEqual(['RUNNING', 'CANCELLED']);
      expect(ofType(run.events, 'llm_response')).toEqual([]);
      // No retry after an abort: the second step is never asked for.
      expect(run.bodies).toHaveLength(1);
      expect(run.server.remaining()).toBe(1);
    });
  });

  describe('ERROR (exit 3)', () => {
    it('repetition: the 4th identical tool step', async () => {
      const run = await harness.run('repeated-step');
      expect(run.result).toMatchObject({ state: 'ERROR', exitCode: 3 });
      expect(run.result.reason).toMatch(/^repetition: /);
      expect(runEnd(run.events)).toMatchObject({ state: 'ERROR', reason: run.result.reason });
      expect(run.server.remaining()).toBe(1);
    });

    it('tool failures: the 8th consecutive failure halts the run', async () => {
      const run = await harness.run('failing-reads');
      expect(run.result).toMatchObject({ state: 'ERROR', exitCode: 3 });
      expect(run.result.reason).toMatch(/^tool_failures: `read_file` has failed 8 consecutive times/);
      expect(run.server.remaining()).toBe(1);
    });

    it('a fatal provider error (401) ends the run at once with a clear message', async () => {
      const run = await harness.run('unauthorized');
      expect(run.result).toMatchObject({ state: 'ERROR', exitCode: 3 });
      expect(run.result.reason).toBe('provider_error: the model server refused the API key (401) — set OPENAI_API_KEY');
      const errors = ofType(run.events, 'llm_error');
      expect(errors).toEqual([expect.objectContaining({ kind: 'fatal', status: 401, attempt: 0 })]);
      expect(errors[0]?.retryInMs).toBeUndefined();
      expect(statePath(run.events)).toEqual(['RUNNING', 'ERROR']);
      // Fatal: no retry, so the step after it is never played.
      expect(run.bodies).toHaveLength(1);
      expect(run.server.remaining()).toBe(1);
      expect(JSON.stringify(run.events)).not.toContain(TEST_API_KEY);
    });
  });
});
