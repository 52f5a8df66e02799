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

describe('reading recorded calls: where a provider warning belongs', () => {
  const base = { seq: 0, t: 0 };
  const request = (step: number): RunEvent => ({
    ...base, type: 'llm_request', step, iteration: step, hash: 'a'.repeat(64), prefix: 0, append: [], model: 'm', stream: true, tools: [],
  });
  const chunk = (step: number, index: number): RunEvent => ({
    ...base, type: 'llm_chunk', step, iteration: step, attempt: 0, chunk: { index, offsetMs: index, finished: index > 0, ...(index > 0 ? {} : { content: 'x' }) },
  });
  const response = (step: number): RunEvent => ({
    ...base, type: 'llm_response', step, iteration: step, attempt: 0, durationMs: 1,
    response: { message: { role: 'assistant', content: 'x' }, finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
  });
  const warning = (step: number, message: string): RunEvent => ({ ...base, type: 'warning', step, message });

  it('a warning after an attempt\'s stream and before its outcome is that attempt\'s; one after the outcome, or before any stream, is nobody\'s', async () => {
    const tape = await readCallTape([
      warning(0, 'context trimmed'), request(0), chunk(0, 0), chunk(0, 1), warning(0, 'closed without a finish reason'), response(0),
      warning(1, 'context trimmed again'), request(1), chunk(1, 0), chunk(1, 1), response(1),
    ]);
    const streams = tape.calls.map((c) => c.attempts.map((a) => a.stream.map((e) => (e.type === 'warning' ? e.message : `chunk ${e.chunk.index}`))));
    expect(streams).toEqual([[['chunk 0', 'chunk 1', 'closed without a finish reason']], [['chunk 0', 'chunk 1']]]);
    expect(tape.calls.map((c) => c.attempts.map((a) => a.warnings))).toEqual([[['closed without a finish reason']], [[]]]);
  });
});

describe('readCallTape: MCP traffic', () => {
  const base = { step: 0, t: 0 };
  const events: RunEvent[] = [
    { ...base, seq: 0, type: 'mcp_exchange', server: 'memory', from: 'client', method: 'initialize', params: {}, reply: { result: {} } },
    { ...base, seq: 1, type: 'tool_call', callId: 'reserve:0', tool: 'reserve', arguments: '{"item":"a"}', key: 'key-a' },
    { ...base, seq: 2, type: 'tool_call', callId: 'memory/read_graph:0', tool: 'reserve', arguments: '{"item":"a"}', key: 'key-a', server: 'memory' },
    { ...base, seq: 3, type: 'mcp_exchange', server: 'files', from: 'server', method: 'notifications/message' },
    { ...base, seq: 4, type: 'tool_result', callId: 'memory/read_graph:0', tool: 'reserve', status: 'ok', output: 'mcp', durationMs: 1, server: 'memory' },
    { ...base, seq: 5, type: 'tool_result', callId: 'reserve:0', tool: 'reserve', status: 'ok', output: '"own"', durationMs: 1 },
  ];

  it('collects the MCP servers\' events in tape order, apart from recordTool\'s calls (a tool of the same name and key included)', async () => {
    const tape = await readCallTape(events);
    expect(tape.mcp.map((e) => e.seq)).toEqual([0, 2, 3, 4]);
    expect(tape.tools.map((o) => [o.call.seq, o.result?.output])).toEqual([[1, '"own"']]);
  });
});
