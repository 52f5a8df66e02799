/**
 * An MCP server reached over the protocol's streamable HTTP transport (2025-06-18): every message
 * the client sends is a POST of its own; the server answers a request with a JSON body or with a
 * stream of server-sent events (the request's progress, its own requests, then the reply), and
 * anything else with 202. The session id the server gives with the initialize reply goes with every
 * later call, and so does the protocol version the handshake settled on. After the handshake a GET
 * opens the stream on which the server may speak unasked (a 405 says it has none); close() ends the
 * session with a DELETE.
 *
 * It runs on node:http(s), as the proxy's upstream calls do (llm/transport/http-fetch.ts says why
 * not undici's fetch), with an agent of its own so that closing the session leaves no socket open.
 * Every body it reads is bounded (MAX_MCP_MESSAGE_BYTES). The headers it is given may hold secrets
 * (a bearer token): they go to the server and nowhere else, and the label leaves out the URL's
 * user, password and query.
 *
 * A request's answer always comes: when the server's reply stream ends or breaks before it, or the
 * server refuses the POST with an HTTP error, the request is answered with a JSON-RPC error saying
 * so. The session's end (a 404 for the session it gave, a server that cannot be reached) goes to
 * `ended` once.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { InvalidOptionError } from '../core/errors.js';
import { SseReader } from '../core/sse.js';
import { errorReply, isReply, isRequest, MAX_MCP_MESSAGE_BYTES, readMessage, RPC_ERRORS, type JsonRpcId, type JsonRpcMessage } from './protocol.js';
import type { McpServerHandlers, McpServerPort, McpUpstream } from './upstream.js';

export interface HttpServerOptions {
  /** The server's MCP endpoint: `https://example.com/mcp`. */
  url: string;
  /** Sent with every call (an `Authorization`, an API key): never written anywhere by agentctl. */
  headers?: Readonly<Record<string, string>>;
  /** Something the server sent that is not a message (not JSON, too large), or a GET stream that failed: dropped, and said here. */
  onNoise?(problem: string): void;
  /** How long close() waits for the server to answer the DELETE that ends the session. Default 2000 ms. */
  stopGraceMs?: number;
}

