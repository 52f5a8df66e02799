import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { httpFetch } from './http-fetch.js';
import { asRequest } from './request-body.js';

let server: Server | undefined;
afterEach(async () => {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

/** A local server answering with `handle`; its base URL. */
async function serve(handle: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => handle(req, body, res));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('httpFetch', () => {
  it('drops what still arrives after the reader cancelled: no enqueue on a closed stream, on a plain or a compressed reply', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    const url = await serve((req, _body, res) => {
      const gzip = req.url === '/gzip';
      res.writeHead(200, gzip ? { 'content-encoding': 'gzip' } : {});
      // A burst well past what the reader takes before it cancels, in one go.
      res.end(gzip ? gzipSync(chunk.repeat(64)) : chunk.repeat(64));
    });
    const errors: unknown[] = [];
    const caught = (error: unknown): void => void errors.push(error);
    process.on('uncaughtException', caught);
    try {
      for (const path of ['/plain', '/gzip', '/plain', '/gzip']) {
        const response = await httpFetch(new Request(url + path));
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        await reader.read();
        await reader.cancel();
        // Whatever the socket or the decoder had read already arrives on the next turns of the loop.
        for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      process.off('uncaughtException', caught);
    }
    expect(errors).toEqual([]);
  });

  it('sends the method, headers and body of a Request, and gives back the status, headers and body as sent', async () => {
    const base = await serve((req, body, res) => {
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-seen': `${req.method} ${req.url} ${req.headers.authorization} ${req.headers['content-length']}` });
      res.end(JSON.stringify({ echo: body }));
    });
    const reply = await httpFetch(new Request(`${base}/v1/things?x=1`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: 'hé' }));
    expect(reply.status).toBe(201);
    expect(reply.statusText).toBe('Made');
    expect(reply.headers.get('x-seen')).toBe('POST /v1/things?x=1 Bearer k 3');
    expect(await reply.json()).toEqual({ echo: 'hé' });
  });

  it('passes a stream on piece by piece, before it ends', async () => {
    let finish: () => void = () => undefined;
    const base = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      finish = () => res.end('data: [DONE]\n\n');
    });
    const reply = await httpFetch(`${base}/v1/chat/completions`, { method: 'POST', body: '{}' });
    const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: one\n\n');
    finish();
    let rest = '';
    for (let next = await reader.read(); next.done !== true; next = await reader.read()) rest += new TextDecoder().decode(next.value);
    expect(rest).toBe('data: [DONE]\n\n');
  });

  it('decodes a body the server compressed', async () => {
    const base = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(gzipSync('plain words'));
    });
    expect(await (await httpFetch(`${base}/x`)).text()).toBe('plain words');
  });

  it('gives no body for a 204 or a HEAD', async () => {
    const base = await serve((req, _body, res) => {
      res.writeHead(req.method === 'HEAD' ? 200 : 204, { 'content-type': 'text/plain', 'content-length': '5' });
      res.end();
    });
    expect((await httpFetch(`${base}/x`, { method: 'DELETE' })).body).toBeNull();
    expect((await httpFetch(`${base}/x`, { method: 'HEAD' })).body).toBeNull();
  });

  it('breaks the body with "terminated" when the connection closes before the reply ends', async () => {
    const base = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n', () => res.destroy());
    });
    const reply = await httpFetch(`${base}/x`);
    await expect(reply.text()).rejects.toThrow('terminated');
  });

  it('fails with "fetch failed" when nothing answers, and with the signal\'s reason when aborted', async () => {
    await expect(httpFetch('http://127.0.0.1:9/x')).rejects.toThrow('fetch failed');
    const base = await serve(() => undefined);
    const controller = new AbortController();
    const call = httpFetch(`${base}/x`, { signal: controller.signal });
    controller.abort(new Error('the client went away'));
    await expect(call).rejects.toThrow('the client went away');
  });

  it('aborting after the headers breaks the body with the signal\'s reason', async () => {
    const base = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
    });
    const controller = new AbortController();
    const reply = await httpFetch(`${base}/x`, { signal: controller.signal });
    const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort(new Error('stopped'));
    await expect(reader.read()).rejects.toThrow('stopped');
  });

  it('sends only http(s)', async () => {
    await expect(httpFetch('data:,x')).rejects.toThrow('data: URLs are not sent upstream');
  });
});

describe('asRequest', () => {
  it('is the Request itself when that is all a fetch was given, else a new one', () => {
    const request = new Request('http://127.0.0.1:1/x');
    expect(asRequest(request)).toBe(request);
    expect(asRequest(request, { method: 'POST' })).not.toBe(request);
    expect(asRequest('http://127.0.0.1:1/x').url).toBe('http://127.0.0.1:1/x');
  });
});
