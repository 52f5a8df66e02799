/**
 * The streamable HTTP transport's client side: against the reference server from npm
 * (server-everything in streamableHttp mode) for the handshake, calls, a reply streamed with its
 * progress and the session's end; against a small node:http server of the test's own for what a
 * real server does only when it goes wrong (a session that expired, an HTTP error, a stream that
 * breaks off, a body too large) and for the headers the client sends.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { httpUpstream } from './http-upstream.js';
import { MAX_MCP_MESSAGE_BYTES } from './protocol.js';
import { listenLocally } from './test-support/local-http.js';
import { startEverythingHttp, type EverythingHttp } from './test-support/everything-http.js';
import { portInbox } from './test-support/port-inbox.js';

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } } as const;
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' } as const;

/** A port whose messages, ends and noise are collected, with a way to await the next message. */
async function openPort(url: string, headers?: Record<string, string>) {
  const inbox = portInbox();
  const noise: string[] = [];
  const upstream = httpUpstream({ url, ...(headers === undefined ? {} : { headers }), onNoise: (problem) => noise.push(problem) });
  const port = await upstream.open(inbox.handlers);
  const { next, ended, reasons } = inbox;
  return { port, next, ended, reasons, noise, label: upstream.label };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('httpUpstream against server-everything', () => {
  let everything: EverythingHttp;

  it('carries the handshake, a call, a streamed call with its progress, and ends the session on close', async () => {
    everything = await startEverythingHttp();
    cleanups.push(() => everything.stop());
    const { port, next, ended, reasons } = await openPort(everything.url);
    cleanups.push(() => port.close());
    await port.send(INITIALIZE);
    expect(await next()).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18', serverInfo: { name: 'mcp-servers/everything' } } });
    await port.send(INITIALIZED);
    // A call the server answers only within the session the initialize reply opened.
    await port.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } });
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Echo: hi' }] } });
    await port.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'trigger-long-running-operation', arguments: { duration: 0.02, steps: 2 }, _meta: { progressToken: 'p' } },
    });
    // Its progress first, in order, then its reply.
    expect(await next()).toMatchObject({ method: 'notifications/progress', params: { progress: 1, total: 2, progressToken: 'p' } });
    expect(await next()).toMatchObject({ method: 'notifications/progress', params: { progress: 2, total: 2, progressToken: 'p' } });
    expect(await next()).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: expect.stringContaining('Long running operation completed') }] } });
    await port.close();
    expect(await ended).toBe('session closed');
    await expect(port.send({ jsonrpc: '2.0', id: 4, method: 'ping' })).rejects.toThrow(/has ended/);
    await port.close();
    expect(reasons).toEqual(['session closed']);
  });

  it('reports a server that went away as unreachable, once', async () => {
    everything = await startEverythingHttp();
    const { port, next, ended, reasons, label } = await openPort(everything.url);
    cleanups.push(() => port.close());
    await port.send(INITIALIZE);
    await next();
    await everything.stop();
    await expect(port.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).rejects.toThrow(`MCP server '${label}' is unreachable: connect ECONNREFUSED`);
    expect(await ended).toMatch(/^unreachable: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
    await expect(port.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).rejects.toThrow(/has ended/);
    await port.close();
    expect(reasons).toHaveLength(1);
  });
});

