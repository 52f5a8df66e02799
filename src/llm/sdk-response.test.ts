import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { LlmChunk, LlmResponse } from '../core/llm.js';
import { chunksFromRecorded, chunksFromResponse, completionFromResponse, responseFromCompletion } from './sdk-response.js';
import { StreamAccumulator } from './stream-accumulator.js';

const labels = { id: 'chatcmpl-x', created: 1_700_000_000, model: 'asked-model' };

const withCalls: LlmResponse = {
  message: {
    role: 'assistant',
    content: 'Looking.',
    tool_calls: [
      { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
      { id: 'c2', type: 'function', function: { name: 'list_dir', arguments: '{}' } },
    ],
  },
  finishReason: 'tool_calls',
  usage: { inputTokens: 12, outputTokens: 7 },
  model: 'served-model',
};

/** Feed SDK chunks through the accumulator the recorder uses, as a stream would. */
function accumulate(chunks: ChatCompletionChunk[]): { response: LlmResponse; recorded: LlmChunk[] } {
  const acc = new StreamAccumulator();
  const recorded: LlmChunk[] = [];
  chunks.forEach((chunk, i) => {
    const out = acc.add(chunk, i);
    if (out !== undefined) recorded.push(out);
  });
  recorded.push(acc.terminal(chunks.length));
  return { response: acc.response(), recorded };
}

describe('completions', () => {
  it('round-trips a response through a ChatCompletion', () => {
    const completion = completionFromResponse(withCalls, labels);
    expect(completion).toMatchObject({ id: 'chatcmpl-x', object: 'chat.completion', created: 1_700_000_000, model: 'served-model' });
    expect(completion.usage).toEqual({ prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 });
    expect(responseFromCompletion(completion)).toEqual(withCalls);
  });

  it('names the asked model when the response has none; an unknown finish reason becomes what the message suggests', () => {
    const response: LlmResponse = { message: { role: 'assistant', content: 'x' }, finishReason: 'unknown', usage: { inputTokens: 0, outputTokens: 0 } };
    const completion = completionFromResponse(response, labels);
    expect(completion.model).toBe('asked-model');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it('has no response for a completion without choices', () => {
    expect(responseFromCompletion({ ...completionFromResponse(withCalls, labels), choices: [] })).toBeUndefined();
  });
});

describe('chunks', () => {
  it('synthesizes a stream that accumulates to the response, with usage only when asked', () => {
    const chunks = chunksFromResponse(withCalls, labels, true);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 7 } });
    expect(accumulate(chunks).response).toEqual(withCalls);
    expect(chunksFromResponse(withCalls, labels, false).some((c) => c.usage !== undefined)).toBe(false);
  });

  it('rebuilds recorded chunks into SDK chunks that record the same again', () => {
    const first = accumulate(chunksFromResponse(withCalls, labels, true));
    const rebuilt = chunksFromRecorded(first.recorded, first.response, labels, true);
    const second = accumulate(rebuilt);
    expect(second.response).toEqual(withCalls);
    expect(second.recorded).toEqual(first.recorded);
    expect(rebuilt[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
  });

  it('keeps a missing finish reason missing', () => {
    const recorded: LlmChunk[] = [
      { index: 0, offsetMs: 1, content: 'cut', finished: false },
      { index: 1, offsetMs: 2, finished: true, finishReason: 'stop' },
    ];
    const response: LlmResponse = { message: { role: 'assistant', content: 'cut' }, finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } };
    const rebuilt = chunksFromRecorded(recorded, response, labels, false);
    expect(rebuilt.map((c) => c.choices[0]?.finish_reason)).toEqual([null, null]);
  });
});
