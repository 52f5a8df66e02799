import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../core/clock.js';
import { LlmError } from '../core/llm-error.js';
import type { LlmChunk, LlmRequest } from '../core/llm.js';
import type { ScenarioStep } from '../../test/support/scenario.js';
import { OpenAiLlm, type OpenAiLlmOptions } from './openai-llm.js';
import { API_KEY, client, finishedCount, request, run } from './test-support/openai-llm-harness.js';
import { useMockLlms } from '../../test/support/mock-llm-pool.js';

const serve = useMockLlms();

const readFile = {
  type: 'function' as const,
  function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
};

describe('OpenAiLlm, non-streaming', () => {
  it('sends the request in OpenAI shape and maps the reply', async () => {
    const server = await serve([{ content: 'Hello there.', usage: { prompt_tokens: 11, completion_tokens: 3 }, model: 'served-model' }]);
    const { response, chunks } = await run(client(server), request(false, { tools: [readFile], maxTokens: 64, temperature: 0 }));
    expect(response).toEqual({
      message: { role: 'assistant', content: 'Hello there.' },
      finishReason: 'stop',
      usage: { inputTokens: 11, outputTokens: 3 },
      model: 'served-model',
    });
    expect(chunks).toEqual([]);
    const sent = server.requests[0];
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent?.body).toMatchObject({
      model: 'test-model',
      max_tokens: 64,
      temperature: 0,
      tools: [readFile],
      // `internal` is ours and never reaches the provider.
      messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Continue.' }],
    });
    expect(JSON.stringify(sent?.body)).not.toContain('internal');
    expect((sent?.body as { stream?: unknown }).stream).toBeFalsy();
    server.assertConsumed();
  });

  it('returns several tool calls from one response, and sends tool calls and results back', async () => {
    const server = await serve([{
      tool_calls: [
        { name: 'read_file', arguments: { path: 'a.txt' }, id: 'call_a' },
        { name: 'list_dir', arguments: '{"path":"."}' },
      ],
    }]);
    const history: LlmRequest['messages'] = [
      { role: 'user', content: 'look' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c0', type: 'function', function: { name: 'read_file', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c0', content: 'file text' },
    ];
    const { response } = await run(client(server), request(false, { messages: history }));
    expect(response?.finishReason).toBe('tool_calls');
    expect(response?.message).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
        { id: 'call_0_1', type: 'function', function: { name: 'list_dir', arguments: '{"path":"."}' } },
      ],
    });
    expect((server.requests[0]?.body as { messages: unknown }).messages).toEqual(history);
  });

  it('maps finish_reason length', async () => {
    const server = await serve([{ content: 'cut sh', finish_reason: 'length' }]);
    expect((await run(client(server), request(false))).response?.finishReason).toBe('length');
  });
});

