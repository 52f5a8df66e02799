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
import { matchCall, matchRequest } from './replay-match.js';

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
});
