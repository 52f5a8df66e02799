/** What the tape holds of an MCP exchange: how a tool_result says an answer ended (a result, isError, a JSON-RPC error, a time-out, no answer), a reply's notifications, a call's arguments. */
import { describe, expect, it } from 'vitest';
import { RPC_ERRORS } from './protocol.js';
import { callOf, replyOf, resultInput } from './tape-writes.js';

describe('the tool_result of an MCP answer', () => {
  const of = (reply: Parameters<typeof resultInput>[3]) => resultInput('srv', 'c1', 'tool', reply, 5, 'no answer');
  it('is ok for a result, error for isError or a JSON-RPC error, timeout for a time-out, and error with no answer', () => {
    expect(of({ result: { content: [{ type: 'text', text: 'fine' }] } })).toMatchObject({ status: 'ok', output: 'fine' });
    expect(of({ result: { content: [{ type: 'text', text: 'bad' }], isError: true } })).toMatchObject({ status: 'error', output: 'bad' });
    expect(of({ error: { code: RPC_ERRORS.internal, message: 'broke' } })).toMatchObject({ status: 'error', output: 'broke' });
    expect(of({ error: { code: RPC_ERRORS.requestTimeout, message: 'late' } })).toMatchObject({ status: 'timeout', output: 'late' });
    expect(of({})).toMatchObject({ status: 'error', output: 'no answer', mcp: {} });
  });
});

describe('what a request and a reply put on the tape', () => {
  it('a reply without notifications holds no notifications list; with them, each as method and params', () => {
    expect(replyOf({ jsonrpc: '2.0', id: 1, result: { a: 1 } }, [])).toEqual({ result: { a: 1 } });
    expect(replyOf(undefined, [])).toEqual({});
    expect(replyOf(undefined, [{ method: 'notifications/progress', params: { progress: 1 } }])).toEqual({ notifications: [{ method: 'notifications/progress', params: { progress: 1 } }] });
  });

  it('a tool call\'s arguments are an object, else none', () => {
    expect(callOf({ name: 'look', arguments: { at: 'a' } })).toEqual({ tool: 'look', args: { at: 'a' } });
    expect(callOf({ name: 'look', arguments: ['a'] })).toEqual({ tool: 'look', args: {} });
    expect(callOf({ name: 3, arguments: null })).toEqual({ tool: '', args: {} });
  });
});
