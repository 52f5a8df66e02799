/**
 * The streamable HTTP proxy between the official SDK's client (StreamableHTTPClientTransport) and
 * the reference server in streamableHttp mode (server-everything).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createServer, request, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedactor, type Redactor } from '../core/redact.js';
import { keyRedactor } from '../library/key-redactor.js';
import { localOrigin, mcpHttpProxy, passedOnHeaders, type McpHttpProxy } from './http-proxy.js';
import { MAX_MCP_MESSAGE_BYTES } from './protocol.js';
import type { McpLink } from './link.js';
import { listenLocally } from './test-support/local-http.js';
import { startEverythingHttp } from './test-support/everything-http.js';
import { memoryLink } from './test-support/memory-link.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The proxy on a port of its own at /mcp, in front of `url`. */
type LearningRedactor = Redactor & { learn?(headers: Headers): void };

async function serveProxy(url: string, link: McpLink, redact: LearningRedactor = createRedactor()): Promise<{ url: string; proxy: McpHttpProxy }> {
  const learn = redact.learn;
  const proxy = mcpHttpProxy({ server: 'everything', link, url, redact, ...(learn === undefined ? {} : { credentials: (headers: Headers) => learn(headers) }) });
  const server: Server = createServer((req, res) => {
    if (req.url === '/mcp') proxy.handle(req, res);
    else {
      res.writeHead(404);
      res.end();
    }
  });
  const listening = await listenLocally(server);
  cleanups.push(async () => {
    await proxy.close();
    await listening.close();
  });
  return { url: listening.url, proxy };
}

async function connect(url: string, headers: Record<string, string> = {}, before?: (client: Client) => void) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'agentctl-test', version: '1.0.0' });
  before?.(client);
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

/** What the SDK client sees of one session through the proxy: the handshake, the tools, three calls (one with its progress). */
async function session(url: string) {
  const { client, transport } = await connect(url, { Authorization: 'Bearer agentctl-test-secret-token' });
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
  const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
  const progress: unknown[] = [];
  const long = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.02, steps: 2 } }, undefined, { onprogress: (p) => progress.push(p) });
  const server = client.getServerVersion()?.name;
  await transport.terminateSession();
  return { server, tools, echo, sum, long, progress };
}

