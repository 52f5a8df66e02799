/** How the tape's tool_result says an MCP answer ended: a result, isError, a JSON-RPC error, a time-out, no answer. */
import { describe, expect, it } from 'vitest';
import { RPC_ERRORS } from './protocol.js';
import { resultInput } from './tape-writes.js';

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
