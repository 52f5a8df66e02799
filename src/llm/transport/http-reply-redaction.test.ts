/**
 * A body as the library and the proxy record it is redacted by the one redactor, wherever its text
 * sits: a JSON body's strings (a tool call's arguments, JSON text inside the body), a text body that
 * is JSON text written as text, and a key at the start of a line of a file's content in either.
 */
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../core/redact.js';
import { COMMON_SECRETS } from '../../core/test-support/secrets.js';
import { recordedBody } from './http-reply.js';

const redact = createRedactor({ secrets: ['pa"ss\\word-held-in-env'] });
const key = (COMMON_SECRETS['github classic token'] as { secret: string }).secret;
const webhook = COMMON_SECRETS['slack webhook'] as { text: string; secret: string };
const content = `# keys\n${key}\nPW=pa"ss\\word-held-in-env\nhook: ${webhook.text}\n`;
const request = {
  model: 'm',
  messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'write_file', arguments: JSON.stringify({ path: '.env', content }) } }] }],
};
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
/** The JSON text of the request with `/` written `\/`, as some servers write it. */
const slashed = JSON.stringify(request).replace(/\//g, '\\/');

describe('recordedBody', () => {
  it('redacts a key in a JSON body\'s tool call arguments, at the start of a line of their content', () => {
    const { body } = recordedBody(bytes(slashed), 'application/json', redact, 'request');
    const args = JSON.parse((body as typeof request).messages[0]?.tool_calls[0]?.function.arguments as string) as { content: string };
    expect(args.content).toBe(`# keys\n${REDACTED}\nPW=${REDACTED}\nhook: https://${REDACTED}\n`);
  });

  it('redacts the same in a text body that holds the JSON text, where it is JSON text inside JSON text', () => {
    const { body } = recordedBody(bytes(slashed), 'text/plain', redact, 'reply');
    expect(typeof body).toBe('string');
    for (const part of [key, 'word-held', webhook.secret.slice(-10)]) expect(body as string).not.toContain(part);
    const sent = JSON.parse(body as string) as typeof request;
    const args = JSON.parse(sent.messages[0]?.tool_calls[0]?.function.arguments as string) as { content: string };
    expect(args.content).toBe(`# keys\n${REDACTED}\nPW=${REDACTED}\nhook: https://${REDACTED}\n`);
  });
});
