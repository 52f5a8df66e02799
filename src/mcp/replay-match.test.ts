/**
 * Reading a server's recorded events and matching replayed requests to them, over hand-made tapes:
 * `initialize` by its method alone, the list methods by cursor, anything else by its params without
 * `_meta`, a request other than a tool call answered again once used, a tool call not; the server's
 * notifications outside a request kept for after the request before them; the tools' annotations
 * from the recorded lists; the marker of the server's unexpected end.
 */
import { describe, expect, it } from 'vitest';
import type { McpRecordedEvent } from './link.js';
import { looseAfter, readRecordedTape } from './recorded-tape.js';
import { matchCall, matchRequest, shown } from './replay-match.js';

let seq = 0;
const ex = (from: 'client' | 'server', method: string, params?: Record<string, unknown>, result?: Record<string, unknown>): McpRecordedEvent => ({
  type: 'mcp_exchange',
  seq: seq++,
  step: 0,
  t: 0,
  server: 'srv',
  from,
  method,
  ...(params === undefined ? {} : { params }),
  ...(result === undefined ? {} : { reply: { result } }),
});

const TAPE = [
  ex('client', 'initialize', { clientInfo: { name: 'recording-client' } }, { serverInfo: { name: 's' } }),
  ex('client', 'notifications/initialized'),
  ex('client', 'tools/list', {}, { tools: [{ name: 'look', annotations: { readOnlyHint: true } }, { name: 'write', annotations: { readOnlyHint: false } }], nextCursor: 'p2' }),
  ex('server', 'notifications/message', { level: 'info', data: 'listed' }),
  ex('client', 'tools/list', { cursor: 'p2' }, { tools: [{ name: 'late', annotations: { readOnlyHint: true, idempotentHint: false } }] }),
  ex('client', 'resources/read', { uri: 'file:///a', _meta: { progressToken: 1 } }, { contents: [] }),
  { type: 'tool_call', seq: seq++, step: 0, t: 0, callId: 'c1', tool: 'look', arguments: '{"at":"a"}', key: 'k-a', server: 'srv' },
  { type: 'tool_result', seq: seq++, step: 0, t: 0, callId: 'c1', tool: 'look', status: 'ok', output: 'A', durationMs: 1, server: 'srv' },
  ex('server', 'agentctl/server_ended', { reason: 'killed by SIGKILL' }),
] as McpRecordedEvent[];

