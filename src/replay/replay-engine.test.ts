import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LlmResponse } from '../core/llm.js';
import type { RunEvent, RunEventInput } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { requestDelta, requestHash } from '../agent/request-delta.js';
import type { ChatMessage } from '../core/messages.js';
import { readCallTape } from './call-tape.js';
import { ReplayEngine, type Served } from './replay-engine.js';
import { viewOf } from './request-difference.js';

const RUN: RunMeta = {
  id: '01JABCDEFGHJKMNPQRSTVWXYZ0', kind: 'record', source: 'library', createdAt: '2026-01-01T00:00:00.000Z',
  task: 't', model: 'm', config: {}, seed: 0, status: 'complete', tapeVersion: 1,
};

const ask = (text: string, params?: Record<string, unknown>, endpoint?: 'messages'): { messages: ChatMessage[]; params?: Record<string, unknown>; endpoint?: 'messages' } =>
  ({ messages: [{ role: 'user', content: text }], ...(params === undefined ? {} : { params }), ...(endpoint === undefined ? {} : { endpoint }) });
const request = (r: ReturnType<typeof ask>) => ({ model: 'm', stream: false, ...r });
const answer = (text: string): LlmResponse => ({ message: { role: 'assistant', content: text }, finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } });

/** A tape of calls: each a request and its outcomes (errors before the answer are earlier attempts). */
function tape(calls: Array<{ ask: ReturnType<typeof ask>; outcomes: Array<string | { status: number }> }>): RunEvent[] {
  const events: RunEventInput[] = [{ type: 'run_start', step: 0, task: 't', model: 'm', seed: 0, config: {} }];
  let sent: ChatMessage[] = [];
  calls.forEach((call, iteration) => {
    const req = request(call.ask);
    call.outcomes.forEach((outcome, attempt) => {
      events.push({
        type: 'llm_request', step: iteration, iteration, hash: requestHash(req), ...requestDelta(sent, req.messages), model: 'm', stream: false, tools: [],
        ...(req.params === undefined ? {} : { params: req.params }), ...(req.endpoint === undefined ? {} : { endpoint: req.endpoint }),
      });
      sent = req.messages;
      events.push(typeof outcome === 'string'
        ? { type: 'llm_response', step: iteration, iteration, attempt, response: answer(outcome), durationMs: 1 }
        : { type: 'llm_error', step: iteration, iteration, attempt, kind: 'recoverable', status: outcome.status, message: 'busy', http: { status: outcome.status, headers: {} } });
    });
  });
  return events.map((e, seq) => ({ ...e, seq, t: 0 }) as RunEvent);
}

async function engine(events: RunEvent[], options: ConstructorParameters<typeof ReplayEngine>[2] = {}): Promise<ReplayEngine> {
  return new ReplayEngine(RUN, await readCallTape(events), options);
}

const take = (e: ReplayEngine, r: ReturnType<typeof ask>): Served => {
  const req = request(r);
  return e.take(viewOf(req), requestHash(req));
};

const text = (served: Served): string | undefined => {
  if (served.kind === 'patch') return served.response.message.content ?? undefined;
  if (served.kind !== 'tape') return served.kind;
  const outcome = served.attempt.outcome;
  return outcome?.type === 'llm_response' ? (outcome.response.message.content ?? undefined) : `error ${outcome?.type === 'llm_error' ? outcome.status : ''}`;
};

