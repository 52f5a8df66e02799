/**
 * The server side of MCP's streamable HTTP transport (2025-06-18), in front of a real streamable
 * HTTP server: an agent points its MCP client at agentctl's URL instead of the server's, and each
 * MCP session it opens is one conversation (conversation.ts) that records the traffic onto the tape
 * or serves it from there, reaching the real server through httpUpstream when it must.
 *
 * The transport part, as the protocol has it: a POST carries the client's messages; one that
 * carries requests is answered with a stream of server-sent events that ends once each of its
 * requests has its reply (the requests' progress and what the server says meanwhile go on it too),
 * one that carries only notifications and replies with 202. The initialize request opens a session,
 * whose id the client sends with every later call; a GET opens the stream on which the server speaks
 * unasked (replay has nothing to say unasked: 405), and DELETE ends the session.
 *
 * The real server gets the headers the client sent (its Authorization, an API key) except those of
 * the hop between client and agentctl and those the transport sets itself; they reach no tape, since
 * the conversation sees messages only. A request whose Origin is not this machine is refused (a web
 * page the user visits must not reach a local MCP endpoint through DNS rebinding), and every body is
 * bounded (MAX_MCP_MESSAGE_BYTES).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Redactor } from '../core/redact.js';
import { sseText } from '../core/sse.js';
import { openConversation, type McpConversation } from './conversation.js';
import { httpUpstream } from './http-upstream.js';
import type { McpLink } from './link.js';
import { errorReply, isReply, isRequest, MAX_MCP_MESSAGE_BYTES, readMessage, RPC_ERRORS, type JsonRpcId, type JsonRpcMessage, type JsonRpcRequest } from './protocol.js';

export interface McpHttpProxyOptions {
  /** The server's name on the tape. */
  server: string;
  link: McpLink;
  /** The real server's MCP endpoint. */
  url: string;
  redact: Redactor;
  /** A line for the user (stderr), without prefix. */
  note?(line: string): void;
  /**
   * Given the headers of each session's client as it opens: a redactor learns the credentials in
   * them, so a server that echoes the client's token puts no token on the tape.
   */
  credentials?(headers: Headers): void;
}

export interface McpHttpProxy {
  /** Serve one request for the endpoint (the caller chose it by its path). */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** End every session: each conversation closed (what is still open written), every stream ended. */
  close(): Promise<void>;
}

/** Headers of the hop between the client and agentctl, or that the transport sets itself: not passed on to the real server. */
const NOT_PASSED_ON = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'content-type',
  'accept',
  'accept-encoding',
  'origin',
  'referer',
  'last-event-id',
  'mcp-session-id',
  'mcp-protocol-version',
]);

/** The client's headers the real server gets. */
export function passedOnHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const named = new Set(
    String(headers['connection'] ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ''),
  );
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_PASSED_ON.has(name) || named.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a request's Origin (when it has one) is a page of this machine. */
export function localOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOCAL_HOSTS.has(url.hostname);
  } catch {
    return false;
  }
}

/** A JSON-RPC error as an HTTP answer (the transport's refusals: no session, bad body, foreign origin). */
function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(errorReply(null, status === 400 || status === 413 ? RPC_ERRORS.invalidRequest : RPC_ERRORS.connectionClosed, message)));
}

/** A request's body, at most MAX_MCP_MESSAGE_BYTES; undefined (the answer given) when it is longer. */
function readBody(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  const tooLong = `agentctl: an MCP message longer than ${MAX_MCP_MESSAGE_BYTES} bytes is not read`;
  return new Promise((resolve) => {
    if (Number(req.headers['content-length'] ?? 0) > MAX_MCP_MESSAGE_BYTES) {
      refuse(res, 413, tooLong, { connection: 'close' });
      req.resume();
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > MAX_MCP_MESSAGE_BYTES) {
        over = true;
        refuse(res, 413, tooLong, { connection: 'close' });
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => {
      if (!over) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.once('error', () => {
      if (!over) resolve(undefined);
    });
  });
}

/** The messages of a POST's body (one, or a batch), or why it holds none. */
function messagesOf(text: string): JsonRpcMessage[] | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'agentctl: the body is not JSON';
  }
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  if (items.length === 0) return 'agentctl: the body holds no message';
  const messages: JsonRpcMessage[] = [];
  for (const item of items) {
    const message = readMessage(item);
    if (typeof message === 'string') return `agentctl: ${message}`;
    messages.push(message);
  }
  return messages;
}

