import { describe, expect, it } from 'vitest';
import type { LlmRequest } from '../core/llm.js';
import { firstDifference } from './request-diff.js';

const base: LlmRequest = {
  model: 'm',
  messages: [
    { role: 'system', content: 's' },
    { role: 'user', content: 'u' },
  ],
  tools: [{ type: 'function', function: { name: 'f', description: '', parameters: {} } }],
  stream: false,
};
const recorded = { model: 'm', messages: base.messages, stream: false, tools: ['f'] };

describe('firstDifference', () => {
  it('names the first differing message and field', () => {
    const replayed = { ...base, messages: [base.messages[0]!, { role: 'user' as const, content: 'v' }, { role: 'user' as const, content: 'w' }] };
    expect(firstDifference(recorded, replayed)).toEqual({ messageIndex: 1, path: 'messages[1].content', recorded: 'u', replayed: 'v' });
  });

  it('names a message that exists on one side only', () => {
    const replayed = { ...base, messages: [...base.messages, { role: 'user' as const, content: 'more' }] };
    expect(firstDifference(recorded, replayed)).toEqual({ messageIndex: 2, path: 'messages[2]', recorded: undefined, replayed: { role: 'user', content: 'more' } });
  });

  it('falls back to model, stream, tool names, then the other parameters', () => {
    expect(firstDifference(recorded, { ...base, model: 'n' })).toMatchObject({ messageIndex: null, path: 'model', recorded: 'm', replayed: 'n' });
    expect(firstDifference(recorded, { ...base, stream: true })).toMatchObject({ path: 'stream' });
    expect(firstDifference(recorded, { ...base, tools: [] })).toMatchObject({ path: 'tools', recorded: ['f'], replayed: [] });
    expect(firstDifference(recorded, { ...base, temperature: 1 })).toMatchObject({ path: 'parameters' });
  });
});
