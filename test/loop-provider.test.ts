/**
 * The provider side of the loop (docs/loop.md, Streaming): retries with Retry-After and seeded
 * back-off on the manual clock, broken streams retried with one finished chunk per attempt,
 * fatal errors. Real HTTP to the scripted server through the real openai SDK.
 */
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../src/agent/provider-runner.js';
import { ManualClock, seededRandom } from '../src/core/clock.js';
import { BASE_CONFIG, ofType, statePath, toolMessages, useLoopHarness } from './support/loop-harness.js';

const harness = useLoopHarness();

describe('provider retries in the loop', () => {
  it('429 with Retry-After and two 500s are retried, then the answer: llm_error events carry the waits', async () => {
    const clock = new ManualClock(10_000);
    const run = await harness.run('rate-limited-and-500s', { clock });
    const { events } = run;

    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    // The back-off's jitter comes from the run's seeded random source (config seed), in order.
    const random = seededRandom(BASE_CONFIG.seed);
    const waits = [2000, backoffDelay(1, random), backoffDelay(2, random)];
    const errors = ofType(events, 'llm_error');
    expect(errors.map((e) => [e.attempt, e.status, e.kind, e.retryInMs])).toEqual([
      [0, 429, 'recoverable', waits[0]],
      [1, 500, 'recoverable', waits[1]],
      [2, 500, 'recoverable', waits[2]],
    ]);
    expect(errors[0]?.message).toContain('rate limiting requests (429)');
    const total = waits.reduce((a, b) => a + (b ?? 0), 0);
    // The waits happened on the manual clock, and only they moved it.
    expect(clock.now()).toBe(10_000 + total);
    const response = ofType(events, 'llm_response')[0];
    expect(response).toMatchObject({ attempt: 3, t: total });
    expect(errors.map((e) => e.t)).toEqual([0, waits[0], (waits[0] ?? 0) + (waits[1] ?? 0)]);
    // One model call for the loop (one llm_request), four HTTP requests for the server.
    expect(ofType(events, 'llm_request')).toHaveLength(1);
    expect(run.result.totals.llmCalls).toBe(1);
    expect(run.bodies).toHaveLength(4);
    run.server.assertConsumed();
  });

  it('recoverable errors beyond limits.maxRetries end the run in ERROR with the last error', async () => {
    const run = await harness.run('rate-limited-and-500s', { config: { limits: { maxRetries: 1 } } });

    expect(run.result).toMatchObject({ state: 'ERROR', exitCode: 3 });
    expect(run.result.reason).toBe('provider_error: the model server answered 500: mock-llm: scripted 500');
    const errors = ofType(run.events, 'llm_error');
    expect(errors.map((e) => [e.status, e.retryInMs])).toEqual([[429, 2000], [500, undefined]]);
    expect(run.server.remaining()).toBe(2);
  });

  it('a fatal 401 is not retried: ERROR with a message that says what to fix', async () => {
    const run = await harness.run('unauthorized', { config: { stream: true } });
    expect(run.result.state).toBe('ERROR');
    expect(run.result.reason).toMatch(/^provider_error: .*401.*OPENAI_API_KEY/);
    expect(ofType(run.events, 'llm_error')).toEqual([expect.objectContaining({ kind: 'fatal', status: 401 })]);
    expect(statePath(run.events)).toEqual(['RUNNING', 'ERROR']);
    expect(run.server.remaining()).toBe(1);
  });
});