const idKey = (id: JsonRpcId): string => `${typeof id}:${id}`;

/** A stream of server-sent events to the client: a POST's answer, or the session's GET stream. */
class EventStream {
  /** The requests it still owes a reply (a POST's stream). */
  readonly owed = new Set<string>();
  private gone = false;

  constructor(private readonly res: ServerResponse) {
    res.once('close', () => {
      this.gone = true;
    });
  }

  get open(): boolean {
    return !this.gone && !this.res.writableEnded;
  }

  write(message: JsonRpcMessage): void {
    if (this.open) this.res.write(sseText([{ event: 'message', data: JSON.stringify(message) }]));
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }
}

interface Session {
  id: string;
  conversation: Promise<McpConversation>;
  /** Each request under way: the stream of the POST that carried it (in the order they came: the oldest first). */
  requests: Map<string, EventStream>;
  /** The stream of each request's progress token. */
  progress: Map<string, EventStream>;
  /** The GET stream, when the client opened it. */
  events: EventStream | undefined;
  /** What the server said unasked with no stream to say it on: for the GET stream when it opens. */
  waiting: JsonRpcMessage[];
  over: boolean;
}

/** How many unasked messages wait for a GET stream at most (a client that never opens one must not make agentctl hold them all). */
const MAX_WAITING = 1000;

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } as const;

