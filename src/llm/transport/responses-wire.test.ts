import { describe, expect, it } from 'vitest';
// The replies are checked against the real SDK, which only src/llm and src/library import in the code itself.

import { OpenAI } from 'openai';
import type { LlmChunk, LlmResponse } from '../../core/llm.js';
import { requestHash } from '../../agent/request-delta.js';
import { responsesWire } from './responses-wire.js';
import type { ReplyLabels, SseEvent } from './wire.js';

const labels: ReplyLabels = { id: 'resp_replay_run_1', created: 1_700_000_000, model: 'gpt-test' };

const textAndCalls: LlmResponse = {
  message: {
    role: 'assistant',
    content: 'Checking both.',
    tool_calls: [
      { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
      { id: 'call_b', type: 'function', function: { name: 'list_dir', arguments: '{"dir":"."}' } },
    ],
  },
  finishReason: 'tool_calls',
  usage: { inputTokens: 12, outputTokens: 7 },
  model: 'gpt-test-2025',
};

const textOnly: LlmResponse = {
  message: { role: 'assistant', content: 'Hello there.' },
  finishReason: 'stop',
  usage: { inputTokens: 3, outputTokens: 2 },
  model: 'gpt-test-2025',
};

/** Events through a fresh stream reader: the chunks it returned, then its terminal chunk, and the reader. */
function readBack(events: readonly SseEvent[]) {
  const stream = responsesWire.stream();
  const chunks = events.flatMap((event, i) => {
    const chunk = stream.add(event, i * 10);
    return chunk === undefined ? [] : [chunk];
  });
  return { stream, chunks, terminal: stream.terminal(999) };
}

function sseBody(events: readonly SseEvent[]): string {
  return events.map((event) => `event: ${event.event ?? 'message'}\ndata: ${event.data}\n\n`).join('');
}

/** A client whose every request is answered with `body` (JSON) or `events` (SSE). */
function client(reply: { body: unknown } | { events: SseEvent[] }): OpenAI {
  return new OpenAI({
    apiKey: 'x',
    baseURL: 'http://127.0.0.1:1',
    maxRetries: 0,
    fetch: async () =>
      'body' in reply
        ? new Response(JSON.stringify(reply.body), { headers: { 'content-type': 'application/json' } })
        : new Response(sseBody(reply.events), { headers: { 'content-type': 'text/event-stream' } }),
  });
}

describe('responsesWire.request', () => {
  it('maps instructions, a string input and the fields LlmRequest has', () => {
    expect(responsesWire.request({ model: 'm', instructions: 'Be brief.', input: 'hi', max_output_tokens: 50, temperature: 0.2, stream: true })).toEqual({
      model: 'm',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }],
      stream: true,
      maxTokens: 50,
      temperature: 0.2,
      endpoint: 'responses',
      // Also as params: the tape keeps them there, so a divergence can name them.
      params: { max_output_tokens: 50, temperature: 0.2 },
    });
    expect(responsesWire.request({ model: 'm', input: 'hi', stream: 'yes' }).stream).toBe(false);
  });

  it('maps message items and merges function calls with the assistant message before them', () => {
    const request = responsesWire.request({
      model: 'm',
      input: [
        { role: 'developer', content: 'rules' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_text', text: 'here' }] },
        { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'On it.', annotations: [] }] },
        { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'f', arguments: '{"x":1}', status: 'completed' },
        { type: 'function_call', id: 'fc_2', call_id: 'c2', name: 'g', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'one' },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'two' }] },
        { type: 'function_call', call_id: 'c3', name: 'h', arguments: '' },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: 'rules' },
      { role: 'user', content: 'look\nhere' },
      {
        role: 'assistant',
        content: 'On it.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
          { id: 'c2', type: 'function', function: { name: 'g', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      { role: 'tool', tool_call_id: 'c2', content: 'two' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c3', type: 'function', function: { name: 'h', arguments: '' } }] },
      { role: 'assistant', content: 'no' },
    ]);
  });

  it('turns items and parts it has no place for into placeholders that differ by content', () => {
    const withItem = (item: Record<string, unknown>) => responsesWire.request({ model: 'm', input: [item, { role: 'user', content: 'go' }] });
    const a = withItem({ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'think A' }] });
    const b = withItem({ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'think B' }] });
    expect(a.messages[0]).toEqual({ role: 'user', content: expect.stringMatching(/^\[reasoning [0-9a-f]{16}\]$/) as unknown });
    expect(a.messages[0]).not.toEqual(b.messages[0]);
    expect(requestHash(a)).not.toBe(requestHash(b));
    expect(withItem({ id: 'msg_9' }).messages[0]?.content).toMatch(/^\[item_reference [0-9a-f]{16}\]$/);

    const image = (url: string) => responsesWire.request({
      model: 'm',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'see:' }, { type: 'input_image', image_url: url, detail: 'auto' }] }],
    }).messages[0]?.content;
    expect(image('https://x/a.png')).toMatch(/^see:\n\[input_image [0-9a-f]{16}\]$/);
    expect(image('https://x/a.png')).not.toBe(image('https://x/b.png'));
  });

  it('maps function tools and keeps other tools whole, so they hash', () => {
    const request = responsesWire.request({
      model: 'm',
      input: 'hi',
      tools: [
        { type: 'function', name: 'f', description: 'does f', parameters: { type: 'object' }, strict: true },
        { type: 'function', name: 'g', parameters: null, strict: null },
        { type: 'web_search', search_context_size: 'low' },
      ],
    });
    expect(request.tools).toEqual([
      { type: 'function', function: { name: 'f', description: 'does f', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'g', description: '', parameters: {} } },
      { type: 'function', function: { name: 'web_search', description: '', parameters: { type: 'web_search', search_context_size: 'low' } } },
    ]);
  });

  it('keeps the fields that affect the answer in params and leaves out the ones that label or route it', () => {
    const request = responsesWire.request({
      model: 'm',
      input: 'hi',
      instructions: null,
      top_p: 0.9,
      tool_choice: { type: 'function', name: 'f' },
      reasoning: { effort: 'low' },
      text: { format: { type: 'json_object' } },
      parallel_tool_calls: false,
      previous_response_id: 'resp_0',
      truncation: 'auto',
      include: ['reasoning.encrypted_content'],
      user: 'u',
      metadata: { k: 'v' },
      store: false,
      stream_options: { include_obfuscation: false },
      service_tier: 'flex',
      prompt_cache_key: 'k',
      safety_identifier: 's',
      background: false,
      temperature: undefined,
    });
    expect(request.params).toEqual({
      top_p: 0.9,
      tool_choice: { type: 'function', name: 'f' },
      reasoning: { effort: 'low' },
      text: { format: { type: 'json_object' } },
      parallel_tool_calls: false,
      previous_response_id: 'resp_0',
      truncation: 'auto',
      include: ['reasoning.encrypted_content'],
    });
    expect(responsesWire.request({ model: 'm', input: 'hi', user: 'u' }).params).toBeUndefined();
  });

  it('rejects a body that is not a Responses API request', () => {
    expect(() => responsesWire.request({ model: 'm', messages: [] })).toThrow(TypeError);
    expect(() => responsesWire.request({ input: 'hi' })).toThrow(TypeError);
  });
});

