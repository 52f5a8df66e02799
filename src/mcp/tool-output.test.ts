/**
 * What a model reads of an MCP tool's answer, and how the tape's tool_result says it ended: text
 * parts joined, other parts named, `isError` an error, a JSON-RPC error its message, a time-out a
 * time-out, and a call the server never answered an error with the caller's words.
 */
import { describe, expect, it } from 'vitest';
import { RPC_ERRORS } from './protocol.js';
import { resultInput } from './tape-writes.js';
import { toolOutputText } from './tool-output.js';

describe('toolOutputText', () => {
  it('joins the text parts and names the others', () => {
    const result = {
      content: [
        { type: 'text', text: 'first' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } },
        { type: 'resource_link', uri: 'file:///b.txt', name: 'b' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'text', text: 'last' },
      ],
    };
    expect(toolOutputText(result)).toEqual({ text: 'first\n[image image/png]\n[resource file:///a.txt]\n[resource file:///b.txt]\n[audio audio/wav]\nlast', isError: false });
  });

  it('says an answer with isError is an error, and reads structured content when there is no content', () => {
    expect(toolOutputText({ content: [{ type: 'text', text: 'no such file' }], isError: true })).toEqual({ text: 'no such file', isError: true });
    expect(toolOutputText({ content: [], structuredContent: { b: 1, a: [2] } })).toEqual({ text: '{"a":[2],"b":1}', isError: false });
  });
});

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
