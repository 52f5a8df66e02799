import { describe, expect, it } from 'vitest';
import type { LlmRequest } from '../core/llm.js';
import { requestDifference, viewOf } from './request-difference.js';

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
const diff = (replayed: LlmRequest): ReturnType<typeof requestDifference> => requestDifference(recorded, viewOf(replayed));

describe('requestDifference', () => {
  it('names the first differing message and field', () => {
    const replayed = { ...base, messages: [base.messages[0]!, { role: 'user' as const, content: 'v' }, { role: 'user' as const, content: 'w' }] };
    expect(diff(replayed)).toEqual({ messageIndex: 1, path: 'messages[1].content', recorded: 'u', replayed: 'v' });
  });

  it('names a message that exists on one side only', () => {
    const replayed = { ...base, messages: [...base.messages, { role: 'user' as const, content: 'more' }] };
    expect(diff(replayed)).toEqual({ messageIndex: 2, path: 'messages[2]', recorded: undefined, replayed: { role: 'user', content: 'more' } });
  });

  it('falls back to model, endpoint, stream, tool names, then each parameter by name', () => {
    expect(diff({ ...base, model: 'n' })).toMatchObject({ messageIndex: null, path: 'model', recorded: 'm', replayed: 'n' });
    expect(diff({ ...base, stream: true })).toMatchObject({ path: 'stream' });
    expect(diff({ ...base, tools: [] })).toMatchObject({ path: 'tools[0]', recorded: 'f', replayed: undefined });
    expect(diff({ ...base, endpoint: 'responses' })).toMatchObject({ path: 'endpoint', recorded: 'chat', replayed: 'responses' });
    expect(diff({ ...base, params: { top_p: 0.5 } })).toMatchObject({ path: 'params.top_p', recorded: undefined, replayed: 0.5 });
    expect(requestDifference({ ...recorded, params: { seed: 1, stop: ['x'] } }, viewOf({ ...base, params: { seed: 1, stop: ['y'] } })))
      .toMatchObject({ path: 'params.stop[0]', recorded: 'x', replayed: 'y' });
    expect(diff({ ...base, temperature: 1 })).toMatchObject({ path: 'tools (definitions) or parameters' });
  });
});
