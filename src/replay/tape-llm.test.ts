import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import type { LlmChunk, LlmClient, LlmRequest, LlmResponse } from '../core/llm.js';
import { LlmError } from '../core/llm-error.js';
import type { RunMeta } from '../core/run-meta.js';
import { TapeLlm } from './tape-llm.js';

const RUN: RunMeta = {
  id: '01JABCDEFGHJKMNPQRSTVWXYZ0', kind: 'record', source: 'cli', createdAt: '2026-01-01T00:00:00.000Z',
  task: 't', model: 'm', config: {}, seed: 0, status: 'complete', tapeVersion: 1,
};
const request: LlmRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true };
const response = (content: string): LlmResponse => ({
  message: { role: 'assistant', content },
  finishReason: 'stop',
  usage: { inputTokens: 5, outputTokens: 2 },
});
const base = { seq: 0, t: 0 };
const chunk = (step: number, attempt: number, index: number, offsetMs: number, finished = false): RunEvent => ({
  ...base, type: 'llm_chunk', step, iteration: step, attempt, chunk: { index, offsetMs, finished, ...(finished ? {} : { content: `c${index}` }) },
});

/** Step 0: a 429 (Retry-After 2 s) then a streamed answer; step 1: a plain answer. */
const tape: RunEvent[][] = [
  [
    { ...base, type: 'llm_request', step: 0, iteration: 0, hash: 'a'.repeat(64), prefix: 0, append: [], model: 'm', stream: true, tools: [] },
    { ...base, type: 'llm_error', step: 0, iteration: 0, attempt: 0, kind: 'recoverable', status: 429, message: 'slow down', retryAfterMs: 2000, retryInMs: 2000 },
    chunk(0, 1, 0, 10),
    chunk(0, 1, 1, 25),
    { ...base, type: 'warning', step: 0, message: 'the model stream closed without a finish reason' },
    chunk(0, 1, 2, 30, true),
    { ...base, type: 'llm_response', step: 0, iteration: 0, attempt: 1, response: response('first'), durationMs: 40 },
  ],
  [{ ...base, type: 'llm_response', step: 1, iteration: 1, attempt: 0, response: response('second'), durationMs: 7 }],
];
const recorded = (iteration: number): readonly RunEvent[] => tape[iteration] ?? [];