describe('a recorded server tape', () => {
  it('holds the client requests in order, the loose notifications, the annotations and the end', () => {
    const tape = readRecordedTape(TAPE);
    expect(tape.entries.map((e) => (e.kind === 'call' ? `call ${e.tool}` : e.method))).toEqual(['initialize', 'tools/list', 'tools/list', 'resources/read', 'call look']);
    expect(tape.end).toEqual({ at: 8, reason: 'killed by SIGKILL' });
    // Each where its answer is: a call at its tool_result, with the recorded duration.
    expect(tape.entries.map((e) => e.at)).toEqual([0, 2, 4, 5, 7]);
    expect(tape.entries[4]).toMatchObject({ durationMs: 1 });
    expect(Object.fromEntries(tape.annotations)).toEqual({
      look: { readOnlyHint: true },
      write: { readOnlyHint: false },
      late: { readOnlyHint: true, idempotentHint: false },
    });
    const [, firstList] = tape.entries;
    expect(looseAfter(tape, firstList!).map((n) => n.method)).toEqual(['notifications/message']);
    expect(looseAfter(tape, tape.entries[0]!)).toEqual([]);
    // A tool result written without the MCP answer (the built-in loop's) is served as the text it was.
    expect(tape.entries[4]?.reply).toEqual({ result: { content: [{ type: 'text', text: 'A' }] } });
  });

  it('keeps no tool result without its call, and no answered request of the server\'s own as a notification to send again', () => {
    const tape = readRecordedTape([
      { type: 'tool_result', seq: 0, step: 0, t: 0, callId: 'lost', tool: 'look', status: 'ok', output: 'A', durationMs: 1, server: 'srv' },
      { ...ex('server', 'roots/list', {}), reply: { result: { roots: [] } } },
      ex('server', 'notifications/message', { level: 'info', data: 'hello' }),
    ] as McpRecordedEvent[]);
    expect(tape.entries).toEqual([]);
    expect(tape.loose.map((n) => n.method)).toEqual(['notifications/message']);
  });

  it('matches initialize by method, a list by cursor, other requests by params without _meta, and serves a used request again', () => {
    const tape = readRecordedTape(TAPE);
    const init = matchRequest(tape, 'initialize', { clientInfo: { name: 'another-client' } });
    expect('entry' in init && init.entry.reply?.result).toEqual({ serverInfo: { name: 's' } });
    const second = matchRequest(tape, 'tools/list', { cursor: 'p2' });
    expect('entry' in second && second.entry.at).toBe(4);
    // A list is its cursor's page, whatever else the client sends with it.
    const page = matchRequest(tape, 'tools/list', { cursor: 'p2', _other: true });
    expect('entry' in page && page.entry.at).toBe(4);
    const read = matchRequest(tape, 'resources/read', { uri: 'file:///a', _meta: { progressToken: 9 } });
    expect('entry' in read).toBe(true);
    if ('entry' in read) read.entry.used = true;
    expect('entry' in matchRequest(tape, 'resources/read', { uri: 'file:///a' })).toBe(true);
    expect(matchRequest(tape, 'resources/read', { uri: 'file:///b' })).toEqual({
      divergence: { message: 'resources/read: params.uri: recorded "file:///a", replayed "file:///b"', path: 'params.uri', recorded: 'file:///a', replayed: 'file:///b' },
    });
    // A replayed value is shown, never obeyed, by the terminal the line is printed on.
    const control = matchRequest(tape, 'resources/read', { uri: 'file:///\u009b2J' });
    expect('divergence' in control && control.divergence.message).toBe('resources/read: params.uri: recorded "file:///a", replayed "file:///\\u009b2J"');
    expect(matchRequest(tape, 'prompts/get', { name: 'p' })).toEqual({ divergence: { message: 'prompts/get: not on the tape' } });
  });

  it('matches a tool call by its key once, and names the first differing argument after', () => {
    const tape = readRecordedTape(TAPE);
    const first = matchCall(tape, 'look', 'k-a', { at: 'a' });
    expect('entry' in first).toBe(true);
    if ('entry' in first) first.entry.used = true;
    expect(matchCall(tape, 'look', 'k-a', { at: 'a' })).toEqual({
      divergence: { message: 'tools/call look: called more often than on the tape (each recorded call with these arguments was answered)' },
    });
    expect(matchCall(tape, 'look', 'k-b', { at: ['b'] })).toMatchObject({ divergence: { message: 'tools/call look: arguments.at: recorded "a", replayed ["b"]', path: 'arguments.at' } });
  });

  it('names the next recorded call not yet answered as the nearest, not one already answered', () => {
    const calls = (...ats: string[]): McpRecordedEvent[] =>
      ats.flatMap((at, i) => [
        { type: 'tool_call', seq: 2 * i, step: 0, t: 0, callId: `c${i}`, tool: 'look', arguments: JSON.stringify({ at }), key: `k-${at}`, server: 'srv' },
        { type: 'tool_result', seq: 2 * i + 1, step: 0, t: 0, callId: `c${i}`, tool: 'look', status: 'ok', output: at.toUpperCase(), durationMs: 1, server: 'srv' },
      ] as McpRecordedEvent[]);
    const tape = readRecordedTape(calls('a', 'b'));
    const first = matchCall(tape, 'look', 'k-a', { at: 'a' });
    if ('entry' in first) first.entry.used = true;
    expect(matchCall(tape, 'look', 'k-c', { at: 'c' })).toMatchObject({ divergence: { message: 'tools/call look: arguments.at: recorded "b", replayed "c"' } });
  });

  it('serves equal recorded requests in their order, each answer once, before serving the last again', () => {
    const tape = readRecordedTape([
      ex('client', 'resources/read', { uri: 'file:///a' }, { contents: [{ text: 'one' }] }),
      ex('client', 'resources/read', { uri: 'file:///a' }, { contents: [{ text: 'two' }] }),
    ]);
    const texts: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const read = matchRequest(tape, 'resources/read', { uri: 'file:///a' });
      if (!('entry' in read)) throw new Error('not served');
      read.entry.used = true;
      texts.push(read.entry.reply?.result?.['contents']);
    }
    expect(texts).toEqual([[{ text: 'one' }], [{ text: 'two' }], [{ text: 'one' }]]);
  });

  it('says "arguments" when the recorded arguments are not JSON, and cuts a long value short', () => {
    const tape = readRecordedTape([{ type: 'tool_call', seq: 0, step: 0, t: 0, callId: 'c', tool: 'look', arguments: 'not json', key: 'k-x', server: 'srv' }] as McpRecordedEvent[]);
    expect(matchCall(tape, 'look', 'k-y', { at: 'b' })).toMatchObject({ divergence: { message: 'tools/call look: arguments: recorded "not json", replayed {"at":"b"}', path: 'arguments' } });
    // Up to 80 characters as they are; longer, cut to 80.
    expect(shown('x'.repeat(78))).toBe(`"${'x'.repeat(78)}"`);
    expect(shown('x'.repeat(79))).toBe(`"${'x'.repeat(76)}...`);
    const long = 'x'.repeat(200);
    const cut = matchCall(tape, 'look', 'k-z', long);
    expect('divergence' in cut && cut.divergence.message).toBe(`tools/call look: arguments: recorded "not json", replayed "${'x'.repeat(76)}...`);
  });
  it('names the first differing param against the next unanswered request of the method, leaving the client\'s _meta out', () => {
    const tape = readRecordedTape([
      ex('client', 'resources/read', { uri: 'file:///a' }, { contents: [] }),
      ex('client', 'resources/read', { uri: 'file:///b' }, { contents: [] }),
    ]);
    const first = matchRequest(tape, 'resources/read', { uri: 'file:///a' });
    if ('entry' in first) first.entry.used = true;
    expect(matchRequest(tape, 'resources/read', { uri: 'file:///c', _meta: { progressToken: 3 } })).toMatchObject({
      divergence: { message: 'resources/read: params.uri: recorded "file:///b", replayed "file:///c"', path: 'params.uri' },
    });
  });
});
