import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { readCallTape } from './call-tape.js';

/** A tape's tool events, from a script: `call <id> <item>` and `result <id> <item>` (the result names the item it is for). */
function toolEvents(script: readonly string[]): RunEvent[] {
  return script.map((line, seq): RunEvent => {
    const [kind, callId = '', item = ''] = line.split(' ');
    const base = { seq, step: 0, t: seq };
    return kind === 'call'
      ? { ...base, type: 'tool_call', callId, tool: 'reserve', arguments: JSON.stringify({ item }), key: `key-${item}` }
      : { ...base, type: 'tool_result', callId, tool: 'reserve', status: 'ok', output: JSON.stringify({ item }), durationMs: 1 };
  });
}

/** Per tool_call, in tape order: its item and the item of the result it got (undefined: none). */
async function pairs(script: readonly string[]): Promise<Array<[string, string | undefined]>> {
  const { tools } = await readCallTape(toolEvents(script));
  const itemOf = (text: string): string => (JSON.parse(text) as { item: string }).item;
  return tools.map((o) => [itemOf(o.call.arguments), o.result === undefined ? undefined : itemOf(o.result.output)]);
}

describe('readCallTape: tool results and their calls', () => {
  it('ids of their own: each result goes to its call, whatever order the results came in', async () => {
    expect(await pairs(['call reserve:0 a', 'call reserve:1 b', 'call reserve:2 c', 'result reserve:1 b', 'result reserve:2 c', 'result reserve:0 a'])).toEqual([
      ['a', 'a'],
      ['b', 'b'],
      ['c', 'c'],
    ]);
  });

  it('an id reused by calls one after another (a tape of per-wrapper ids, one agent run at a time): each result goes to its own call', async () => {
    expect(await pairs(['call reserve:0 a', 'result reserve:0 a', 'call reserve:0 b', 'result reserve:0 b', 'call reserve:1 c', 'result reserve:1 c'])).toEqual([
      ['a', 'a'],
      ['b', 'b'],
      ['c', 'c'],
    ]);
  });

  it('an id reused by calls that overlapped: which result is whose is unknown, so neither gets one; a call of the id after both results gets its own', async () => {
    expect(await pairs(['call reserve:0 a', 'call reserve:0 b', 'result reserve:0 b', 'result reserve:0 a', 'call reserve:0 c', 'result reserve:0 c'])).toEqual([
      ['a', undefined],
      ['b', undefined],
      ['c', 'c'],
    ]);
  });

  it('a result still owed to overlapping calls is not given to a call of the id that began before it came', async () => {
    // The second and third results may be a's, b's or c's: none of the three can be given one.
    expect(await pairs(['call reserve:0 a', 'call reserve:0 b', 'result reserve:0 a', 'call reserve:0 c', 'result reserve:0 b', 'result reserve:0 c'])).toEqual([
      ['a', undefined],
      ['b', undefined],
      ['c', undefined],
    ]);
  });

  it('a result with no call of its id, or a second result for an answered call, is given to no call', async () => {
    expect(await pairs(['result reserve:9 z', 'call reserve:0 a', 'result reserve:0 a', 'result reserve:0 b'])).toEqual([['a', 'a']]);
  });
});