/** A node:http server of the test's own: each call is handed to `handle`, and recorded. */
async function ownServer(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const calls: Array<{ method: string; headers: IncomingMessage['headers']; body: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      calls.push({ method: req.method ?? '', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  const { url, close } = await listenLocally(server);
  cleanups.push(close);
  return { url, calls };
}

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
};

const initResult = { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'own', version: '1' } };

/** Answers initialize with session `s-1`; everything else by `rest`. */
function withSession(rest: (req: IncomingMessage, res: ServerResponse, message: { id?: number; method?: string }) => void) {
  return (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const message = body === '' ? {} : (JSON.parse(body) as { id?: number; method?: string });
    if (message.method === 'initialize') json(res, 200, { jsonrpc: '2.0', id: message.id, result: initResult }, { 'mcp-session-id': 's-1' });
    else rest(req, res, message);
  };
}

async function initialized(url: string, headers?: Record<string, string>) {
  const opened = await openPort(url, headers);
  cleanups.push(() => opened.port.close());
  await opened.port.send(INITIALIZE);
  await opened.next();
  return opened;
}

describe('httpUpstream against a server of its own', () => {
  it('sends the session id, the protocol version and the caller headers after the handshake, and DELETEs the session on close', async () => {
    const server = await ownServer(
      withSession((req, res, message) => {
        if (req.method === 'GET') {
          res.writeHead(405);
          res.end();
        } else if (req.method === 'DELETE') {
          res.writeHead(200);
          res.end();
        } else if (message.id === undefined) {
          res.writeHead(202);
          res.end();
        } else json(res, 200, { jsonrpc: '2.0', id: message.id, result: {} });
      }),
    );
    const { port, next, noise } = await initialized(server.url, { authorization: 'Bearer sekret' });
    await port.send(INITIALIZED);
    await port.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    await port.close();
    const [init, ...after] = server.calls;
    expect(init?.headers['mcp-session-id']).toBeUndefined();
    expect(init?.headers['mcp-protocol-version']).toBeUndefined();
    expect(init?.headers['accept']).toBe('application/json, text/event-stream');
    expect(init?.headers['content-type']).toBe('application/json');
    expect(after.map((c) => c.method).sort()).toEqual(['DELETE', 'GET', 'POST', 'POST']);
    for (const call of after) {
      expect(call.headers['mcp-session-id']).toBe('s-1');
      expect(call.headers['mcp-protocol-version']).toBe('2025-06-18');
      expect(call.headers['authorization']).toBe('Bearer sekret');
    }
    // 405 for the GET: the server has no stream of its own, which is no problem.
    expect(noise).toEqual([]);
  });

  it('hands on what the server says on its GET stream', async () => {
    const server = await ownServer(
      withSession((req, res) => {
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n');
        } else {
          res.writeHead(202);
          res.end();
        }
      }),
    );
    const { port, next } = await initialized(server.url);
    await port.send(INITIALIZED);
    expect(await next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  });

  it('ends the session as expired when the server answers 404 for it', async () => {
    const server = await ownServer(
      withSession((_req, res) => {
        res.writeHead(404);
        res.end();
      }),
    );
    const { port, ended, reasons } = await initialized(server.url);
    // Two calls under way when the session expires: the end is reported once.
    const sent = await Promise.allSettled([port.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), port.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' })]);
    expect(sent.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect(await ended).toBe('session expired');
    expect(reasons).toEqual(['session expired']);
  });

  it('answers a request the server refused with an HTTP error, and keeps the session', async () => {
    const server = await ownServer(
      withSession((_req, res, message) => {
        if (message.id === 2) {
          res.writeHead(500, 'Internal Server Error');
          res.end('oops');
        } else json(res, 400, { jsonrpc: '2.0', id: message.id, error: { code: -32600, message: 'bad' } });
      }),
    );
    const { port, next, label, reasons } = await initialized(server.url);
    await port.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32603, message: `agentctl: MCP server '${label}' answered HTTP 500 Internal Server Error` } });
    // An HTTP error whose body is the request's JSON-RPC error: that error.
    await port.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'bad' } });
    expect(reasons).toEqual([]);
  });

  it('answers a request whose reply stream breaks off after its progress', async () => {
    const server = await ownServer(
      withSession((_req, res, message) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`id: e1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${message.id},"progress":1}}\n\n`);
        res.write('data: {"jsonrpc":"2.0",', () => res.socket?.destroy());
      }),
    );
    const { port, next, label } = await initialized(server.url);
    await port.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow' } });
    expect(await next()).toMatchObject({ method: 'notifications/progress', params: { progress: 1 } });
    expect(await next()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32000, message: `agentctl: MCP server '${label}' broke off its reply stream before it answered (the connection closed)` },
    });
  });

  it('answers a request whose reply stream ends without its reply', async () => {
    const server = await ownServer(
      withSession((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(': nothing\n\n');
      }),
    );
    const { port, next, label } = await initialized(server.url);
    await port.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32000, message: `agentctl: MCP server '${label}' ended its reply stream before it answered` } });
  });

  it('refuses a reply body or an event longer than a message may be', async () => {
    const big = 'x'.repeat(MAX_MCP_MESSAGE_BYTES);
    const server = await ownServer(
      withSession((_req, res, message) => {
        if (message.id === 2) json(res, 200, { jsonrpc: '2.0', id: 2, result: { big } });
        else {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(`data: {"jsonrpc":"2.0","id":3,"result":{"big":"${big}"}}\n\n`);
        }
      }),
    );
    const { port, next, label } = await initialized(server.url);
    // (Compared as text: a failure should not print 16 MiB.)
    await port.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(JSON.stringify(await next()).slice(0, 300)).toBe(
      JSON.stringify({ jsonrpc: '2.0', id: 2, error: { code: -32000, message: `agentctl: MCP server '${label}' sent a reply longer than ${MAX_MCP_MESSAGE_BYTES} bytes` } }),
    );
    await port.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(JSON.stringify(await next()).slice(0, 300)).toBe(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32000, message: `agentctl: MCP server '${label}' broke off its reply stream before it answered (an event longer than ${MAX_MCP_MESSAGE_BYTES} bytes)` },
      }),
    );
  });

  it('names the server without the secrets a URL may carry', () => {
    expect(httpUpstream({ url: 'https://user:pw@example.com/mcp?key=k#f' }).label).toBe('https://example.com/mcp');
    expect(() => httpUpstream({ url: 'ftp://example.com/mcp' })).toThrow('MCP server URL must be http or https, not ftp: ftp://example.com/mcp');
    expect(() => httpUpstream({ url: 'not a url' })).toThrow('MCP server URL is not a URL: "not a url"');
  });
});