describe('streaming in the loop (config.stream)', () => {
  it('a stream cut mid tool-call is retried; every stream attempt ends with exactly one finished chunk', async () => {
    const run = await harness.run('stream-cut-tool-call', { config: { stream: true } });
    const { events } = run;
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    expect(run.bodies.every((b) => b.stream === true)).toBe(true);

    const chunks = ofType(events, 'llm_chunk');
    const finished = chunks.filter((c) => c.chunk.finished);
    expect(finished.map((c) => [c.iteration, c.attempt])).toEqual([[0, 0], [0, 1], [1, 0]]);
    // Each finished chunk is the last chunk of its attempt.
    for (const f of finished) {
      const ofAttempt = chunks.filter((c) => c.iteration === f.iteration && c.attempt === f.attempt);
      expect(ofAttempt.at(-1)).toBe(f);
    }
    // The broken attempt's terminal chunk says why, and is emitted before the error event.
    expect(finished[0]?.chunk.error).toMatch(/stream/);
    const error = ofType(events, 'llm_error')[0];
    expect(error).toMatchObject({ iteration: 0, attempt: 0, kind: 'recoverable' });
    expect(events.indexOf(finished[0] as never)).toBeLessThan(events.indexOf(error as never));

    // The retried reply's tool call ran once, with its full arguments.
    const calls = ofType(events, 'tool_call');
    expect(calls).toEqual([expect.objectContaining({ tool: 'read_file', arguments: '{"path":"src/add.js"}' })]);
    expect(toolMessages(run.bodies[2]).get('call_1_0')).toContain('return a - b;');
    expect(ofType(events, 'llm_response').map((r) => [r.iteration, r.attempt])).toEqual([[0, 1], [1, 0]]);
    run.server.assertConsumed();
  });

  it('a streamed plain answer cut after 3 events: one retry, one finished chunk each, the full text kept', async () => {
    const run = await harness.run('stream-cut-then-ok', { config: { stream: true } });
    expect(run.result).toMatchObject({ state: 'COMPLETED' });
    const finished = ofType(run.events, 'llm_chunk').filter((c) => c.chunk.finished);
    expect(finished.map((c) => c.attempt)).toEqual([0, 1]);
    expect(finished[1]?.chunk.error).toBeUndefined();
    expect(ofType(run.events, 'llm_response')[0]?.response.message.content).toBe('This answer arrives in full.');
    run.server.assertConsumed();
  });

  it('a stream that ends without a finish reason: one warning each, the reason inferred, the run goes on', async () => {
    const run = await harness.run('stream-no-finish-reason', { config: { stream: true } });
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    expect(ofType(run.events, 'warning').map((w) => [w.step, w.message])).toEqual([
      [0, "the model stream closed without a finish reason; assumed 'tool_calls'"],
      [1, "the model stream closed without a finish reason; assumed 'stop'"],
    ]);
    expect(ofType(run.events, 'llm_response').map((r) => r.response.finishReason)).toEqual(['tool_calls', 'stop']);
    const finished = ofType(run.events, 'llm_chunk').filter((c) => c.chunk.finished);
    expect(finished.map((c) => [c.iteration, c.attempt, c.chunk.error])).toEqual([[0, 0, undefined], [1, 0, undefined]]);
    expect(ofType(run.events, 'tool_result')).toEqual([expect.objectContaining({ tool: 'read_file', status: 'ok' })]);
    run.server.assertConsumed();
  });
});

describe('answers that are no answer, and model requests that take too long', () => {
  const noChoices = "the model's answer had no usable choices";

  it('200 answers with no usable choices are recoverable provider errors: retried, then the answer', async () => {
    const run = await harness.run('no-usable-choices');
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    expect(ofType(run.events, 'llm_error').map((e) => [e.attempt, e.kind, e.message, e.retryInMs !== undefined])).toEqual([
      [0, 'recoverable', noChoices, true],
      [1, 'recoverable', noChoices, true],
      [2, 'recoverable', noChoices, true],
    ]);
    expect(ofType(run.events, 'llm_response')[0]?.response.message.content).toBe('Here is the real answer.');
    run.server.assertConsumed();
  });

  it('…and when retries run out, the run ends ERROR with that message (not a crash)', async () => {
    const run = await harness.run('no-usable-choices', { config: { limits: { maxRetries: 1 } } });
    expect(run.result).toMatchObject({ state: 'ERROR', exitCode: 3, reason: `provider_error: ${noChoices}` });
    expect(run.server.remaining()).toBe(2);
  });

  it('a stream with no choice deltas at all behaves the same, with one finished chunk per attempt', async () => {
    const run = await harness.run('stream-no-choices', { config: { stream: true } });
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    expect(ofType(run.events, 'llm_error').map((e) => [e.attempt, e.kind, e.message])).toEqual([
      [0, 'recoverable', noChoices],
      [1, 'recoverable', noChoices],
    ]);
    const finished = ofType(run.events, 'llm_chunk').filter((c) => c.chunk.finished);
    expect(finished.map((c) => [c.attempt, c.chunk.error])).toEqual([[0, noChoices], [1, noChoices], [2, undefined]]);
    expect(ofType(run.events, 'warning')).toEqual([]);
    run.server.assertConsumed();
  });

  it('limits.requestTimeoutMs: a request not answered in time is a recoverable error, retried', async () => {
    const run = await harness.run('slow-answer', { config: { limits: { requestTimeoutMs: 200 } } });
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    expect(ofType(run.events, 'llm_error')).toEqual([
      expect.objectContaining({
        attempt: 0, kind: 'recoverable', retryInMs: expect.any(Number),
        message: 'the model request timed out: no complete answer within 200 ms (limits.requestTimeoutMs)',
      }),
    ]);
    expect(ofType(run.events, 'llm_response')[0]?.response.message.content).toBe('In time.');
  });

  it('limits.streamIdleTimeoutMs: a stream silent for that long is a recoverable error, retried', async () => {
    const run = await harness.run('stalled-then-ok', { config: { stream: true, limits: { streamIdleTimeoutMs: 200 } } });
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    const errors = ofType(run.events, 'llm_error');
    expect(errors.map((e) => [e.attempt, e.kind, e.message])).toEqual([
      [0, 'recoverable', 'the model stream stalled: no data for 200 ms (stream idle timeout, limits.streamIdleTimeoutMs)'],
    ]);
    const finished = ofType(run.events, 'llm_chunk').filter((c) => c.chunk.finished);
    expect(finished.map((c) => [c.attempt, c.chunk.error])).toEqual([[0, errors[0]?.message], [1, undefined]]);
    run.server.assertConsumed();
  });
});