export function mcpHttpProxy(options: McpHttpProxyOptions): McpHttpProxy {
  const sessions = new Map<string, Session>();

  /** Where a message of the server's goes: its request's stream, else the oldest request's, else the GET stream. */
  const route = (session: Session, message: JsonRpcMessage): void => {
    if (isReply(message)) {
      const key = message.id === null ? undefined : idKey(message.id);
      const stream = key === undefined ? undefined : session.requests.get(key);
      if (key === undefined || stream === undefined) return;
      session.requests.delete(key);
      stream.write(message);
      stream.owed.delete(key);
      if (stream.owed.size === 0) stream.end();
      return;
    }
    const token = message.params?.['progressToken'];
    const byToken = message.method === 'notifications/progress' && (typeof token === 'string' || typeof token === 'number') ? session.progress.get(idKey(token)) : undefined;
    const stream = byToken?.open ? byToken : [...session.requests.values()].find((s) => s.open);
    if (stream !== undefined) stream.write(message);
    else if (session.events?.open) session.events.write(message);
    else if (session.waiting.length < MAX_WAITING) session.waiting.push(message);
  };

  const finish = (session: Session): void => {
    if (session.over) return;
    session.over = true;
    sessions.delete(session.id);
    for (const stream of new Set(session.requests.values())) stream.end();
    session.requests.clear();
    session.progress.clear();
    session.events?.end();
  };

  const startSession = (req: IncomingMessage): Session => {
    const session: Session = {
      id: randomUUID(),
      conversation: undefined as never,
      requests: new Map(),
      progress: new Map(),
      events: undefined,
      waiting: [],
      over: false,
    };
    const noise = options.note;
    const headers = passedOnHeaders(req.headers);
    options.credentials?.(new Headers(headers));
    const onNoise = noise === undefined ? {} : { onNoise: (problem: string) => noise(`MCP server '${options.server}': ${problem}`) };
    const upstream = httpUpstream({ url: options.url, headers, ...onNoise });
    session.conversation = openConversation({
      server: options.server,
      link: options.link,
      upstream,
      toClient: (message) => route(session, message),
      redact: options.redact,
      ...(options.note === undefined ? {} : { note: options.note }),
    });
    void session.conversation.then(
      (conversation) => conversation.ended.then(() => finish(session)),
      () => finish(session),
    );
    sessions.set(session.id, session);
    return session;
  };

  /** The session a call names, or undefined with the answer given. */
  const sessionOf = (req: IncomingMessage, res: ServerResponse): Session | undefined => {
    const id = req.headers['mcp-session-id'];
    if (typeof id !== 'string' || id === '') {
      refuse(res, 400, 'agentctl: no Mcp-Session-Id: initialize first');
      return undefined;
    }
    const session = sessions.get(id);
    if (session === undefined) refuse(res, 404, 'agentctl: no such MCP session (it ended, or agentctl restarted)');
    return session;
  };

  /** A client message the conversation could not take: a request gets the error as its reply. */
  const failed = (session: Session, message: JsonRpcMessage, error: unknown): void => {
    const why = error instanceof Error ? error.message : String(error);
    if (isRequest(message)) route(session, errorReply(message.id, RPC_ERRORS.internal, why.startsWith('agentctl:') ? why : `agentctl: ${why}`));
    else options.note?.(`MCP server '${options.server}': ${why}`);
  };

  const post = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const text = await readBody(req, res);
    if (text === undefined) return;
    const messages = messagesOf(text);
    if (typeof messages === 'string') return refuse(res, 400, messages);
    const initialize = messages.some((m) => isRequest(m) && m.method === 'initialize');
    const session = initialize ? startSession(req) : sessionOf(req, res);
    if (session === undefined) return;
    const requests = messages.filter((m): m is JsonRpcRequest => isRequest(m));
    if (requests.length === 0) {
      const conversation = await session.conversation;
      await Promise.all(messages.map((m) => conversation.fromClient(m).catch((error: unknown) => failed(session, m, error))));
      res.writeHead(202, { 'mcp-session-id': session.id });
      res.end();
      return;
    }
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': session.id });
    res.flushHeaders();
    const stream = new EventStream(res);
    for (const request of requests) {
      const key = idKey(request.id);
      stream.owed.add(key);
      session.requests.set(key, stream);
      const token = (request.params?.['_meta'] as Record<string, unknown> | undefined)?.['progressToken'];
      if (typeof token === 'string' || typeof token === 'number') session.progress.set(idKey(token), stream);
    }
    res.once('close', () => {
      for (const [token, s] of session.progress) if (s === stream) session.progress.delete(token);
    });
    let conversation: McpConversation;
    try {
      conversation = await session.conversation;
    } catch (error) {
      for (const request of requests) failed(session, request, error);
      return;
    }
    await Promise.all(messages.map((m) => conversation.fromClient(m).catch((error: unknown) => failed(session, m, error))));
  };

  const get = (req: IncomingMessage, res: ServerResponse): void => {
    const session = sessionOf(req, res);
    if (session === undefined) return;
    // A replay has nothing to say unasked: what the server said is served with the requests it came with.
    if (options.link.mode === 'replay') return refuse(res, 405, 'agentctl: no event stream in replay', { allow: 'POST, DELETE' });
    if (session.events?.open) return refuse(res, 409, 'agentctl: the session already has its event stream');
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': session.id });
    res.flushHeaders();
    session.events = new EventStream(res);
    for (const message of session.waiting.splice(0)) session.events.write(message);
  };

  const remove = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const session = sessionOf(req, res);
    if (session === undefined) return;
    finish(session);
    await session.conversation.then((c) => c.close()).catch(() => undefined);
    res.writeHead(200);
    res.end();
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const origin = req.headers['origin'];
    if (!localOrigin(origin)) {
      req.resume();
      return refuse(res, 403, 'agentctl: MCP requests are taken from this machine only (the Origin is not local)');
    }
    const serve = req.method === 'POST' ? post : req.method === 'GET' ? get : req.method === 'DELETE' ? remove : undefined;
    if (serve === undefined) {
      req.resume();
      return refuse(res, 405, `agentctl: ${req.method ?? 'this method'} is not part of MCP's streamable HTTP transport`, { allow: 'GET, POST, DELETE' });
    }
    void Promise.resolve()
      .then(() => serve(req, res))
      .catch((error: unknown) => refuse(res, 500, `agentctl: ${error instanceof Error ? error.message : String(error)}`));
  };

  const close = async (): Promise<void> => {
    const open = [...sessions.values()];
    for (const session of open) finish(session);
    await Promise.all(open.map((session) => session.conversation.then((c) => c.close()).catch(() => undefined)));
  };

  return { handle, close };
}
