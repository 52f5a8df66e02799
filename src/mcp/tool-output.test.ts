import { describe, expect, it } from 'vitest';
import { mcpToolOutput } from './tool-output.js';

describe('mcpToolOutput', () => {
  it('joins the text parts with a newline', () => {
    expect(mcpToolOutput({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] })).toEqual({ isError: false, text: 'a\nb' });
  });

  it('names images, audio, resources and resource links instead of their bytes', () => {
    const result = {
      content: [
        { type: 'text', text: 'see:' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } },
        { type: 'resource_link', uri: 'file:///b.txt', name: 'b' },
        { type: 'something_new' },
      ],
    };
    expect(mcpToolOutput(result).text).toBe('see:\n[image image/png]\n[audio audio/wav]\n[resource file:///a.txt]\n[resource file:///b.txt]\n[something_new]');
  });

  it('shows structured content as JSON when there is no text', () => {
    expect(mcpToolOutput({ content: [], structuredContent: { n: 1 } }).text).toBe('{"n":1}');
    expect(mcpToolOutput({ content: [{ type: 'text', text: 'one' }], structuredContent: { n: 1 } }).text).toBe('one');
  });

  it('reads isError as a tool error, and a result without content as empty', () => {
    expect(mcpToolOutput({ content: [{ type: 'text', text: 'no such file' }], isError: true })).toEqual({ isError: true, text: 'no such file' });
    expect(mcpToolOutput({})).toEqual({ isError: false, text: '' });
  });
});
