import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { outgoingRequest, sendResponse } from './forward.js';
import { mapPath, route, type Route } from './routes.js';

describe('mapPath', () => {
  it.each([
    ['http://127.0.0.1:1234/v1', '/v1/chat/completions', 'http://127.0.0.1:1234/v1/chat/completions'],
    ['http://127.0.0.1:1234', '/v1/chat/completions', 'http://127.0.0.1:1234/chat/completions'],
    ['https://example.test/v1beta/openai', '/v1/chat/completions?x=1', 'https://example.test/v1beta/openai/chat/completions?x=1'],
    // Anthropic's clients and upstreams have no /v1 in their base URL: the path keeps its own.
    ['https://api.anthropic.com', '/v1/messages', 'https://api.anthropic.com/v1/messages'],
    ['http://127.0.0.1:1234/', '/v1/messages?beta=true', 'http://127.0.0.1:1234/v1/messages?beta=true'],
    ['http://127.0.0.1:1234/v1', '/v1/messages', 'http://127.0.0.1:1234/v1/messages'],
    ['http://127.0.0.1:1234/v1/', '/v1/messages', 'http://127.0.0.1:1234/v1/messages'],
  ])('%s + %s → %s', (base, path, target) => {
    expect(mapPath(new URL(base), path).href).toBe(target);
  });
});

describe('outgoingRequest', () => {
  const request = (headers: Record<string, string>, url = '/v1/messages'): IncomingMessage => ({ method: 'POST', url, headers }) as unknown as IncomingMessage;
  const url = new URL('http://127.0.0.1:1234/v1/messages');
  const target = (key: string | undefined, header: 'x-api-key' | 'authorization' = 'authorization'): Route => ({ url, credential: key === undefined ? undefined : { key, header } });
  const signal = new AbortController().signal;

  it('puts the upstream key where the client put its own: x-api-key for a client that sent one', () => {
    const out = outgoingRequest(request({ 'x-api-key': 'client-key', 'anthropic-version': '2023-06-01' }), Buffer.from('{}'), target('upstream-key'), signal);
    expect(out.init.headers.get('x-api-key')).toBe('upstream-key');
    expect(out.init.headers.get('authorization')).toBeNull();
    expect(out.init.headers.get('anthropic-version')).toBe('2023-06-01');
  });

  it('else as a bearer token, the client key dropped', () => {
    const out = outgoingRequest(request({ authorization: 'Bearer client-key' }), Buffer.from('{}'), target('upstream-key'), signal);
    expect(out.init.headers.get('authorization')).toBe('Bearer upstream-key');
    expect(out.init.headers.get('x-api-key')).toBeNull();
  });

  it('an OpenAI path gets a bearer token even from a client that also sent x-api-key', () => {
    const out = outgoingRequest(request({ 'x-api-key': 'client-key' }, '/v1/chat/completions'), Buffer.from('{}'), target('upstream-key'), signal);
    expect(out.init.headers.get('authorization')).toBe('Bearer upstream-key');
    expect(out.init.headers.get('x-api-key')).toBeNull();
  });

  it('on the Anthropic route, in x-api-key whatever the client sent', () => {
    const out = outgoingRequest(request({ authorization: 'Bearer client-key' }), Buffer.from('{}'), target('upstream-key', 'x-api-key'), signal);
    expect(out.init.headers.get('x-api-key')).toBe('upstream-key');
    expect(out.init.headers.get('authorization')).toBeNull();
  });

  it('with no upstream key, neither header goes on', () => {
    const out = outgoingRequest(request({ 'x-api-key': 'client-key' }), Buffer.from('{}'), target(undefined), signal);
    expect(out.init.headers.get('x-api-key')).toBeNull();
  });
});

describe('sendResponse', () => {
  let server: Server | undefined;
  afterEach(async () => {
    const running = server;
    server = undefined;
    if (running === undefined) return;
    running.closeAllConnections();
    await new Promise((resolve) => running.close(resolve));
  });

  /** A local server that answers with `answer(res)`; the client's reply, once its headers are in. */
  async function call(answer: (res: ServerResponse) => Promise<void>): Promise<IncomingMessage> {
    server = createServer((_req, res) => void answer(res));
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    return new Promise((resolve, reject) => get(`http://127.0.0.1:${port}/`, resolve).on('error', reject));
  }

  const text = async (reply: IncomingMessage): Promise<string> => {
    let out = '';
    reply.setEncoding('utf8');
    for await (const part of reply) out += part as string;
    return out;
  };

  it('sends the headers with the first chunk when it is already there: no write of the headers alone', async () => {
    let flushed = 0;
    const reply = await call(async (res) => {
      const flush = res.flushHeaders.bind(res);
      res.flushHeaders = () => {
        flushed++;
        flush();
      };
      await sendResponse(res, new Response('data: one\n\n', { headers: { 'content-type': 'text/event-stream' } }));
    });
    expect(reply.headers['content-type']).toBe('text/event-stream');
    expect(await text(reply)).toBe('data: one\n\n');
    expect(flushed).toBe(0);
  });

  it('sends the headers at once when the first chunk is not there yet', async () => {
    let first: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (first = controller) });
    // Resolves only once the client has the headers, while the body has nothing yet.
    const reply = await call((res) => sendResponse(res, new Response(body, { headers: { 'content-type': 'text/event-stream' } })));
    expect(reply.statusCode).toBe(200);
    first?.enqueue(new TextEncoder().encode('data: late\n\n'));
    first?.close();
    expect(await text(reply)).toBe('data: late\n\n');
  });
});

describe('route', () => {
  const table = {
    openai: { url: new URL('http://127.0.0.1:1234/v1'), apiKey: 'openai-key' },
    anthropic: { url: new URL('https://api.anthropic.com'), apiKey: 'anthropic-key' },
  };

  it('gives the Anthropic route its key in x-api-key, every other path the OpenAI key as a bearer token', () => {
    expect(route(table, '/v1/messages?beta=true')).toEqual({ url: new URL('https://api.anthropic.com/v1/messages?beta=true'), credential: { key: 'anthropic-key', header: 'x-api-key' } });
    expect(route(table, '/v1/messages/count_tokens').credential).toEqual({ key: 'anthropic-key', header: 'x-api-key' });
    expect(route(table, '/v1/chat/completions')).toEqual({ url: new URL('http://127.0.0.1:1234/v1/chat/completions'), credential: { key: 'openai-key', header: 'authorization' } });
    expect(route(table, '/v1/messagesx').credential?.header).toBe('authorization');
  });

  it('an empty key is no key: nothing is set', () => {
    expect(route({ openai: { url: table.openai.url, apiKey: '' } }, '/v1/chat/completions').credential).toBeUndefined();
    expect(route({ ...table, anthropic: { url: table.anthropic.url, apiKey: '' } }, '/v1/messages').credential).toBeUndefined();
  });
});
