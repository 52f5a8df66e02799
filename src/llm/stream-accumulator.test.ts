import { describe, expect, it } from 'vitest';
import { mapFinishReason, StreamAccumulator } from './stream-accumulator.js';

describe('StreamAccumulator', () => {
  it('skips chunks that add nothing and numbers the rest, terminal chunk last', () => {
    const acc = new StreamAccumulator();
    expect(acc.add({ choices: [{ delta: { role: 'assistant', content: '' } }] }, 0)).toBeUndefined();
    expect(acc.add({ choices: [{ delta: { content: 'Hi' } }] }, 5)).toEqual({ index: 0, offsetMs: 5, content: 'Hi', finished: false });
    expect(acc.add({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } }, 6)).toBeUndefined();
    expect(acc.terminal(7)).toEqual({ index: 1, offsetMs: 7, finished: true, finishReason: 'stop' });
    expect(() => acc.terminal(8)).toThrow(/twice/);
    expect(acc.response()).toEqual({
      message: { role: 'assistant', content: 'Hi' },
      finishReason: 'stop',
      usage: { inputTokens: 3, outputTokens: 1 },
    });
  });

  it('with several answers asked for (n > 1), keeps the first: the others are not more of it', () => {
    const acc = new StreamAccumulator();
    acc.add({ choices: [{ index: 0, delta: { content: 'Alpha' } }] }, 1);
    acc.add({ choices: [{ index: 1, delta: { content: 'Beta' } }] }, 2);
    acc.add({ choices: [{ index: 1, delta: {}, finish_reason: 'stop' }, { index: 0, delta: { content: '!' }, finish_reason: 'stop' }] }, 3);
    acc.terminal(4);
    expect(acc.response().message.content).toBe('Alpha!');
  });

  it('knows whether any chunk carried a choice, and reads chunks without choices without failing', () => {
    const acc = new StreamAccumulator();
    expect(acc.add({ hello: 'world' } as never, 0)).toBeUndefined();
    expect(acc.add({ choices: null }, 1)).toBeUndefined();
    expect(acc.add({ choices: [null] }, 2)).toBeUndefined();
    expect(acc.add({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 0 } }, 3)).toBeUndefined();
    expect(acc.hasChoices).toBe(false);
    acc.add({ choices: [{ delta: { role: 'assistant', content: '' } }] }, 4);
    expect(acc.hasChoices).toBe(true);
    const finishOnly = new StreamAccumulator();
    finishOnly.add({ choices: [{ finish_reason: 'stop' }] }, 0);
    expect(finishOnly.hasChoices).toBe(true);
  });

  it('joins tool-call fragments by index, even interleaved, and fills in missing ids', () => {
    const acc = new StreamAccumulator();
    const call = (index: number, fn: { name?: string; arguments?: string }, id?: string) =>
      ({ choices: [{ delta: { tool_calls: [{ index, id, function: fn }] } }] });
    acc.add(call(1, { name: 'b', arguments: '{"x"' }), 0);
    acc.add(call(0, { name: 'a', arguments: '' }, 'id_a'), 0);
    acc.add(call(1, { arguments: ':1}' }), 0);
    acc.add(call(0, { arguments: '{}' }), 0);
    expect(acc.message()).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'id_a', type: 'function', function: { name: 'a', arguments: '{}' } },
        { id: 'call_1', type: 'function', function: { name: 'b', arguments: '{"x":1}' } },
      ],
    });
    expect(acc.terminal(0, 'boom')).toEqual({ index: 4, offsetMs: 0, finished: true, error: 'boom' });
    expect(acc.response().finishReason).toBe('tool_calls');
  });

  it('maps provider finish reasons', () => {
    expect(mapFinishReason('function_call')).toBe('tool_calls');
    expect(mapFinishReason('eos')).toBe('unknown');
    expect(mapFinishReason(null)).toBeUndefined();
  });
});
