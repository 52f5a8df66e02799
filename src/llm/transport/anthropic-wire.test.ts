import { describe, expect, it } from 'vitest';
import { requestHash } from '../../agent/request-delta.js';
import type { LlmResponse } from '../../core/llm.js';
import { anthropicWire } from './anthropic-wire.js';
import { wireFor } from './http-reply.js';
import type { SseEvent } from './wire.js';

const labels = { id: 'msg_replay_run_1', created: 1_700_000_000, model: 'claude-test' };

describe('anthropicWire.request', () => {
  it('folds system, text, tool use and tool results into our messages, with the answer-affecting fields in params', () => {
    const request = anthropicWire.request({
      model: 'claude-test',
      max_tokens: 256,
      temperature: 0.2,
      top_k: 5,
      metadata: { user_id: 'u-1' },
      service_tier: 'auto',
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      tools: [
        { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
      ],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { unit: 'C', city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '18C' }] },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: 'no such city', is_error: true },
            { type: 'text', text: 'And tomorrow?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    expect(request.endpoint).toBe('messages');
    expect(request.model).toBe('claude-test');
    expect(request.stream).toBe(false);
    expect(request.maxTokens).toBe(256);
    expect(request.temperature).toBe(0.2);
    expect(request.params).toEqual({ max_tokens: 256, temperature: 0.2, top_k: 5 });
    expect(request.tools?.map((t) => t.function.name)).toEqual(['get_weather', 'web_search_20250305']);
    expect(request.tools?.[0]?.function.parameters).toEqual({ type: 'object', properties: { city: { type: 'string' } } });
    const [system, user, assistant, tool1, tool2, last] = request.messages;
    expect(system).toEqual({ role: 'system', content: 'Be brief.' });
    expect(user).toEqual({ role: 'user', content: 'Weather in Paris?' });
    expect(assistant).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"C"}' } }] });
    expect(assistant?.content).toMatch(/^\[thinking [0-9a-f]{16}\]\nLet me check\.$/);
    expect(tool1).toEqual({ role: 'tool', tool_call_id: 'toolu_1', content: '18C' });
    expect(tool2).toEqual({ role: 'tool', tool_call_id: 'toolu_2', content: '[error] no such city' });
    expect(last?.role).toBe('user');
    expect(last?.content).toMatch(/^And tomorrow\?\n\[image [0-9a-f]{16}\]$/);
    expect(request.messages).toHaveLength(6);
  });

  it('reads a different image (or tool input key order) as a different (or the same) request', () => {
    const body = (data: string, input: Record<string, unknown>): Record<string, unknown> => ({
      model: 'm',
      max_tokens: 1,
      messages: [
        { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input }] },
      ],
    });
    const a = anthropicWire.request(body('AAAA', { a: 1, b: 2 }));
    expect(anthropicWire.request(body('AAAA', { b: 2, a: 1 }))).toEqual(a);
    expect(anthropicWire.request(body('BBBB', { a: 1, b: 2 })).messages[0]).not.toEqual(a.messages[0]);
  });

  it('hashes every part of a body that can change the answer: a request changed anywhere is not served as the recorded one', () => {
    const base = {
      model: 'm',
      max_tokens: 64,
      system: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }],
      tools: [
        { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object' } },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
      ],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: 'It is 18C.' },
        { role: 'user', content: { type: 'note', text: 'an object, not blocks' } },
        'not a message',
        { role: 'user', content: [{ type: 'search_result', text: 'found', title: 'A' }] },
      ],
    };
    const hash = (body: Record<string, unknown>): string => requestHash(anthropicWire.request(body));
    const tools = base.tools;
    const messages = base.messages;
    const changed: Array<[string, Record<string, unknown>]> = [
      ['system blocks split differently', { ...base, system: [{ type: 'text', text: 'ab' }] }],
      ['a tool description', { ...base, tools: [{ ...tools[0], description: 'Weather for a town' }, tools[1]] }],
      ['a server tool setting', { ...base, tools: [tools[0], { ...tools[1], max_uses: 5 }] }],
      ['an assistant message given as a string', { ...base, messages: [messages[0], { role: 'assistant', content: 'It is 25C.' }, ...messages.slice(2)] }],
      ['user content that is neither text nor blocks', { ...base, messages: [messages[0], messages[1], { role: 'user', content: { type: 'note', text: 'another' } }, ...messages.slice(3)] }],
      ['a message that is no object', { ...base, messages: [...messages.slice(0, 3), 'another non-message', messages[4]] }],
      ['a block with text and more', { ...base, messages: [...messages.slice(0, 4), { role: 'user', content: [{ type: 'search_result', text: 'found', title: 'B' }] }] }],
    ];
    const recorded = hash(base);
    expect(hash(structuredClone(base))).toBe(recorded);
    for (const [what, body] of changed) expect(hash(body), what).not.toBe(recorded);
    expect(anthropicWire.request(base).messages[2]).toEqual({ role: 'assistant', content: 'It is 18C.' });
  });

  it('keeps the blocks of a user message in order around its tool results', () => {
    const request = anthropicWire.request({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'before' }, { type: 'tool_result', tool_use_id: 't', content: 'r' }, { type: 'text', text: 'after' }] }],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: 'before' },
      { role: 'tool', tool_call_id: 't', content: 'r' },
      { role: 'user', content: 'after' },
    ]);
  });

  it('refuses a body that is not a Messages API request', () => {
    expect(() => anthropicWire.request({ model: 'm', input: 'hi' })).toThrow(TypeError);
  });

  it('is chosen for POST …/v1/messages only', () => {
    expect(wireFor('POST', '/v1/messages')?.endpoint).toBe('messages');
    expect(wireFor('POST', '/anthropic/v1/messages/')?.endpoint).toBe('messages');
    expect(wireFor('POST', '/v1/threads/thread_1/messages')).toBeUndefined();
    expect(wireFor('POST', '/v1/messages/count_tokens')).toBeUndefined();
    expect(wireFor('GET', '/v1/messages')).toBeUndefined();
  });
});