describe('responsesWire.response', () => {
  it('reads text, refusals, function calls, usage and model', () => {
    expect(responsesWire.response({
      model: 'gpt-x',
      status: 'completed',
      output: [
        { type: 'reasoning', id: 'rs', summary: [] },
        { type: 'message', id: 'm', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'a', annotations: [] }, { type: 'refusal', refusal: 'b' }] },
        { type: 'function_call', id: 'fc', call_id: 'c1', name: 'f', arguments: '{}', status: 'completed' },
      ],
      usage: { input_tokens: 5, output_tokens: 6, total_tokens: 11 },
    })).toEqual({
      message: { role: 'assistant', content: 'ab', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      finishReason: 'tool_calls',
      usage: { inputTokens: 5, outputTokens: 6 },
      model: 'gpt-x',
    });
  });

  it('reads why an incomplete response stopped, and defaults what is absent', () => {
    const incomplete = (reason: string) => responsesWire.response({
      model: '',
      status: 'incomplete',
      incomplete_details: { reason },
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'cut' }] }],
    });
    expect(incomplete('max_output_tokens')).toEqual({ message: { role: 'assistant', content: 'cut' }, finishReason: 'length', usage: { inputTokens: 0, outputTokens: 0 } });
    expect(incomplete('content_filter').finishReason).toBe('content_filter');
    expect(responsesWire.response({ status: 'completed', output: [] })).toEqual({
      message: { role: 'assistant', content: null }, finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 },
    });
    expect(() => responsesWire.response({ choices: [] })).toThrow(TypeError);
  });

  it('reads back what replyBody wrote', () => {
    expect(responsesWire.response(responsesWire.replyBody(textAndCalls, labels))).toEqual(textAndCalls);
    const truncated: LlmResponse = { ...textOnly, finishReason: 'length' };
    expect(responsesWire.replyBody(truncated, labels)).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(responsesWire.response(responsesWire.replyBody(truncated, labels))).toEqual(truncated);
  });
});