describe('mcpHttpProxy', () => {
  it('records the SDK client talking to server-everything, and replays it identically with the server stopped', async () => {
    const everything = await startEverythingHttp();
    cleanups.push(() => everything.stop());
    const recording = memoryLink({ mode: 'record' });
    const recorded = await session((await serveProxy(everything.url, recording)).url);
    expect(recorded.server).toBe('mcp-servers/everything');
    expect(recorded.tools).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']));
    expect(recorded.echo).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });
    expect(recorded.sum).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('5') }] });
    expect(recorded.long).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('completed') }] });
    expect(recorded.progress).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
    const tape = recording.events;
    expect(tape.filter((e) => e.type === 'tool_call').map((e) => e.type === 'tool_call' && e.tool)).toEqual(['echo', 'get-sum', 'trigger-long-running-operation']);
    expect(tape.filter((e) => e.type === 'mcp_exchange').map((e) => e.type === 'mcp_exchange' && e.method)).toEqual(expect.arrayContaining(['initialize', 'notifications/initialized', 'tools/list']));
    // The client's Authorization went to the server, and onto no tape.
    expect(JSON.stringify(tape)).not.toContain('agentctl-test-secret-token');

    await everything.stop();
    const replaying = memoryLink({ mode: 'replay', recorded: tape.map((e) => ({ ...e })) });
    const replayed = await session((await serveProxy(everything.url, replaying)).url);
    expect(replayed).toEqual(recorded);
    expect(replaying.notes.filter((n) => n.kind === 'request').map((n) => n.kind === 'request' && n.outcome)).toEqual(['served', 'served', 'served', 'served', 'served']);
    expect(replaying.notes.at(-1)).toEqual({ kind: 'end', server: 'everything', unused: 0 });
  });

  it('refuses a request from a page that is not on this machine with 403', async () => {
    const { url } = await serveProxy('http://127.0.0.1:9/mcp', memoryLink({ mode: 'record' }));
    const answer = await call(url, 'POST', JSON.stringify(INITIALIZE), { origin: 'http://evil.example' });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { message: 'agentctl: MCP requests are taken from this machine only (the Origin is not local)' } });
    expect(localOrigin(undefined)).toBe(true);
    expect(localOrigin('http://localhost:3000')).toBe(true);
    expect(localOrigin('https://127.0.0.1')).toBe(true);
    expect(localOrigin('http://[::1]:8080')).toBe(true);
    expect(localOrigin('null')).toBe(false);
    expect(localOrigin('http://127.0.0.1.evil.example')).toBe(false);
    expect(localOrigin('file://localhost/x')).toBe(false);
  });

  it('passes the client headers on to the real server, except the hop and transport ones, and ends its session with the client', async () => {
    const upstream = await ownUpstream();
    const { url } = await serveProxy(upstream.url, memoryLink({ mode: 'record' }));
    const { client, transport } = await connect(url, { Authorization: 'Bearer agentctl-test-secret-token', 'X-Api-Key': 'k-123', 'Proxy-Authorization': 'Basic cDpw' });
    await client.ping();
    await transport.terminateSession();
    const posts = upstream.calls.filter((c) => c.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(3);
    for (const post of posts) {
      expect(post.headers['authorization']).toBe('Bearer agentctl-test-secret-token');
      expect(post.headers['x-api-key']).toBe('k-123');
      expect(post.headers['proxy-authorization']).toBeUndefined();
    }
    // The real server's session is its own, apart from the one agentctl gave the client.
    expect(posts.slice(1).map((p) => p.headers['mcp-session-id'])).toEqual(posts.slice(1).map(() => 'up-1'));
    expect(transport.sessionId).toBeUndefined();
    expect(upstream.calls.at(-1)).toMatchObject({ method: 'DELETE', headers: { 'mcp-session-id': 'up-1' } });
    expect(passedOnHeaders({ connection: 'keep-alive, x-a', 'x-a': '1', 'x-b': ['2', '3'], host: 'h', 'proxy-authorization': 'p', 'mcp-session-id': 's' })).toEqual({ 'x-b': '2, 3' });
  });

  it('keeps the client credentials off the tape even when the server echoes them', async () => {
    const upstream = await ownUpstream({ echoApiKey: true });
    const link = memoryLink({ mode: 'record' });
    const { url } = await serveProxy(upstream.url, link, keyRedactor([]));
    // A key no rule knows by its shape: only learning it from the client's headers keeps it off the tape.
    const { client } = await connect(url, { 'X-Api-Key': 'plainwords and more' });
    expect(await client.callTool({ name: 'whoami', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'key: plainwords and more' }] });
    await client.close();
    const result = link.events.find((e) => e.type === 'tool_result');
    expect(result).toMatchObject({ tool: 'whoami', output: 'key: [REDACTED]' });
    expect(JSON.stringify(link.events)).not.toContain('plainwords');
  });

  it('answers calls outside a session as the transport says: 400 without one, 404 for one it does not have, 405 for other methods', async () => {
    const { url } = await serveProxy('http://127.0.0.1:9/mcp', memoryLink({ mode: 'record' }));
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await call(url, 'POST', ping)).status).toBe(400);
    expect((await call(url, 'POST', ping, { 'mcp-session-id': 'nope' })).status).toBe(404);
    expect((await call(url, 'GET', undefined, { 'mcp-session-id': 'nope' })).status).toBe(404);
    expect((await call(url, 'DELETE', undefined, { 'mcp-session-id': 'nope' })).status).toBe(404);
    expect((await call(url, 'PUT', ping)).status).toBe(405);
    expect((await call(url, 'POST', 'not json')).status).toBe(400);
    expect((await call(url, 'POST', '{"jsonrpc":"1.0","id":1,"method":"x"}')).status).toBe(400);
  });

  it('refuses a body longer than a message may be with 413', async () => {
    const { url } = await serveProxy('http://127.0.0.1:9/mcp', memoryLink({ mode: 'record' }));
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(MAX_MCP_MESSAGE_BYTES) } });
    expect((await call(url, 'POST', big)).status).toBe(413);
  });

  it('hands what the real server says unasked on to the client on its GET stream', async () => {
    const upstream = await ownUpstream({ unasked: { message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, when: 'opened' } });
    const { url } = await serveProxy(upstream.url, memoryLink({ mode: 'record' }));
    let heard: () => void = () => undefined;
    const said = new Promise<void>((resolve) => (heard = resolve));
    await connect(url, {}, (client) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => heard()));
    await said;
  });

  it('sends what the real server says unasked on the open GET stream, when no request is under way', async () => {
    const unasked = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
    const upstream = await ownUpstream({ unasked: { message: unasked, when: 'poked' } });
    const { url } = await serveProxy(upstream.url, memoryLink({ mode: 'record' }));
    const session = (await call(url, 'POST', JSON.stringify(INITIALIZE))).headers['mcp-session-id'] as string;
    expect((await call(url, 'POST', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { 'mcp-session-id': session })).status).toBe(202);
    const heard = firstEvent(url, session);
    await heard.opened;
    expect((await call(url, 'POST', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }), { 'mcp-session-id': session })).status).toBe(202);
    expect(await heard.data).toEqual(unasked);
  });

  it('ends the client session when the real server forgets its own: the request under way answered, later calls 404', async () => {
    const upstream = await ownUpstream({ expired: true });
    const { url } = await serveProxy(upstream.url, memoryLink({ mode: 'record' }));
    const session = (await call(url, 'POST', JSON.stringify(INITIALIZE))).headers['mcp-session-id'] as string;
    const listed = await call(url, 'POST', JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { 'mcp-session-id': session });
    expect(JSON.parse(listed.text.replace(/^[^]*?data: /, '').trim())).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32000, message: "agentctl: MCP server 'everything' session expired before it answered" },
    });
    expect((await call(url, 'POST', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }), { 'mcp-session-id': session })).status).toBe(404);
  });

  it('has no GET stream in replay (405), and one in record', async () => {
    const upstream = await ownUpstream();
    for (const [mode, status] of [['replay', 405], ['record', 200]] as const) {
      const { url } = await serveProxy(upstream.url, memoryLink({ mode }));
      const init = await call(url, 'POST', JSON.stringify(INITIALIZE));
      const session = init.headers['mcp-session-id'] as string;
      const answer = await call(url, 'GET', undefined, { 'mcp-session-id': session }, true);
      expect(answer.status).toBe(status);
    }
  });
});

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

