/** OpenAiLlm under its time limits, and answers with no usable choices, against the scripted server. */
import { describe, expect, it } from 'vitest';
import { LlmError } from '../core/llm-error.js';
import { client, finishedCount, request, run } from './test-support/openai-llm-harness.js';
import { useMockLlms } from '../../test/support/mock-llm-pool.js';

const serve = useMockLlms();

describe('OpenAiLlm time limits', () => {
  it('a stream that goes silent mid-way is a recoverable stream idle timeout, with one finished chunk', async () => {
    const server = await serve([{ content: 'one two three', stallAfter: 2 }]);
    const { error, chunks } = await run(client(server, { streamIdleTimeoutMs: 150, requestTimeoutMs: 30_000 }), request(true));
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ kind: 'recoverable' });
    expect((error as LlmError).message).toBe('the model stream stalled: no data for 150 ms (stream idle timeout, limits.streamIdleTimeoutMs)');
    expect(chunks.map((c) => c.content ?? null)).toEqual(['one ', null]);
    expect(chunks.at(-1)).toMatchObject({ finished: true, error: (error as LlmError).message });
  });

  it('requestTimeoutMs bounds a whole stream, not just its start', async () => {
    const server = await serve([{ content: 'one two three', stallAfter: 2 }]);
    const { error, chunks } = await run(client(server, { streamIdleTimeoutMs: 30_000, requestTimeoutMs: 200 }), request(true));
    expect(error).toMatchObject({ kind: 'recoverable', message: 'the model request timed out: no complete answer within 200 ms (limits.requestTimeoutMs)' });
    expect(finishedCount(chunks)).toBe(1);
  });

  it('the idle limit does not apply to a request that is not streamed, and 0 means no limit', async () => {
    const server = await serve([{ content: 'slow but whole', delayMs: 300 }, { content: 'no limit', delayMs: 300 }]);
    expect((await run(client(server, { streamIdleTimeoutMs: 50 }), request(false))).response?.message.content).toBe('slow but whole');
    expect((await run(client(server, { requestTimeoutMs: 0 }), request(false))).response?.message.content).toBe('no limit');
  });

  it('the caller\'s abort is still the caller\'s, not a timeout', async () => {
    const server = await serve([{ content: 'slow', delayMs: 5000 }]);
    const reason = new Error('out of run time');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 50);
    const { error } = await run(client(server, { requestTimeoutMs: 10_000 }), request(false), controller.signal);
    expect(error).toBe(reason);
  });
});

describe('OpenAiLlm, a 200 answer with no usable choices', () => {
  const noChoices = { kind: 'recoverable', message: "the model's answer had no usable choices" };

  it.each([
    ['no choices field', { hello: 'world' }],
    ['a choice whose message is null', { choices: [{ message: null }] }],
    ['an empty choices list', { choices: [] }],
    ['choices that are not a list', { choices: 'none' }],
    ['a text body', 'Service temporarily unavailable'],
  ])('non-streaming, %s: a recoverable LlmError', async (_name, body) => {
    const server = await serve([{ body }]);
    const { error } = await run(client(server), request(false));
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).toData()).toEqual(noChoices);
  });

  it.each([
    ['chunks without choices', [{ hello: 'world' }]],
    ['only a usage trailer', [{ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 0 } }]],
    ['nothing at all', []],
  ])('streaming, %s: the same error, after one finished chunk that carries it', async (_name, events) => {
    const server = await serve([{ events }]);
    const { error, chunks, warnings } = await run(client(server), request(true));
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).toData()).toEqual(noChoices);
    expect(chunks).toEqual([{ index: 0, offsetMs: 0, finished: true, error: noChoices.message }]);
    expect(warnings).toEqual([]);
  });

  it('an empty answer that has a choice is still an answer, streamed or not', async () => {
    const server = await serve([{ finish_reason: 'stop' }, { finish_reason: 'stop' }]);
    for (const stream of [false, true]) {
      const { response } = await run(client(server), request(stream));
      expect(response).toMatchObject({ message: { role: 'assistant', content: null }, finishReason: 'stop' });
    }
  });
});