describe('OpenAiLlm, streaming', () => {
  it('reports each chunk, then exactly one finished chunk, and asks for usage', async () => {
    const server = await serve([{ content: 'Hello big world', usage: { prompt_tokens: 7, completion_tokens: 3 } }]);
    const clock = new ManualClock(1000);
    const { response, chunks, warnings } = await run(client(server, { clock }), request(true));
    expect(response).toEqual({
      message: { role: 'assistant', content: 'Hello big world' },
      finishReason: 'stop',
      usage: { inputTokens: 7, outputTokens: 3 },
      model: 'test-model',
    });
    expect(chunks).toEqual([
      { index: 0, offsetMs: 0, finished: false, content: 'Hello ' },
      { index: 1, offsetMs: 0, finished: false, content: 'big ' },
      { index: 2, offsetMs: 0, finished: false, content: 'world' },
      { index: 3, offsetMs: 0, finished: false, finishReason: 'stop' },
      { index: 4, offsetMs: 0, finished: true, finishReason: 'stop' },
    ]);
    expect(warnings).toEqual([]);
    expect(server.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('accumulates several tool calls from argument fragments', async () => {
    const server = await serve([{
      content: 'Reading both.',
      tool_calls: [
        { name: 'read_file', arguments: { path: 'src/index.ts' } },
        { name: 'grep_files', arguments: { pattern: 'TODO', glob: '**/*.ts' } },
      ],
    }]);
    const { response, chunks } = await run(client(server), request(true, { tools: [readFile] }));
    expect(response?.finishReason).toBe('tool_calls');
    expect(response?.message.content).toBe('Reading both.');
    expect(response?.message.tool_calls).toEqual([
      { id: 'call_0_0', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/index.ts"}' } },
      { id: 'call_0_1', type: 'function', function: { name: 'grep_files', arguments: '{"pattern":"TODO","glob":"**/*.ts"}' } },
    ]);
    // Fragments are reported as they came: an opener with id and name, then argument pieces.
    const fragments = chunks.flatMap((c) => c.toolCalls ?? []);
    expect(fragments.filter((f) => f.index === 1).map((f) => f.arguments ?? '').join('')).toBe('{"pattern":"TODO","glob":"**/*.ts"}');
    expect(fragments[0]).toEqual({ index: 0, id: 'call_0_0', name: 'read_file' });
    expect(finishedCount(chunks)).toBe(1);
    expect(chunks.at(-1)).toMatchObject({ finished: true, finishReason: 'tool_calls' });
  });

  it('maps finish_reason length', async () => {
    const server = await serve([{ content: 'cut sh', finish_reason: 'length' }]);
    const { response, chunks } = await run(client(server), request(true));
    expect(response?.finishReason).toBe('length');
    expect(chunks.at(-1)).toMatchObject({ finished: true, finishReason: 'length' });
  });

  it('infers stop when the stream closes without a finish reason, with a warning', async () => {
    const server = await serve([{ content: 'no marker here', finish_reason: null }]);
    const { response, chunks, warnings } = await run(client(server), request(true));
    expect(response?.finishReason).toBe('stop');
    expect(finishedCount(chunks)).toBe(1);
    expect(chunks.at(-1)).toMatchObject({ finished: true, finishReason: 'stop' });
    expect(chunks.at(-1)?.error).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/without a finish reason; assumed 'stop'/);
  });

  it('infers tool_calls when the stream closes without a finish reason after tool calls', async () => {
    const server = await serve([{ tool_calls: [{ name: 'list_dir', arguments: {} }], finish_reason: null }]);
    const { response, chunks, warnings } = await run(client(server), request(true));
    expect(response?.finishReason).toBe('tool_calls');
    expect(response?.message.content).toBeNull();
    expect(chunks.filter((c) => c.finished)).toEqual([expect.objectContaining({ finishReason: 'tool_calls' })]);
    expect(warnings[0]).toMatch(/assumed 'tool_calls'/);
  });

  it('emits exactly one finished chunk, carrying the error, when the stream breaks mid-way', async () => {
    const server = await serve([{ content: 'one two three four five', disconnectAfter: 3 }]);
    const { error, chunks } = await run(client(server), request(true));
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ kind: 'recoverable' });
    expect((error as LlmError).message).toMatch(/stream broke/);
    expect(chunks.map((c) => c.content ?? null)).toEqual(['one ', 'two ', null]);
    expect(finishedCount(chunks)).toBe(1);
    expect(chunks.at(-1)).toMatchObject({ finished: true, error: (error as LlmError).message });
  });

  it('emits one finished chunk with the error when the request fails before streaming', async () => {
    const server = await serve([{ status: 500 }]);
    const { error, chunks } = await run(client(server), request(true));
    expect(error).toMatchObject({ kind: 'recoverable', status: 500 });
    expect(chunks).toEqual([{ index: 0, offsetMs: 0, finished: true, error: (error as LlmError).message }]);
  });
});

describe('OpenAiLlm errors', () => {
  async function failWith(step: ScenarioStep, stream = false, extra: Partial<OpenAiLlmOptions> = {}): Promise<LlmError> {
    const server = await serve([step]);
    const { error } = await run(client(server, extra), request(stream));
    expect(error).toBeInstanceOf(LlmError);
    server.assertConsumed();
    return error as LlmError;
  }

  it('429 is recoverable and carries Retry-After in seconds', async () => {
    const error = await failWith({ status: 429, retryAfter: 2 });
    expect(error.toData()).toEqual({ kind: 'recoverable', status: 429, retryAfterMs: 2000, message: expect.stringMatching(/rate limiting requests \(429\)/) });
  });

  it('reads Retry-After as an HTTP date against the injected wall clock', async () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    const error = await failWith({ status: 503, retryAfter: 'Wed, 01 Jan 2025 00:00:07 GMT' }, false, { wallClock: () => now });
    expect(error).toMatchObject({ kind: 'recoverable', status: 503, retryAfterMs: 7000 });
  });

  it('prefers retry-after-ms', async () => {
    const error = await failWith({ status: 429, retryAfter: 9, retryAfterMs: 1234 });
    expect(error.retryAfterMs).toBe(1234);
  });

  it.each([500, 502, 503, 504, 408])('%i is recoverable', async (status) => {
    const error = await failWith({ status });
    expect(error).toMatchObject({ kind: 'recoverable', status });
  });

  it.each([400, 403, 404, 409, 422])('%i is fatal', async (status) => {
    const error = await failWith({ status });
    expect(error).toMatchObject({ kind: 'fatal', status });
  });

  it('401 is fatal with a clear message that names the fix, streaming or not', async () => {
    for (const stream of [false, true]) {
      const error = await failWith({ status: 401, body: { error: { message: `Incorrect API key provided: ${API_KEY}` } } }, stream);
      expect(error.kind).toBe('fatal');
      expect(error.status).toBe(401);
      expect(error.message).toBe('the model server refused the API key (401) — set OPENAI_API_KEY');
    }
  });

  it('never puts the API key in a message, even when the server echoes it', async () => {
    const echo = `bad request from key ${API_KEY} (Bearer ${API_KEY})`;
    const errors = [
      await failWith({ status: 400, body: { error: { message: echo } } }),
      await failWith({ status: 500, body: { error: { message: echo } } }, true),
      await failWith({ status: 401, body: { error: { message: echo } } }),
    ];
    for (const error of errors) {
      expect(error.message).not.toContain(API_KEY);
      expect(JSON.stringify(error)).not.toContain(API_KEY);
      expect(String(error.stack)).not.toContain(API_KEY);
    }
    expect(errors[0]?.message).toContain('[REDACTED]');
  });

  it('a server that cannot be reached is recoverable', async () => {
    const port = await freePort();
    const llm = new OpenAiLlm({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: API_KEY });
    for (const stream of [false, true]) {
      const chunks: LlmChunk[] = [];
      const error = await llm.complete(request(stream), { onChunk: (c) => chunks.push(c) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LlmError);
      expect(error).toMatchObject({ kind: 'recoverable', status: undefined });
      expect((error as LlmError).message).toContain(`could not reach the model server at http://127.0.0.1:${port}/v1`);
      expect((error as LlmError).message).not.toContain(API_KEY);
      expect(finishedCount(chunks)).toBe(stream ? 1 : 0);
    }
  });

  it('a server that does not answer within requestTimeoutMs is a recoverable timeout that names the setting', async () => {
    const error = await failWith({ content: 'late', delayMs: 2000 }, false, { requestTimeoutMs: 100 });
    expect(error).toMatchObject({ kind: 'recoverable' });
    expect(error.message).toBe('the model request timed out: no complete answer within 100 ms (limits.requestTimeoutMs)');
  });

  it('a response cut before it is sent is recoverable (non-streaming)', async () => {
    const error = await failWith({ content: 'x', disconnectAfter: 0 });
    expect(error.kind).toBe('recoverable');
  });

  it('round-trips through its plain-data form', () => {
    const error = new LlmError({ kind: 'recoverable', status: 429, message: 'slow down', retryAfterMs: 1000 });
    const copy = LlmError.fromData(JSON.parse(JSON.stringify(error)) as ReturnType<LlmError['toData']>);
    expect(copy).toBeInstanceOf(LlmError);
    expect(copy.toData()).toEqual(error.toData());
    expect(new LlmError({ kind: 'fatal', message: 'no' }).toData()).toEqual({ kind: 'fatal', message: 'no' });
  });
});

describe('OpenAiLlm abort', () => {
  it('rejects with the signal reason and still ends the stream with one finished chunk', async () => {
    const server = await serve([{ content: 'slow', delayMs: 5000 }]);
    const controller = new AbortController();
    const reason = new Error('user pressed ctrl-c');
    setTimeout(() => controller.abort(reason), 50);
    const { error, chunks } = await run(client(server), request(true), controller.signal);
    expect(error).toBe(reason);
    expect(finishedCount(chunks)).toBe(1);
    expect(chunks.at(-1)?.error).toBe('user pressed ctrl-c');
  });

  it('rejects at once when the signal is already aborted (non-streaming)', async () => {
    const server = await serve([{ content: 'never' }]);
    const reason = new Error('already cancelled');
    const { error } = await run(client(server), request(false), AbortSignal.abort(reason));
    expect(error).toBe(reason);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe('OpenAiLlm error text', () => {
  it('uses a plain-text error body, shortened when long', async () => {
    const server = await serve([{ status: 502, body: 'upstream overloaded' }, { status: 503, body: `<html>${'x'.repeat(2000)}</html>` }, { status: 500, body: '' }]);
    const llm = client(server);
    const messages: string[] = [];
    for (let i = 0; i < 3; i += 1) messages.push(((await run(llm, request(false))).error as LlmError).message);
    expect(messages[0]).toBe('the model server answered 502: upstream overloaded');
    expect(messages[1]?.length).toBeLessThan(400);
    expect(messages[2]).toBe('the model server answered 500');
  });
});