describe('ReplayEngine', () => {
  it('gives each request its own recorded answer, whatever order they arrive in', async () => {
    const prompts = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
    const events = tape(prompts.map((p) => ({ ask: ask(p), outcomes: [`answer to ${p}`] })));
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(prompts, { minLength: prompts.length }), async (order) => {
        const e = await engine(events);
        for (const p of order) expect(text(take(e, ask(p)))).toBe(`answer to ${p}`);
        expect(e.state.divergences).toEqual([]);
        expect(e.state.remaining).toBe(0);
      }),
    );
  });

  it('serves equal requests in recorded order', async () => {
    const e = await engine(tape([{ ask: ask('same'), outcomes: ['first'] }, { ask: ask('same'), outcomes: ['second'] }]));
    expect([text(take(e, ask('same'))), text(take(e, ask('same')))]).toEqual(['first', 'second']);
  });

  it('replays the attempts of a call: the failure first, the retry gets the answer', async () => {
    const e = await engine(tape([{ ask: ask('x'), outcomes: [{ status: 429 }, { status: 500 }, 'finally'] }]));
    expect([text(take(e, ask('x'))), text(take(e, ask('x'))), text(take(e, ask('x')))]).toEqual(['error 429', 'error 500', 'finally']);
    expect(e.state.calls).toEqual([{ iteration: 0, source: 'tape', matched: true, resynced: false }]);
  });

  it('a request that differs is compared with the next recorded call of its own API, not the next of another', async () => {
    const events = tape([{ ask: ask('chat question'), outcomes: ['chat answer'] }, { ask: ask('claude question', undefined, 'messages'), outcomes: ['claude answer'] }]);
    const strict = await engine(events, { strict: true });
    expect(take(strict, ask('claude question, changed', undefined, 'messages'))).toMatchObject({ kind: 'mismatch', divergence: { recordedIteration: 1, path: 'messages[0].content' } });
    const lenient = await engine(events);
    expect(text(take(lenient, ask('claude question, changed', undefined, 'messages')))).toBe('claude answer');
    expect(text(take(lenient, ask('chat question')))).toBe('chat answer');
  });

  it('a request that differs: served by position and reported with the first differing field, or refused when strict', async () => {
    const events = tape([{ ask: ask('x', { top_p: 1 }), outcomes: ['one'] }, { ask: ask('y'), outcomes: ['two'] }]);
    const lenient = await engine(events);
    expect(text(take(lenient, ask('x', { top_p: 0.5 })))).toBe('one');
    expect(lenient.state.divergences).toMatchObject([{ iteration: 0, recordedIteration: 0, path: 'params.top_p', recorded: 1, replayed: 0.5, expected: false }]);
    expect(text(take(lenient, ask('y')))).toBe('two');
    expect(lenient.state.calls.map((c) => [c.matched, c.resynced])).toEqual([[false, false], [true, true]]);

    const strict = await engine(events, { strict: true });
    const refused = take(strict, ask('x', { top_p: 0.5 }));
    expect(refused).toMatchObject({ kind: 'mismatch', divergence: { path: 'params.top_p', recordedIteration: 0 } });
    expect(strict.state.remaining).toBe(2); // nothing was used up
    expect(strict.state.divergences).toMatchObject([{ path: 'params.top_p' }]); // but it is reported
    expect(text(take(strict, ask('x', { top_p: 1 })))).toBe('one');
  });

  it('patches call N, uses up the recorded call, and marks what follows as expected', async () => {
    const events = tape([{ ask: ask('a'), outcomes: ['one'] }, { ask: ask('b'), outcomes: ['two'] }]);
    const e = await engine(events, { patches: new Map([[0, { role: 'assistant', content: 'patched' }]]), strict: true });
    expect(text(take(e, ask('a')))).toBe('patched');
    // The agent now asks something else: strict does not refuse what a patch explains.
    expect(text(take(e, ask('b after the patch')))).toBe('two');
    expect(e.state.divergences).toMatchObject([{ iteration: 1, expected: true }]);
  });

  it('a patched call is used up: the next identical request gets the next recorded call, not the answer the patch replaced', async () => {
    const events = tape([{ ask: ask('a'), outcomes: ['one'] }, { ask: ask('a'), outcomes: ['two'] }]);
    const e = await engine(events, { patches: new Map([[0, { role: 'assistant', content: 'patched' }]]) });
    expect(text(take(e, ask('a')))).toBe('patched');
    expect(text(take(e, ask('a')))).toBe('two');
    expect(e.state.calls.map((c) => [c.iteration, c.source])).toEqual([[0, 'patch'], [1, 'tape']]);
    expect(e.state.remaining).toBe(0);
    expect(take(e, ask('a'))).toMatchObject({ kind: 'exhausted', iteration: 2 });
  });

  it('past the tape: exhausted at the call number, the same message everywhere', async () => {
    const e = await engine(tape([{ ask: ask('a'), outcomes: ['one'] }]));
    take(e, ask('a'));
    expect(take(e, ask('b'))).toEqual({ kind: 'exhausted', iteration: 1, message: 'tape exhausted at iteration 1' });
    expect(e.state.exhaustedAt).toBe(1);
    e.wentLive(1);
    expect(e.state.liveCalls).toBe(1);
  });

  describe('by position (the built-in loop)', () => {
    const calls = async (events: RunEvent[]) => (await readCallTape(events)).calls;
    const byPosition = async (events: RunEvent[], options: ConstructorParameters<typeof ReplayEngine>[2] = {}): Promise<ReplayEngine> => {
      const recorded = await calls(events);
      return ReplayEngine.byPosition(RUN, (iteration) => recorded.find((c) => c.iteration === iteration), options);
    };

    it('gives call N the tape\'s call N, its attempts in order, whatever the request', async () => {
      const e = await byPosition(tape([{ ask: ask('a'), outcomes: [{ status: 503 }, 'one'] }, { ask: ask('b'), outcomes: ['two'] }]));
      expect(text(e.takeAt(0))).toBe('error 503');
      expect(text(e.takeAt(0))).toBe('one');
      expect(text(e.takeAt(1))).toBe('two');
      expect(e.takeAt(2)).toMatchObject({ kind: 'exhausted', iteration: 2, message: 'tape exhausted at iteration 2' });
      expect(e.state.exhaustedAt).toBe(2);
    });

    it('a patched call is used up, and a call the recording stopped during is the end of the tape, with what it streamed', async () => {
      const events = tape([{ ask: ask('a'), outcomes: ['one'] }, { ask: ask('b'), outcomes: ['two'] }]);
      const patched = await byPosition(events, { patches: new Map([[0, { role: 'assistant', content: 'patched' }]]) });
      expect(text(patched.takeAt(0))).toBe('patched');
      expect(patched.takeAt(0)).toMatchObject({ kind: 'exhausted' });
      expect(text(patched.takeAt(1))).toBe('two');
      // The second call's request and one chunk, then the recording stopped.
      const cut = events.filter((e) => !(e.type === 'llm_response' && e.iteration === 1));
      cut.push({ type: 'llm_chunk', seq: 99, t: 0, step: 1, iteration: 1, attempt: 0, chunk: { index: 0, offsetMs: 1, content: 'tw', finished: false } });
      const stopped = await byPosition(cut);
      expect(text(stopped.takeAt(0))).toBe('one');
      const served = stopped.takeAt(1);
      expect(served).toMatchObject({ kind: 'exhausted', iteration: 1 });
      expect(served.kind === 'exhausted' ? served.stoppedDuring?.chunks.map((c) => c.chunk.content) : null).toEqual(['tw']);
      // Before its first chunk: the end of the tape too.
      const beforeAnything = await byPosition(events.filter((e) => !(e.type === 'llm_response' && e.iteration === 1)));
      beforeAnything.takeAt(0);
      expect(beforeAnything.takeAt(1)).toMatchObject({ kind: 'exhausted', iteration: 1 });
    });
  });
});