/** The URL as messages name the server: without its user, password, query or fragment (they may hold secrets). */
export function httpLabel(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** The endpoint as a URL, or a usage error naming what is wrong with it. */
export function endpointOf(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidOptionError(`MCP server URL is not a URL: ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidOptionError(`MCP server URL must be http or https, not ${url.protocol.slice(0, -1)}: ${httpLabel(url)}`);
  return url;
}

export function httpUpstream(options: HttpServerOptions): McpUpstream {
  const url = endpointOf(options.url);
  const label = httpLabel(url);
  return { label, open: (handlers) => Promise.resolve(new HttpSession(url, label, options, handlers).port()) };
}

/** A session id is visible ASCII (the spec's rule); anything else is not sent back. */
const SESSION_ID = /^[\x21-\x7e]+$/;

const mediaType = (message: IncomingMessage): string => (message.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

const reasonOf = (error: unknown): string => {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  return error instanceof Error ? error.message : String(error);
};

class HttpSession {
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  /** The ids of initialize requests sent: their replies carry the protocol version. */
  private readonly initializeIds = new Set<JsonRpcId>();
  private over = false;
  /** close() began: streams cut from here on are agentctl's doing, not the server's. */
  private stopping = false;
  private closing: Promise<void> | undefined;
  private streamOpened = false;
  private readonly calls = new Set<ClientRequest>();
  private readonly agent: HttpAgent;

  constructor(
    private readonly url: URL,
    private readonly label: string,
    private readonly options: HttpServerOptions,
    private readonly handlers: McpServerHandlers,
  ) {
    this.agent = url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  port(): McpServerPort {
    return { send: (message) => this.send(message), close: () => this.close() };
  }

  private get done(): boolean {
    return this.over || this.stopping;
  }

  private endedError(): Error {
    return new Error(`MCP server '${this.label}' has ended`);
  }

  private noise(problem: string): void {
    this.options.onNoise?.(problem);
  }

  private end(reason: string): void {
    if (this.over) return;
    this.over = true;
    for (const call of this.calls) call.destroy();
    this.calls.clear();
    this.agent.destroy();
    this.handlers.ended(reason);
  }

  private headers(extra: OutgoingHttpHeaders): OutgoingHttpHeaders {
    const headers: OutgoingHttpHeaders = { ...this.options.headers, ...extra };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
    return headers;
  }

  /** One HTTP call; resolves with the reply's head (its body unread), rejects on a network error. */
  private call(method: string, headers: OutgoingHttpHeaders, body?: Buffer): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const https = this.url.protocol === 'https:';
      const req = (https ? httpsRequest : httpRequest)(this.url, { method, headers, agent: this.agent });
      req.setNoDelay(true);
      this.calls.add(req);
      req.once('response', resolve);
      req.once('error', reject);
      req.once('close', () => this.calls.delete(req));
      req.end(body);
    });
  }

  private async send(message: JsonRpcMessage): Promise<void> {
    if (this.done) throw this.endedError();
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    const request = isRequest(message) ? message : undefined;
    if (request?.method === 'initialize') this.initializeIds.add(request.id);
    let reply: IncomingMessage;
    try {
      reply = await this.call('POST', this.headers({ accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'content-length': body.length }), body);
    } catch (error) {
      if (this.done) throw this.endedError();
      this.end(`unreachable: ${reasonOf(error)}`);
      throw new Error(`MCP server '${this.label}' is unreachable: ${reasonOf(error)}`, { cause: error });
    }
    if (request?.method === 'initialize') this.takeSession(reply);
    const status = reply.statusCode ?? 0;
    if (status === 404 && this.sessionId !== undefined && request?.method !== 'initialize') {
      reply.resume();
      this.end('session expired');
      throw this.endedError();
    }
    if (status < 200 || status > 299) {
      void this.refused(reply, status, request?.id);
      return;
    }
    if ('method' in message && message.method === 'notifications/initialized' && request === undefined) this.openStream();
    if (status === 202) {
      // Accepted: a notification or a reply. (A request's answer then comes on the GET stream.)
      reply.resume();
      return;
    }
    void this.readBody(reply, request?.id);
  }

  /** The initialize reply's session id, kept for every later call. */
  private takeSession(reply: IncomingMessage): void {
    const id = reply.headers['mcp-session-id'];
    if (typeof id !== 'string') return;
    if (SESSION_ID.test(id)) this.sessionId = id;
    else this.noise('the server gave a session id that is not visible ASCII: not sent back');
  }

  /** A message of the server's, handed on (the initialize reply's version is kept first). */
  private deliver(message: JsonRpcMessage): void {
    if (this.over) return;
    if (isReply(message) && message.id !== null && this.initializeIds.has(message.id)) {
      this.initializeIds.delete(message.id);
      const version = 'result' in message ? message.result['protocolVersion'] : undefined;
      if (typeof version === 'string' && SESSION_ID.test(version)) this.protocolVersion = version;
    }
    this.handlers.message(message);
  }

  /** A body's text as messages (one, or a batch); anything else is noise. Says whether `id`'s reply was among them. */
  private deliverText(text: string, id: JsonRpcId | undefined): boolean {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.noise('the server sent something that is not JSON: dropped');
      return false;
    }
    let answered = false;
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      const message = readMessage(item);
      if (typeof message === 'string') {
        this.noise(`the server sent ${message}: dropped`);
        continue;
      }
      if (isReply(message) && id !== undefined && message.id === id) answered = true;
      this.deliver(message);
    }
    return answered;
  }

  /** The request `id` gets no answer from the server: it gets this error instead. */
  private answerInstead(id: JsonRpcId | undefined, why: string): void {
    if (id === undefined || this.done) return;
    this.deliver(errorReply(id, RPC_ERRORS.connectionClosed, `agentctl: MCP server '${this.label}' ${why}`));
  }

  /** An HTTP error for a POST: its JSON-RPC error reply if it has one for the request, else one made up from the status. */
  private async refused(reply: IncomingMessage, status: number, id: JsonRpcId | undefined): Promise<void> {
    const text = await this.bodyText(reply).catch(() => undefined);
    if (text !== undefined && id !== undefined && mediaType(reply) === 'application/json') {
      const message = (() => {
        try {
          return readMessage(JSON.parse(text));
        } catch {
          return undefined;
        }
      })();
      if (message !== undefined && typeof message !== 'string' && isReply(message) && message.id === id) {
        this.deliver(message);
        return;
      }
    }
    if (id === undefined) {
      this.noise(`the server refused a message with HTTP ${status}`);
      return;
    }
    if (this.done) return;
    this.deliver(errorReply(id, RPC_ERRORS.internal, `agentctl: MCP server '${this.label}' answered HTTP ${status}${reply.statusMessage ? ` ${reply.statusMessage}` : ''}`));
  }

  /** A whole body as text, or a rejection when it is longer than a message may be or breaks off. */
  private bodyText(reply: IncomingMessage): Promise<string> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      reply.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_MCP_MESSAGE_BYTES) {
          reply.destroy();
          reject(new Error(`sent a reply longer than ${MAX_MCP_MESSAGE_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      reply.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      reply.once('error', reject);
      reply.once('close', () => {
        if (!reply.complete) reject(new Error('closed the connection before its reply ended'));
      });
    });
  }

  /** A POST's reply body: JSON, or a stream of events; the request `id` answered one way or another. */
  private async readBody(reply: IncomingMessage, id: JsonRpcId | undefined): Promise<void> {
    const type = mediaType(reply);
    if (type === 'text/event-stream') {
      const { answered, broke } = await this.readEvents(reply, id);
      if (!answered) this.answerInstead(id, broke === undefined ? 'ended its reply stream before it answered' : `broke off its reply stream before it answered (${broke})`);
      return;
    }
    let text: string;
    try {
      text = await this.bodyText(reply);
    } catch (error) {
      this.answerInstead(id, reasonOf(error));
      return;
    }
    if (type !== 'application/json' && text.trim() === '') {
      this.answerInstead(id, 'answered with an empty body');
      return;
    }
    if (!this.deliverText(text, id)) this.answerInstead(id, 'did not answer in its reply');
  }

  /**
   * The events of a stream, each one's data a message, in order. Resolves when it ends: whether
   * `id` was answered, and why it broke when it did (an event longer than a message may be cuts it).
   */
  private readEvents(reply: IncomingMessage, id: JsonRpcId | undefined): Promise<{ answered: boolean; broke?: string }> {
    return new Promise((resolve) => {
      const reader = new SseReader();
      let answered = false;
      let settled = false;
      const finish = (broke?: string): void => {
        if (settled) return;
        settled = true;
        resolve(broke === undefined ? { answered } : { answered, broke });
      };
      const tooLong = `an event longer than ${MAX_MCP_MESSAGE_BYTES} bytes`;
      /** One event handed on; false when it is longer than a message may be (the stream is then cut). */
      const take = (event: { event?: string; data: string }): boolean => {
        if (Buffer.byteLength(event.data, 'utf8') > MAX_MCP_MESSAGE_BYTES) return false;
        // Only `message` events carry messages; an empty one is a resumption point (an event id alone).
        if ((event.event !== undefined && event.event !== 'message') || event.data.trim() === '') return true;
        if (this.deliverText(event.data, id)) answered = true;
        return true;
      };
      const cut = (): void => {
        reply.destroy();
        finish(tooLong);
      };
      reply.setEncoding('utf8');
      reply.on('data', (text: string) => {
        if (settled) return;
        for (const event of reader.push(text)) {
          if (!take(event)) return cut();
        }
        if (reader.pending > MAX_MCP_MESSAGE_BYTES) cut();
      });
      reply.once('end', () => {
        if (settled) return;
        const rest = reader.rest();
        if (rest !== undefined && !take(rest)) return cut();
        finish();
      });
      // An error on a reply under way is its connection's: reset, or closed before the end.
      reply.once('error', () => finish('the connection closed'));
      reply.once('close', () => {
        if (!reply.complete) finish('the connection closed');
      });
    });
  }

  /** The GET stream for what the server says unasked: opened once, after the handshake. */
  private openStream(): void {
    if (this.streamOpened || this.sessionId === undefined) return;
    this.streamOpened = true;
    void (async () => {
      let reply: IncomingMessage;
      try {
        reply = await this.call('GET', this.headers({ accept: 'text/event-stream' }));
      } catch (error) {
        if (!this.done) this.noise(`the server's event stream could not be opened: ${reasonOf(error)}`);
        return;
      }
      const status = reply.statusCode ?? 0;
      if (status === 404) {
        reply.resume();
        this.end('session expired');
        return;
      }
      if (status !== 200 || mediaType(reply) !== 'text/event-stream') {
        reply.resume();
        // 405: the server has no such stream, which the protocol allows.
        if (status !== 405) this.noise(`the server's event stream was refused: HTTP ${status}`);
        return;
      }
      const { broke } = await this.readEvents(reply, undefined);
      if (!this.done) this.noise(`the server's event stream ${broke === undefined ? 'ended' : `broke off (${broke})`}`);
    })();
  }

  private close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.over) return;
      this.stopping = true;
      for (const call of this.calls) call.destroy();
      this.calls.clear();
      if (this.sessionId !== undefined) await this.deleteSession();
      this.end('session closed');
    })();
    return this.closing;
  }

  /** DELETE the session (the server may refuse with 405: it then ends the session itself); waited for a while at most. */
  private async deleteSession(): Promise<void> {
    const grace = this.options.stopGraceMs ?? 2000;
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((done) => {
      timer = setTimeout(done, grace);
      timer.unref();
    });
    const deleted = this.call('DELETE', this.headers({}))
      .then((reply) => {
        reply.resume();
      })
      .catch(() => undefined);
    await Promise.race([deleted, gaveUp]);
    clearTimeout(timer);
  }
}