describe('TapeLlm', () => {
  it('replays each attempt as recorded: the same error, then the same chunks, warnings and response', async () => {
    const advanced: number[] = [];
    const paced: number[] = [];
    const llm = new TapeLlm({ run: RUN, recorded, advance: (ms) => advanced.push(ms), pace: (ms) => Promise.resolve(void paced.push(ms)) });
    const error = await Promise.resolve().then(() => llm.complete(request)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ kind: 'recoverable', status: 429, retryAfterMs: 2000, message: 'slow down' });

    const chunks: LlmChunk[] = [];
    const warnings: string[] = [];
    const answer = await llm.complete(request, { onChunk: (c) => chunks.push(c), onWarning: (w) => warnings.push(w) });
    expect(answer.message.content).toBe('first');
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2]);
    expect(chunks.filter((c) => c.finished)).toHaveLength(1);
    expect(warnings).toEqual(['the model stream closed without a finish reason']);
    // --speed: waits are the gaps between recorded chunk offsets; the clock moves by the recorded duration.
    expect(paced).toEqual([10, 15, 5]);
    expect(advanced).toEqual([40]);
    expect((await llm.complete({ ...request, stream: false })).message.content).toBe('second');
  });

  it('answers at once what the tape holds: no promise unless it paces (--speed), waits for a recorded stop or goes live', async () => {
    const llm = new TapeLlm({ run: RUN, recorded });
    // Attempt 0 of step 0 failed: thrown at once, and the next attempt is answered at once.
    expect(() => llm.complete(request)).toThrow(LlmError);
    const seen: string[] = [];
    const answer = llm.complete(request, { onChunk: (c) => seen.push(`chunk ${c.index}`), onWarning: (w) => seen.push(`warning ${w}`) });
    expect(answer).not.toBeInstanceOf(Promise);
    expect((answer as LlmResponse).message.content).toBe('first');
    expect(seen).toEqual(['chunk 0', 'chunk 1', 'warning the model stream closed without a finish reason', 'chunk 2']);
    expect(llm.complete(request)).toMatchObject({ message: { content: 'second' } });
    const paced = new TapeLlm({ run: RUN, recorded: (i) => tape[i + 1] ?? [], pace: () => Promise.resolve() }).complete(request);
    expect(paced).toBeInstanceOf(Promise);
    expect(await paced).toMatchObject({ message: { content: 'second' } });
  });

  it('a patch replaces the answer, consumes the tape entry, and streams as one chunk plus the finish', async () => {
    const llm = new TapeLlm({ run: RUN, recorded, patches: new Map([[0, { role: 'assistant', content: 'patched' }]]) });
    const chunks: LlmChunk[] = [];
    const patched = await llm.complete(request, { onChunk: (c) => chunks.push(c) });
    expect(patched).toMatchObject({ message: { content: 'patched' }, finishReason: 'stop', usage: { inputTokens: 5 } });
    expect(chunks).toEqual([
      { index: 0, offsetMs: 0, finished: false, content: 'patched' },
      { index: 1, offsetMs: 0, finishReason: 'stop', finished: true },
    ]);
    expect((await llm.complete(request)).message.content).toBe('second');
  });

  it('past the tape: a fatal "tape exhausted" error, or the fallback', async () => {
    const exhausted: number[] = [];
    const llm = new TapeLlm({ run: RUN, recorded: () => [], onExhausted: (i) => exhausted.push(i) });
    await expect(llm.complete(request)).rejects.toMatchObject({ kind: 'fatal', message: 'tape exhausted at iteration 0' });
    expect(exhausted).toEqual([0]);

    const live: number[] = [];
    const fallback: LlmClient = { complete: () => Promise.resolve(response('live')) };
    const withFallback = new TapeLlm({ run: RUN, recorded, fallback, onLive: (i) => live.push(i) });
    expect(() => withFallback.complete(request)).toThrow(LlmError);
    await withFallback.complete(request);
    await withFallback.complete(request);
    expect((await withFallback.complete(request)).message.content).toBe('live');
    expect(live).toEqual([2]);
  });

  it('a call the recording was cancelled in: the recorded chunks, then the same stop', async () => {
    const cut: RunEvent[] = [chunk(0, 0, 0, 5), chunk(0, 0, 1, 9, true), { ...base, type: 'state', step: 0, from: 'RUNNING', to: 'CANCELLED', reason: 'cancelled by the user' }];
    const cancelled: number[] = [];
    const llm = new TapeLlm({ run: RUN, recorded: () => cut, onCancelled: (i) => cancelled.push(i) });
    const chunks: LlmChunk[] = [];
    expect(() => llm.complete(request, { onChunk: (c) => chunks.push(c) })).toThrow(/cancelled/);
    expect(cancelled).toEqual([0]);
    expect(chunks.map((c) => c.finished)).toEqual([false, true]);
  });

  describe('a call the recording\'s time limit cut short', () => {
    const timedOut: RunEvent[] = [
      chunk(0, 0, 0, 5),
      chunk(0, 0, 1, 9, true),
      { ...base, t: 1000.37, type: 'state', step: 0, from: 'RUNNING', to: 'TIMED_OUT', reason: 'run time exceeded the limit of 1000 ms during the model call' },
    ];

    it('the recorded chunks, then at the recorded time of the stop, the abort of the replay\'s own deadline', async () => {
      const reached: number[] = [];
      const deadline = new AbortController();
      const reason = new Error('run time exceeded the limit of 1000 ms');
      const llm = new TapeLlm({
        run: RUN,
        recorded: () => timedOut,
        reach: (t) => {
          reached.push(t);
          deadline.abort(reason);
          return Promise.resolve();
        },
      });
      const chunks: LlmChunk[] = [];
      await expect(llm.complete(request, { onChunk: (c) => chunks.push(c), signal: deadline.signal })).rejects.toBe(reason);
      expect(reached).toEqual([1000.37]);
      expect(chunks.map((c) => c.finished)).toEqual([false, true]);
    });

    it('a replay whose deadline does not fall there (a what-if) is beyond the tape', async () => {
      const exhausted: number[] = [];
      const llm = new TapeLlm({ run: RUN, recorded: () => timedOut, reach: () => Promise.resolve(), onExhausted: (i) => exhausted.push(i) });
      await expect(llm.complete(request, { signal: new AbortController().signal })).rejects.toMatchObject({ kind: 'fatal', message: 'tape exhausted at iteration 0' });
      expect(exhausted).toEqual([0]);
    });
  });
});
