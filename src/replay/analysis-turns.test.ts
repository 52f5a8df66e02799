import { describe, expect, it } from 'vitest';
import type { LlmRequestEvent } from '../core/events.js';
import type { ChatMessage } from '../core/messages.js';
import { TurnTracker } from './analysis-turns.js';

const request = (prefix: number, append: ChatMessage[]): LlmRequestEvent => ({
  seq: 0, step: 0, t: 0, type: 'llm_request', iteration: 0, hash: '0'.repeat(64), prefix, append, model: 'm', stream: false, tools: [],
});
const answer: ChatMessage = { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 't', arguments: '{}' } }] };

describe('TurnTracker', () => {
  it('a user message sent after the last answer starts a turn; tool results do not', () => {
    const turns = new TurnTracker();
    expect(turns.request(request(0, [{ role: 'system', content: 's' }, { role: 'user', content: 'go' }]))).toBe(true);
    expect(turns.request(request(2, [answer, { role: 'tool', tool_call_id: 'c', content: 'r' }]))).toBe(false);
    expect(turns.request(request(4, [{ role: 'assistant', content: 'done' }, { role: 'user', content: 'more' }]))).toBe(true);
  });

  it('a context trimmed and sent again from the turn\'s user message is the same turn', () => {
    const turns = new TurnTracker();
    turns.request(request(0, [{ role: 'system', content: 's' }, { role: 'user', content: 'go' }]));
    turns.request(request(2, [answer, { role: 'tool', tool_call_id: 'c', content: 'r' }]));
    expect(turns.request(request(1, [{ role: 'user', content: 'go' }, answer, { role: 'tool', tool_call_id: 'c', content: 'r' }]))).toBe(false);
  });

  it('a message the built-in loop marked internal, or an input item kept as a placeholder, is nobody\'s new message', () => {
    const turns = new TurnTracker();
    turns.request(request(0, [{ role: 'user', content: 'go' }]));
    expect(turns.request(request(1, [{ role: 'assistant', content: 'and so' }, { role: 'user', content: 'Continue', internal: { reason: 'max_tokens_recovery' } }]))).toBe(false);
    expect(turns.request(request(3, [answer, { role: 'user', content: '[reasoning 0123456789abcdef]' }]))).toBe(false);
  });
});
