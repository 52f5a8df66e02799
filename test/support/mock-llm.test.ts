import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import OpenAI from 'openai';
import type { MockLlm } from './mock-llm.js';
import { loadScenario, parseScenario, SCENARIO_DIR } from './scenario.js';
import { useMockLlms } from './mock-llm-pool.js';

const serve = useMockLlms();

function post(server: MockLlm, body: unknown): Promise<Response> {
  return fetch(`${server.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer test-key' },
    body: JSON.stringify(body),
  });
}

/** The `data:` payloads of an SSE body. */
function sseData(text: string): string[] {
  return text.split('\n\n').filter((block) => block !== '').map((block) => block.replace(/^data: /, ''));
}

describe('mock LLM server', () => {
  it('listens on 127.0.0.1 and serves the steps in order, for identical requests', async () => {
    const server = await serve([{ content: 'first' }, { content: 'second' }]);
    expect(server.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const body = { model: 'm', messages: [{ role: 'user', content: 'same' }] };
    const a = (await (await post(server, body)).json()) as { choices: Array<{ message: { content: string } }> };
    const b = (await (await post(server, body)).json()) as { choices: Array<{ message: { content: string } }> };
    expect([a.choices[0]?.message.content, b.choices[0]?.message.content]).toEqual(['first', 'second']);
    expect(server.requests.map((r) => r.step)).toEqual([0, 1]);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer test-key');
    expect(server.requests[0]?.body).toEqual(body);
    server.assertConsumed();
  });

  it('streams OpenAI-format SSE ending with [DONE], with usage only when asked', async () => {
    const server = await serve([
      { content: 'a b', tool_calls: [{ name: 't', arguments: { k: 1 } }], usage: { prompt_tokens: 5, completion_tokens: 2 } },
      { content: 'x' },
    ]);
    const res = await post(server, { model: 'm', stream: true, stream_options: { include_usage: true }, messages: [] });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = sseData(await res.text());
    expect(events.at(-1)).toBe('[DONE]');
    type Chunk = { choices: Array<{ delta: unknown; finish_reason: string | null }>; usage?: unknown };
    const parsed = events.slice(0, -1).map((e) => JSON.parse(e) as Chunk);
    // opener, 2 words, tool opener, 2 argument halves, finish, usage
    expect(parsed).toHaveLength(8);
    expect(parsed[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(parsed[6]?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(parsed[7]).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });

    const plain = sseData(await (await post(server, { model: 'm', stream: true, messages: [] })).text());
    expect(plain.some((e) => e.includes('"usage"'))).toBe(false);
    server.assertConsumed();
  });

  it('plays failures with their status, Retry-After headers and body', async () => {
    const server = await serve([
      { status: 429, retryAfter: 3, retryAfterMs: 2500 },
      { status: 503, retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT', headers: { 'x-extra': 'yes' }, body: 'overloaded' },
    ]);
    const first = await post(server, { messages: [] });
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('3');
    expect(first.headers.get('retry-after-ms')).toBe('2500');
    expect(await first.json()).toMatchObject({ error: { message: 'mock-llm: scripted 429' } });
    const second = await post(server, { messages: [] });
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(second.headers.get('x-extra')).toBe('yes');
    expect(await second.text()).toBe('overloaded');
  });

  it('cuts a stream after K events', async () => {
    const server = await serve([{ content: 'one two three', disconnectAfter: 2 }]);
    const res = await post(server, { stream: true, messages: [] });
    await expect(res.text()).rejects.toThrow();
  });

  it('reports unplayed steps and requests past the end', async () => {
    const server = await serve([{ content: 'only' }, { content: 'unused' }]);
    await post(server, { messages: [] });
    expect(server.remaining()).toBe(1);
    expect(() => server.assertConsumed()).toThrow('1 of 2 scenario steps were not played');
    await post(server, { messages: [] });
    const extra = await post(server, { messages: [] });
    expect(extra.status).toBe(400);
    expect(await extra.text()).toContain('the scenario has no step left');
    expect(() => server.assertConsumed()).toThrow('1 request(s) arrived after the scenario ran out');
  });

  it('does not spend a step on other paths', async () => {
    const server = await serve([{ content: 'kept' }]);
    expect((await fetch(`${server.baseURL}/models`)).status).toBe(200);
    expect((await fetch(`${server.baseURL}/embeddings`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect(server.remaining()).toBe(1);
    expect(server.requests.map((r) => [r.path, r.step])).toEqual([['/v1/models', -1], ['/v1/embeddings', -1]]);
  });

  it('works with the real openai SDK, streaming and not', async () => {
    const server = await serve(loadScenario('tool-calls-then-answer'));
    const sdk = new OpenAI({ baseURL: server.baseURL, apiKey: 'not-needed', maxRetries: 0 });
    const first = await sdk.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'go' }] });
    expect(first.choices[0]?.message.tool_calls?.map((c) => (c.type === 'function' ? c.function.name : ''))).toEqual(['read_file', 'list_dir']);
    expect(first.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 30 });
    const stream = await sdk.chat.completions.create({ model: 'm', stream: true, messages: [{ role: 'user', content: 'go' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('The project has a README and a src folder with two files.');
    server.assertConsumed();
  });
});

describe('scenario files', () => {
  const files = readdirSync(SCENARIO_DIR).filter((f) => f.endsWith('.json'));

  it('has some', () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
  });

  it.each(files)('%s is a valid scenario', (file) => {
    const scenario = loadScenario(file);
    expect(scenario.steps.length).toBeGreaterThan(0);
  });

  it('refuses unknown fields, naming where', () => {
    expect(() => parseScenario({ steps: [{ content: 'x' }, { contnet: 'typo' }] })).toThrow(/invalid scenario at steps\.1/);
    expect(() => parseScenario({ steps: [{ status: 200 }] })).toThrow(/invalid scenario/);
  });
});
