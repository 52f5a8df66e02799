import { describe, expect, it } from 'vitest';
import { ManualClock, seededRandom } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { LlmError } from '../core/llm-error.js';
import type { LlmCallOptions, LlmClient, LlmRequest, LlmResponse } from '../core/llm.js';
import { OpenAiLlm } from '../llm/openai-llm.js';
import type { MockLlm } from '../../test/support/mock-llm.js';
import { loadScenario } from '../../test/support/scenario.js';
import type { ScenarioStep } from '../../test/support/scenario.js';
import { DEFAULT_MAX_RETRY_AFTER_MS, backoffDelay, drainProviderCall, runProviderCall } from './provider-runner.js';
import type { ProviderEvent, ProviderRunnerOptions } from './provider-runner.js';
import { useMockLlms } from '../../test/support/mock-llm-pool.js';

const API_KEY = 'sk-runner-SECRET-abcdef0123456789';

const serve = useMockLlms();

function request(stream: boolean): LlmRequest {
  return { model: 'test-model', stream, messages: [{ role: 'user', content: 'hi' }] };
}

interface Setup {
  clock: ManualClock;
  options: ProviderRunnerOptions;
}

function setup(server: MockLlm, maxRetries: number, extra: Partial<ProviderRunnerOptions> = {}): Setup {
  const clock = new ManualClock();
  const client = new OpenAiLlm({ baseURL: server.baseURL, apiKey: API_KEY, clock });
  return { clock, options: { client, clock, random: seededRandom(42), maxRetries, ...extra } };
}

function ofType<T extends ProviderEvent['type']>(events: ProviderEvent[], type: T): Array<Extract<ProviderEvent, { type: T }>> {
  return events.filter((e): e is Extract<ProviderEvent, { type: T }> => e.type === type);
}

/** Finished chunks per attempt, e.g. { 0: 1, 1: 1 }. */
function finishedPerAttempt(events: ProviderEvent[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const e of ofType(events, 'llm_chunk')) if (e.chunk.finished) counts[e.attempt] = (counts[e.attempt] ?? 0) + 1;
  return counts;
}