describe('anthropicWire.response', () => {
  it('reads text, tool use, the stop reason and the usage (cache tokens counted in the input)', () => {
    const response = anthropicWire.response({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test-2',
      content: [
        { type: 'thinking', thinking: 'x', signature: 's' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 10, cache_creation_input_tokens: 3, cache_read_input_tokens: 100, output_tokens: 7 },
    });
    expect(response).toEqual({
      message: { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      finishReason: 'tool_calls',
      usage: { inputTokens: 113, outputTokens: 7 },
      model: 'claude-test-2',
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['refusal', 'content_filter'],
    ['tool_use', 'tool_calls'],
  ] as const)('stop_reason %s is finish reason %s', (stop, finish) => {
    expect(anthropicWire.response({ content: [{ type: 'text', text: 'x' }], stop_reason: stop }).finishReason).toBe(finish);
  });

  it('refuses a body with no content', () => {
    expect(() => anthropicWire.response({ choices: [] })).toThrow(TypeError);
  });
});

/** A streamed tool-use reply, as the API sends it. */
const STREAM: SseEvent[] = [
  { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, usage: { input_tokens: 20, cache_read_input_tokens: 5, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'ping' },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me ' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'check.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ' "Paris"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 12 } },
  { type: 'message_stop' },
].map((data) => ({ event: data.type, data: JSON.stringify(data) }));

describe('anthropicWire.stream', () => {
  it('adds a streamed reply up: text and tool-call chunks, the stop reason, the usage', () => {
    const stream = anthropicWire.stream();
    const chunks = STREAM.map((event, i) => stream.add(event, i)).filter((c) => c !== undefined);
    expect(chunks.map((c) => c.content ?? c.toolCalls)).toEqual([
      'Let me ',
      'check.',
      [{ index: 0, id: 'toolu_1', name: 'get_weather' }],
      [{ index: 0, arguments: '{"city":' }],
      [{ index: 0, arguments: ' "Paris"}' }],
    ]);
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2, 3, 4]);
    expect(stream.done).toBe(true);
    expect(stream.hasFinishReason).toBe(true);
    expect(stream.error).toBeUndefined();
    expect(stream.terminal(99)).toEqual({ index: 5, offsetMs: 99, finished: true, finishReason: 'tool_calls' });
    expect(stream.response()).toEqual({
      message: { role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
      finishReason: 'tool_calls',
      usage: { inputTokens: 25, outputTokens: 12 },
      model: 'claude-test',
    });
  });

  it('reads text a content_block_start already carries', () => {
    const stream = anthropicWire.stream();
    const chunk = stream.add({ event: 'content_block_start', data: JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'Hi' } }) }, 0);
    expect(chunk).toMatchObject({ content: 'Hi' });
    expect(stream.response().message.content).toBe('Hi');
  });

  it('an error event fails the stream', () => {
    const stream = anthropicWire.stream();
    stream.add(STREAM[0] as SseEvent, 0);
    stream.add({ event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) }, 1);
    expect(stream.done).toBe(true);
    expect(stream.hasFinishReason).toBe(false);
    expect(stream.error).toBe('overloaded_error: Overloaded');
    expect(stream.terminal(2)).toEqual({ index: 0, offsetMs: 2, finished: true, error: 'overloaded_error: Overloaded' });
  });
});

describe('anthropicWire replies', () => {
  const response: LlmResponse = {
    message: { role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
    finishReason: 'tool_calls',
    usage: { inputTokens: 25, outputTokens: 12 },
  };

  it('writes the Message body the SDK reads', () => {
    expect(anthropicWire.replyBody(response, labels)).toEqual({
      id: 'msg_replay_run_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [
        { type: 'text', text: 'Let me check.', citations: null },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 25, output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    expect(anthropicWire.replyBody({ ...response, message: { role: 'assistant', content: 'cut', tool_calls: [] }, finishReason: 'length' }, labels)).toMatchObject({ stop_reason: 'max_tokens' });
  });

  it('writes events that read back as the same response, cut where the recorded chunks were', () => {
    const recorded = anthropicWire.stream();
    const chunks = STREAM.map((event, i) => recorded.add(event, i)).filter((c) => c !== undefined);
    const events = anthropicWire.replyEvents(response, labels, {}, chunks);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    // A tool_use block starts with an empty input, as the API sends it: its input comes in the deltas.
    expect((JSON.parse(events[5]?.data ?? '') as { content_block: unknown }).content_block).toEqual({ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} });
    const again = anthropicWire.stream();
    for (const [i, event] of events.entries()) again.add(event, i);
    expect(again.response()).toEqual({ ...response, model: 'claude-test' });
    expect(again.done).toBe(true);
  });
});