describe('responsesWire.stream', () => {
  it('reads the events replyEvents writes back into the same response, chunk by chunk', () => {
    const events = responsesWire.replyEvents(textAndCalls, labels, { model: 'm', input: 'hi', stream: true });
    const { stream, chunks, terminal } = readBack(events);
    expect(stream.done).toBe(true);
    expect(stream.hasFinishReason).toBe(true);
    expect(stream.response()).toEqual(textAndCalls);
    expect(chunks.map(({ content, toolCalls }) => ({ content, toolCalls }))).toEqual([
      { content: 'Checking both.', toolCalls: undefined },
      { content: undefined, toolCalls: [{ index: 0, id: 'call_a', name: 'read_file' }] },
      { content: undefined, toolCalls: [{ index: 0, arguments: '{"path":"a.txt"}' }] },
      { content: undefined, toolCalls: [{ index: 1, id: 'call_b', name: 'list_dir' }] },
      { content: undefined, toolCalls: [{ index: 1, arguments: '{"dir":"."}' }] },
    ]);
    expect(chunks.map((chunk) => chunk.index)).toEqual([0, 1, 2, 3, 4]);
    expect(chunks.every((chunk) => !chunk.finished)).toBe(true);
    expect(terminal).toEqual({ index: 5, offsetMs: 999, finished: true, finishReason: 'tool_calls' });
  });

  it('cuts the text and arguments where the recorded chunks were cut', () => {
    const recorded: LlmChunk[] = [
      { index: 0, offsetMs: 1, content: 'Checking ', finished: false },
      { index: 1, offsetMs: 2, content: 'both.', finished: false },
      { index: 2, offsetMs: 3, toolCalls: [{ index: 0, id: 'call_a', name: 'read_file', arguments: '{"path":' }], finished: false },
      { index: 3, offsetMs: 4, toolCalls: [{ index: 0, arguments: '"a.txt"}' }, { index: 1, id: 'call_b', name: 'list_dir', arguments: '{"dir":"."}' }], finished: false },
      { index: 4, offsetMs: 5, finishReason: 'tool_calls', finished: true },
    ];
    const events = responsesWire.replyEvents(textAndCalls, labels, {}, recorded);
    const deltas = (type: string) =>
      events.filter((event) => event.event === type).map((event) => (JSON.parse(event.data) as { delta: string }).delta);
    expect(deltas('response.output_text.delta')).toEqual(['Checking ', 'both.']);
    expect(deltas('response.function_call_arguments.delta')).toEqual(['{"path":', '"a.txt"}', '{"dir":"."}']);
    expect(readBack(events).stream.response()).toEqual(textAndCalls);
  });

  it('numbers the events and names each by its type', () => {
    const events = responsesWire.replyEvents(textAndCalls, labels, {});
    const data = events.map((event) => JSON.parse(event.data) as { type: string; sequence_number: number });
    expect(data.map((d) => d.sequence_number)).toEqual(data.map((_, i) => i));
    expect(events.map((event) => event.event)).toEqual(data.map((d) => d.type));
    expect(data.map((d) => d.type)).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.done',
      'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
      'response.completed',
    ]);
  });

  it('ends a reply cut short by the token limit with response.incomplete, read back as length', () => {
    const truncated: LlmResponse = { ...textOnly, finishReason: 'length' };
    const events = responsesWire.replyEvents(truncated, labels, {});
    expect(events.at(-1)?.event).toBe('response.incomplete');
    const { stream, terminal } = readBack(events);
    expect(stream.hasFinishReason).toBe(true);
    expect(stream.response()).toEqual(truncated);
    expect(terminal.finishReason).toBe('length');
  });

  it('falls back to the deltas when no final response arrived, and skips what adds nothing', () => {
    const stream = responsesWire.stream();
    const add = (data: unknown) => stream.add({ data: JSON.stringify(data) }, 1);
    expect(stream.add({ data: 'not json' }, 0)).toBeUndefined();
    expect(add({ type: 'response.created', response: { model: 'gpt-y', output: [] } })).toBeUndefined();
    expect(add({ type: 'response.output_text.delta', output_index: 0, content_index: 0, delta: 'Hi' })).toMatchObject({ index: 0, content: 'Hi' });
    expect(add({ type: 'response.output_item.added', output_index: 1, item: { type: 'function_call', call_id: 'c9', name: 'f', arguments: '' } }))
      .toMatchObject({ index: 1, toolCalls: [{ index: 0, id: 'c9', name: 'f' }] });
    expect(add({ type: 'response.function_call_arguments.delta', output_index: 1, delta: '{}' }))
      .toMatchObject({ index: 2, toolCalls: [{ index: 0, arguments: '{}' }] });
    expect(add({ type: 'response.output_text.done', output_index: 0, text: 'Hi' })).toBeUndefined();
    expect(stream.done).toBe(false);
    expect(stream.hasFinishReason).toBe(false);
    expect(stream.terminal(5, 'connection reset')).toEqual({ index: 3, offsetMs: 5, finished: true, error: 'connection reset' });
    expect(stream.response()).toEqual({
      message: { role: 'assistant', content: 'Hi', tool_calls: [{ id: 'c9', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      finishReason: 'tool_calls',
      usage: { inputTokens: 0, outputTokens: 0 },
      model: 'gpt-y',
    });
  });

  it('is done but has no finish reason after response.failed', () => {
    const stream = responsesWire.stream();
    stream.add({ event: 'response.failed', data: JSON.stringify({ type: 'response.failed', response: { status: 'failed', output: [] } }) }, 0);
    expect(stream.done).toBe(true);
    expect(stream.hasFinishReason).toBe(false);
  });
});

describe('responsesWire replies through the openai SDK', () => {
  it('responses.create reads replyBody', async () => {
    const response = await client({ body: responsesWire.replyBody(textAndCalls, labels) }).responses.create({ model: 'm', input: 'hi' });
    expect(response.output_text).toBe('Checking both.');
    expect(response.id).toBe(labels.id);
    expect(response.model).toBe('gpt-test-2025');
    expect(response.output.filter((item) => item.type === 'function_call').map((item) => item.call_id)).toEqual(['call_a', 'call_b']);
    expect(response.usage?.total_tokens).toBe(19);
  });

  it('responses.create with stream: true yields replyEvents, ending with the whole reply', async () => {
    const events = responsesWire.replyEvents(textAndCalls, labels, { stream: true });
    const stream = await client({ events }).responses.create({ model: 'm', input: 'hi', stream: true });
    let text = '';
    let last: OpenAI.Responses.ResponseStreamEvent | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      last = event;
    }
    expect(text).toBe('Checking both.');
    expect(last?.type).toBe('response.completed');
    expect(last?.type === 'response.completed' ? responsesWire.response(last.response) : undefined).toEqual(textAndCalls);
  });

  it('responses.stream accumulates replyEvents into the same final response', async () => {
    const events = responsesWire.replyEvents(textAndCalls, labels, { stream: true });
    const snapshots: string[] = [];
    const stream = client({ events }).responses.stream({ model: 'm', input: 'hi' });
    stream.on('response.output_text.delta', (event) => snapshots.push(event.snapshot));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('Checking both.');
    expect(snapshots).toEqual(['Checking both.']);
    expect(responsesWire.response(final)).toEqual(textAndCalls);
  });

  it('responses.stream accumulates a reply streamed from recorded chunks', async () => {
    const recorded: LlmChunk[] = [
      { index: 0, offsetMs: 1, content: 'Hello ', finished: false },
      { index: 1, offsetMs: 2, content: 'there.', finished: false },
      { index: 2, offsetMs: 3, finishReason: 'stop', finished: true },
    ];
    const events = responsesWire.replyEvents(textOnly, labels, { stream: true }, recorded);
    const final = await client({ events }).responses.stream({ model: 'm', input: 'hi' }).finalResponse();
    expect(final.output_text).toBe('Hello there.');
    expect(responsesWire.response(final)).toEqual(textOnly);
  });
});