/** A GET stream opened on `session`: when it has opened, and the first message on it. */
function firstEvent(url: string, session: string): { opened: Promise<void>; data: Promise<unknown> } {
  let opened: () => void = () => undefined;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const data = new Promise<unknown>((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': session } }, (res) => {
      opened();
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        const found = /^data: (.*)$/m.exec(text);
        if (found === null) return;
        res.destroy();
        resolve(JSON.parse(found[1] as string));
      });
    });
    req.once('error', reject);
    req.end();
  });
  return { opened: open, data };
}

/** One raw HTTP call: its status, headers and body (a stream's head only, when `headOnly`). */
function call(url: string, method: string, body?: string, headers: Record<string, string> = {}, headOnly = false) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      const done = (): void => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
      if (headOnly) {
        res.destroy();
        done();
        return;
      }
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', done);
      res.on('error', reject);
    });
    req.once('error', reject);
    req.end(body);
  });
}

interface OwnUpstreamOptions {
  /** Said on its GET stream (else it has none: 405): as the stream opens, or when a client's notifications/roots/list_changed comes. */
  unasked?: { message: object; when: 'opened' | 'poked' };
  /** tools/call answers with the client's X-Api-Key. */
  echoApiKey?: boolean;
  /** Every call after the handshake gets 404, as for a session the server forgot. */
  expired?: boolean;
}

/** A small streamable HTTP server of the test's own: answers JSON, gives session `up-1`, records every call. */
async function ownUpstream(options: OwnUpstreamOptions = {}) {
  const calls: Array<{ method: string; headers: IncomingHttpHeaders }> = [];
  let stream: ServerResponse | undefined;
  let streamOpened: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (streamOpened = resolve));
  const say = (): void => void opened.then(() => stream?.write(`event: message\ndata: ${JSON.stringify(options.unasked?.message)}\n\n`));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      calls.push({ method: req.method ?? '', headers: req.headers });
      if (options.expired === true && req.headers['mcp-session-id'] !== undefined) {
        res.writeHead(404);
        res.end();
        return;
      }
      if (req.method === 'GET' && options.unasked !== undefined) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        stream = res;
        streamOpened();
        if (options.unasked.when === 'opened') say();
        return;
      }
      if (req.method !== 'POST') {
        res.writeHead(req.method === 'DELETE' ? 200 : 405);
        res.end();
        return;
      }
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: number; method: string };
      if (message.method === 'notifications/roots/list_changed' && options.unasked?.when === 'poked') say();
      if (message.id === undefined) {
        res.writeHead(202);
        res.end();
        return;
      }
      const result =
        message.method === 'initialize'
          ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'own', version: '1' } }
          : message.method === 'tools/call' && options.echoApiKey === true
            ? { content: [{ type: 'text', text: `key: ${String(req.headers['x-api-key'])}` }] }
            : {};
      res.writeHead(200, { 'content-type': 'application/json', ...(message.method === 'initialize' ? { 'mcp-session-id': 'up-1' } : {}) });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  const { url, close } = await listenLocally(server);
  cleanups.push(close);
  return { url, calls };
}