describe('runProviderCall against the scripted server', () => {
  it('429 with Retry-After, then 503, then success: waits what the server asked, then its own back-off', async () => {
    const server = await serve(loadScenario('rate-limited-then-ok'));
    const { clock, options } = setup(server, 3);
    const { events, outcome } = await drainProviderCall(runProviderCall(request(false), { iteration: 4, step: 5 }, options));

    const expectedBackoff = backoffDelay(1, seededRandom(42));
    expect(events).toEqual([
      {
        type: 'llm_error', step: 5, iteration: 4, attempt: 0, kind: 'recoverable', status: 429, message: expect.any(String),
        retryAfterMs: 2000, retryInMs: 2000,
      },
      { type: 'llm_error', step: 5, iteration: 4, attempt: 1, kind: 'recoverable', status: 503, message: expect.any(String), retryInMs: expectedBackoff },
      { type: 'llm_response', step: 5, iteration: 4, attempt: 2, response: expect.any(Object), durationMs: 0 },
    ]);
    expect(expectedBackoff).toBeGreaterThanOrEqual(500);
    expect(expectedBackoff).toBeLessThanOrEqual(1000);
    // The only time that passed is the two waits, on the manual clock.
    expect(clock.now()).toBe(2000 + expectedBackoff);
    expect(outcome).toEqual({ ok: true, attempts: 3, response: expect.objectContaining({ message: { role: 'assistant', content: 'All good now.' } }) });
    server.assertConsumed();
  });

  it('retries 500s with exponential back-off and seeded jitter until success', async () => {
    const server = await serve([{ status: 500 }, { status: 500 }, { status: 502 }, { content: 'finally' }]);
    const { options } = setup(server, 5);
    const { events, outcome } = await drainProviderCall(runProviderCall(request(true), { iteration: 0 }, options));
    const waits = ofType(events, 'llm_error').map((e) => e.retryInMs);
    const random = seededRandom(42);
    expect(waits).toEqual([0, 1, 2].map((n) => backoffDelay(n, random)));
    expect(waits[0]).toBeGreaterThanOrEqual(250);
    expect(waits[2]).toBeGreaterThanOrEqual(1000);
    expect(outcome.ok).toBe(true);
    expect(finishedPerAttempt(events)).toEqual({ 0: 1, 1: 1, 2: 1, 3: 1 });
    server.assertConsumed();
  });

  it('gives up after maxRetries: the last error has no retryInMs and the outcome is a failure', async () => {
    const server = await serve([{ status: 500 }, { status: 500 }, { status: 500 }, { content: 'too late' }]);
    const { options } = setup(server, 2);
    const { events, outcome } = await drainProviderCall(runProviderCall(request(false), { iteration: 0 }, options));
    const errors = ofType(events, 'llm_error');
    expect(errors.map((e) => [e.attempt, e.status, e.retryInMs !== undefined])).toEqual([
      [0, 500, true],
      [1, 500, true],
      [2, 500, false],
    ]);
    expect(errors[2]).not.toHaveProperty('retryInMs');
    expect(outcome).toMatchObject({ ok: false, attempts: 3, error: { kind: 'recoverable', status: 500 } });
    expect(server.remaining()).toBe(1);
  });

  it('retries a stream cut mid-way; every stream attempt ends with exactly one finished chunk', async () => {
    const server = await serve(loadScenario('stream-cut-then-ok'));
    const { options } = setup(server, 2);
    const { events, outcome } = await drainProviderCall(runProviderCall(request(true), { iteration: 1 }, options));
    expect(events.map((e) => (e.type === 'llm_chunk' ? `chunk${e.attempt}${e.chunk.finished ? '!' : ''}` : e.type))).toEqual([
      'chunk0', 'chunk0', 'chunk0!', 'llm_error',
      'chunk1', 'chunk1', 'chunk1', 'chunk1', 'chunk1', 'chunk1', 'chunk1!', 'llm_response',
    ]);
    expect(finishedPerAttempt(events)).toEqual({ 0: 1, 1: 1 });
    const cut = ofType(events, 'llm_chunk').find((e) => e.attempt === 0 && e.chunk.finished);
    expect(cut?.chunk.error).toMatch(/stream broke/);
    expect(ofType(events, 'llm_error')[0]).toMatchObject({ kind: 'recoverable', attempt: 0 });
    expect(outcome).toMatchObject({ ok: true, response: { message: { content: 'This answer arrives in full.' }, usage: { inputTokens: 12 } } });
    server.assertConsumed();
  });

  it('a stream that closes without a finish reason: one finished chunk and a warning event', async () => {
    const server = await serve([{ content: 'open ended', finish_reason: null }]);
    const { options } = setup(server, 0);
    const { events, outcome } = await drainProviderCall(runProviderCall(request(true), { iteration: 0 }, options));
    expect(events.map((e) => e.type)).toEqual(['llm_chunk', 'llm_chunk', 'llm_chunk', 'warning', 'llm_response']);
    expect(ofType(events, 'warning')[0]?.message).toMatch(/without a finish reason/);
    expect(finishedPerAttempt(events)).toEqual({ 0: 1 });
    expect(outcome).toMatchObject({ ok: true, response: { finishReason: 'stop' } });
  });

  it('401 is fatal and not retried, with the clear message', async () => {
    const server = await serve(loadScenario('unauthorized'));
    const { clock, options } = setup(server, 5);
    const { events, outcome } = await drainProviderCall(runProviderCall(request(false), { iteration: 0 }, options));
    expect(events).toEqual([{
      type: 'llm_error', step: 0, iteration: 0, attempt: 0, kind: 'fatal', status: 401,
      message: 'the model server refused the API key (401) — set OPENAI_API_KEY',
    }]);
    expect(outcome).toMatchObject({ ok: false, attempts: 1, error: { kind: 'fatal', status: 401 } });
    expect(server.remaining()).toBe(1);
    expect(clock.now()).toBe(0);
  });

  it('never lets the API key into an event', async () => {
    const echo = { error: { message: `key ${API_KEY} is not allowed here` } };
    const server = await serve([{ status: 500, body: echo }, { status: 400, body: echo }]);
    const { options } = setup(server, 3);
    const { events } = await drainProviderCall(runProviderCall(request(true), { iteration: 0 }, options));
    expect(ofType(events, 'llm_error')).toHaveLength(2);
    expect(JSON.stringify(events)).not.toContain(API_KEY);
    // It was sent, as it should be, only in the Authorization header.
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${API_KEY}`, `Bearer ${API_KEY}`]);
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain(API_KEY);
  });

  it('is deterministic: the same scenario and seed give identical event sequences', async () => {
    const scenario: ScenarioStep[] = [
      { status: 503 },
      { content: 'partial answer that breaks', disconnectAfter: 2 },
      { status: 429, retryAfter: 1 },
      { status: 500 },
      { content: 'Calling tools.', tool_calls: [{ name: 'read_file', arguments: { path: 'a' } }, { name: 'list_dir', arguments: {} }] },
    ];
    const runOnce = async (): Promise<ProviderEvent[]> => {
      const server = await serve(scenario);
      const { options } = setup(server, 6);
      const { events, outcome } = await drainProviderCall(runProviderCall(request(true), { iteration: 2 }, options));
      expect(outcome.ok).toBe(true);
      server.assertConsumed();
      return events;
    };
    const first = await runOnce();
    const second = await runOnce();
    expect(second).toEqual(first);
    expect(ofType(first, 'llm_error').map((e) => e.retryInMs)).toEqual([
      backoffDelay(0, seededRandom(42)),
      expect.any(Number),
      1000,
      expect.any(Number),
    ]);
    expect(finishedPerAttempt(first)).toEqual({ 0: 1, 1: 1, 2: 1, 3: 1, 4: 1 });
  });
});

/** An LlmClient driven by a function, for the cases a server cannot stage. */
function fakeClient(impl: (request: LlmRequest, options: LlmCallOptions) => Promise<LlmResponse>): LlmClient {
  return { complete: impl };
}

/** Runner options for unit tests: a manual clock, seed 1, no retries unless asked. */
function unit(client: LlmClient, extra: Partial<ProviderRunnerOptions> = {}): ProviderRunnerOptions {
  return { client, clock: new ManualClock(), random: seededRandom(1), maxRetries: 0, ...extra };
}

const okResponse: LlmResponse = { message: { role: 'assistant', content: 'ok' }, finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };

describe('runProviderCall, unit', () => {
  it('yields chunks while the call is still running, in order', async () => {
    let release: (() => void) | undefined;
    const client = fakeClient(async (_req, { onChunk }) => {
      onChunk?.({ index: 0, offsetMs: 0, content: 'a', finished: false });
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      onChunk?.({ index: 1, offsetMs: 0, finished: true, finishReason: 'stop' });
      return okResponse;
    });
    const clock = new ManualClock();
    const call = runProviderCall(request(true), { iteration: 0 }, { client, clock, random: seededRandom(1), maxRetries: 0 });
    const first = await call.next();
    expect(first.value).toMatchObject({ type: 'llm_chunk', chunk: { content: 'a' } });
    expect(release).toBeDefined();
    release?.();
    const rest = await drainProviderCall(call);
    expect(rest.events.map((e) => e.type)).toEqual(['llm_chunk', 'llm_response']);
    expect(rest.outcome.ok).toBe(true);
  });

  it('does not retry an error that is not an LlmError: it is thrown after the events so far', async () => {
    let calls = 0;
    const client = fakeClient(async (_req, { onChunk }) => {
      calls += 1;
      onChunk?.({ index: 0, offsetMs: 0, finished: true, error: 'tape exhausted' });
      throw new Error('tape exhausted at iteration 3');
    });
    const call = runProviderCall(request(true), { iteration: 3 }, unit(client, { maxRetries: 5 }));
    const seen: ProviderEvent[] = [];
    await expect((async () => {
      for await (const event of call) seen.push(event);
    })()).rejects.toThrow('tape exhausted at iteration 3');
    expect(seen.map((e) => e.type)).toEqual(['llm_chunk']);
    expect(calls).toBe(1);
  });

  it('replays a recorded error from its plain data exactly', async () => {
    const recorded = new LlmError({ kind: 'recoverable', status: 429, message: 'slow down', retryAfterMs: 1500 }).toData();
    let n = 0;
    const client = fakeClient(async () => {
      n += 1;
      if (n === 1) throw LlmError.fromData(recorded);
      return okResponse;
    });
    const { events } = await drainProviderCall(
      runProviderCall(request(false), { iteration: 0 }, unit(client, { maxRetries: 1 })),
    );
    expect(events[0]).toEqual({
      type: 'llm_error', step: 0, iteration: 0, attempt: 0, kind: 'recoverable', status: 429, message: 'slow down', retryAfterMs: 1500, retryInMs: 1500,
    });
  });

  it('caps a huge Retry-After', async () => {
    let n = 0;
    const client = fakeClient(async () => {
      n += 1;
      if (n === 1) throw new LlmError({ kind: 'recoverable', status: 429, message: 'later', retryAfterMs: 86_400_000 });
      return okResponse;
    });
    const { events } = await drainProviderCall(
      runProviderCall(request(false), { iteration: 0 }, unit(client, { maxRetries: 1, maxRetryAfterMs: 60_000 })),
    );
    expect(events[0]).toMatchObject({ retryInMs: 60_000 });
  });

  describe('with a time limit (timeLeft)', () => {
    it('a Retry-After longer than the time left is not waited for: the call ends out of time at once', async () => {
      const clock = new ManualClock(500);
      let calls = 0;
      const client = fakeClient(async () => {
        calls += 1;
        throw new LlmError({ kind: 'recoverable', status: 429, message: 'later', retryAfterMs: 86_400_000 });
      });
      const { events, outcome } = await drainProviderCall(
        runProviderCall(request(false), { iteration: 0 }, unit(client, { clock, maxRetries: 3, timeLeft: () => 3000 })),
      );
      // The server's ask is kept; no retry follows, so no retryInMs.
      expect(events).toEqual([
        { type: 'llm_error', step: 0, iteration: 0, attempt: 0, kind: 'recoverable', status: 429, message: 'later', retryAfterMs: 86_400_000 },
      ]);
      // The wait it would have needed: the server's ask, capped (DEFAULT_MAX_RETRY_AFTER_MS).
      expect(outcome).toMatchObject({ ok: false, attempts: 1, outOfTimeWaitMs: DEFAULT_MAX_RETRY_AFTER_MS });
      expect(calls).toBe(1);
      expect(clock.now()).toBe(500);
    });

    it('so is a back-off longer than the time left; a wait that fits is waited', async () => {
      const fails = fakeClient(async () => {
        throw new LlmError({ kind: 'recoverable', status: 500, message: 'boom' });
      });
      const wait = backoffDelay(0, seededRandom(1));
      const call = (timeLeft: number) => runProviderCall(request(false), { iteration: 0 }, unit(fails, { maxRetries: 1, timeLeft: () => timeLeft }));
      const short = await drainProviderCall(call(wait - 1));
      expect(short.outcome).toMatchObject({ ok: false, attempts: 1, outOfTimeWaitMs: wait });
      expect(short.events).toEqual([expect.not.objectContaining({ retryInMs: expect.anything() })]);

      const enough = await drainProviderCall(call(wait));
      expect(enough.events.map((e) => e.type === 'llm_error' && e.retryInMs)).toEqual([wait, undefined]);
      expect(enough.outcome).toMatchObject({ ok: false, attempts: 2 });
      expect(enough.outcome).not.toHaveProperty('outOfTimeWaitMs');
    });

    it('a fatal error or the last retry is a plain failure whatever the time left', async () => {
      const fatal = fakeClient(async () => {
        throw new LlmError({ kind: 'fatal', status: 401, message: 'no' });
      });
      const options = unit(fatal, { maxRetries: 3, timeLeft: () => 0 });
      const { outcome } = await drainProviderCall(runProviderCall(request(false), { iteration: 0 }, options));
      expect(outcome).toEqual({ ok: false, error: expect.any(LlmError), attempts: 1 });
    });
  });

  it('an abort during the back-off wait stops the call with the signal reason', async () => {
    const controller = new AbortController();
    const manual = new ManualClock();
    const clock: Clock = {
      now: () => manual.now(),
      sleep: (ms, signal) => {
        controller.abort(new Error('cancelled by user'));
        return manual.sleep(ms, signal);
      },
    };
    let calls = 0;
    const client = fakeClient(async () => {
      calls += 1;
      throw new LlmError({ kind: 'recoverable', status: 500, message: 'boom' });
    });
    const options = unit(client, { clock, maxRetries: 3, signal: controller.signal });
    const call = runProviderCall(request(false), { iteration: 0 }, options);
    const seen: ProviderEvent[] = [];
    await expect((async () => {
      for await (const event of call) seen.push(event);
    })()).rejects.toThrow('cancelled by user');
    expect(seen.map((e) => e.type)).toEqual(['llm_error']);
    expect(calls).toBe(1);
  });

  it('an abort during the call reaches the client and is thrown, not retried', async () => {
    const server = await serve([{ content: 'slow', delayMs: 5000 }, { content: 'not reached' }]);
    const controller = new AbortController();
    const { options } = setup(server, 3, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop now')), 50);
    const seen: ProviderEvent[] = [];
    await expect((async () => {
      for await (const event of runProviderCall(request(true), { iteration: 0 }, options)) seen.push(event);
    })()).rejects.toThrow('stop now');
    // The stream still ended with its one finished chunk; no llm_error, no retry.
    expect(seen).toEqual([expect.objectContaining({ type: 'llm_chunk', chunk: expect.objectContaining({ finished: true, error: 'stop now' }) })]);
    expect(server.remaining()).toBe(1);
  });

  it('abandoning the generator aborts the call in flight', async () => {
    let seenSignal: AbortSignal | undefined;
    const client = fakeClient((_req, { onChunk, signal }) => {
      seenSignal = signal;
      onChunk?.({ index: 0, offsetMs: 0, content: 'x', finished: false });
      return new Promise<LlmResponse>((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    });
    const call = runProviderCall(request(true), { iteration: 0 }, unit(client));
    await call.next();
    await call.return({ ok: true, response: okResponse, attempts: 1 });
    expect(seenSignal?.aborted).toBe(true);
  });

  it('a client that first reads its signal after the generator was abandoned gets it aborted, and no listener is left on the run signal', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let seenSignal: AbortSignal | undefined;
    const run = new AbortController();
    const client = fakeClient(async (_req, call) => {
      call.onChunk?.({ index: 0, offsetMs: 0, content: 'x', finished: false });
      await gate; // a tape's paced stream, say, before a live fallback reads the signal
      seenSignal = call.signal;
      return okResponse;
    });
    const call = runProviderCall(request(true), { iteration: 0 }, unit(client, { signal: run.signal }));
    await call.next();
    await call.return({ ok: true, response: okResponse, attempts: 1 });
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(seenSignal?.aborted).toBe(true);
    // Aborting the run later reaches nothing: the call's signal never listened to it.
    const reason = seenSignal?.reason as Error;
    run.abort(new Error('later'));
    expect(reason.message).toBe('the provider call was abandoned');
  });

  it('refuses a negative maxRetries', async () => {
    const call = runProviderCall(request(false), { iteration: 0 }, {
      client: fakeClient(async () => okResponse), clock: new ManualClock(), random: seededRandom(1), maxRetries: -1,
    });
    await expect(call.next()).rejects.toThrow(RangeError);
  });
});

describe('backoffDelay', () => {
  it('doubles, stays within [half, full] of the ceiling, and is capped', () => {
    const random = seededRandom(7);
    for (let attempt = 0; attempt < 12; attempt += 1) {
      const ceiling = Math.min(30_000, 500 * 2 ** attempt);
      const delay = backoffDelay(attempt, random);
      expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
      expect(delay).toBeLessThanOrEqual(ceiling);
    }
    expect(backoffDelay(3, { next: () => 0 }, 100, 1000)).toBe(400);
    expect(backoffDelay(3, { next: () => 0.999999 }, 100, 1000)).toBe(800);
  });
});
