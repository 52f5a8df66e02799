import { describe, expect, it } from 'vitest';
import type { LlmRequest } from '../core/llm.js';
import { requestHash } from '../agent/request-delta.js';
import { fromSdkMessage, toLlmRequest, toSdkParams } from './sdk-request.js';

describe('toLlmRequest', () => {
  it('is the inverse of toSdkParams for our own requests', () => {
    const request: LlmRequest = {
      model: 'm',
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
      tools: [{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' } } }],
      stream: true,
      maxTokens: 100,
      temperature: 0.5,
    };
    expect(toLlmRequest({ ...toSdkParams(request), stream: true })).toEqual(request);
  });

  it('reads max_completion_tokens before max_tokens, and leaves absent parameters out', () => {
    expect(toLlmRequest({ model: 'm', messages: [], max_tokens: 5, max_completion_tokens: 7 })).toEqual({
      model: 'm', messages: [], stream: false, maxTokens: 7,
    });
    expect(toLlmRequest({ model: 'm', messages: [], max_tokens: null, temperature: null })).toEqual({ model: 'm', messages: [], stream: false });
  });

  it('folds content parts into text; different non-text parts hash differently', () => {
    const image = (url: string): Parameters<typeof fromSdkMessage>[0] => ({
      role: 'user',
      content: [{ type: 'text', text: 'look:' }, { type: 'image_url', image_url: { url } }],
    });
    const a = fromSdkMessage(image('https://x/a.png'));
    const b = fromSdkMessage(image('https://x/b.png'));
    expect(a.content).toMatch(/^look:\n\[image_url [0-9a-f]{16}\]$/);
    expect(a.content).not.toBe(b.content);
    const hash = (content: string | null): string => requestHash({ model: 'm', messages: [{ role: 'user', content: content ?? '' }], stream: false });
    expect(hash(a.content)).not.toBe(hash(b.content));
  });

  it('maps the roles and tools we do not model onto ours', () => {
    expect(fromSdkMessage({ role: 'developer', content: 'rules' })).toEqual({ role: 'system', content: 'rules' });
    expect(fromSdkMessage({ role: 'function', name: 'f', content: 'out' })).toEqual({ role: 'tool', tool_call_id: 'function:f', content: 'out' });
    expect(
      fromSdkMessage({
        role: 'assistant',
        content: [{ type: 'text', text: 'a' }, { type: 'refusal', refusal: 'no' }],
        tool_calls: [{ id: 'c', type: 'custom', custom: { name: 'g', input: 'raw' } }],
      }),
    ).toEqual({
      role: 'assistant',
      content: 'a\nno',
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'g', arguments: 'raw' } }],
    });
    expect(fromSdkMessage({ role: 'assistant' })).toEqual({ role: 'assistant', content: null });
    const request = toLlmRequest({
      model: 'm',
      messages: [],
      tools: [
        { type: 'function', function: { name: 'f' } },
        { type: 'custom', custom: { name: 'g', description: 'grammar tool', format: { type: 'text' } } },
      ],
    });
    expect(request.tools).toEqual([
      { type: 'function', function: { name: 'f', description: '', parameters: {} } },
      { type: 'function', function: { name: 'g', description: 'grammar tool', parameters: { format: { type: 'text' } } } },
    ]);
  });
});
