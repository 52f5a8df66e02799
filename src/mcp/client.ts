/**
 * A small MCP client: what the built-in agent needs of a server — the handshake, its tools, and
 * calling them — over any McpUpstream (a child process's stdio, streamable HTTP). agentctl does not
 * depend on the SDK at run time; the protocol it needs is this much.
 *
 * The server may ask things of the client too: `ping` is answered, anything else (roots, sampling,
 * elicitation: capabilities this client does not declare) gets "method not found". A server that
 * ends fails every open request with the way it ended (`MCP server 'files' killed by SIGKILL before
 * it answered`); a request given up (its signal aborted) is cancelled at the server.
 */
import { McpServerError } from '../core/errors.js';
import { annotationsOf, type McpToolAnnotations } from './annotations.js';
import { RPC_ERRORS, errorReply, isErrorReply, isNotification, isRequest, type JsonRpcError, type JsonRpcMessage, type JsonRpcReply } from './protocol.js';
import type { McpServerPort, McpUpstream } from './upstream.js';

/**
 * The protocol versions this client speaks; it asks for the first. A server that no longer speaks it
 * answers with its own, and 2025-11-25 (the SDK 2.x servers' newest) only adds what this client does not ask for.
 */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-06-18', '2025-11-25', '2025-03-26', '2024-11-05'] as const;

/** How many requests may wait for an answer at once: a server that never answers cannot make agentctl hold unbounded state. */
export const MAX_PENDING_REQUESTS = 256;

/** How many pages of `tools/list` are read at most (a server whose cursor never ends). */
const MAX_TOOL_PAGES = 100;

/** A tool as its server listed it. */
export interface McpListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  annotations: McpToolAnnotations;
}

/** A JSON-RPC error the server answered a request with. */
export class McpRequestError extends Error {
  constructor(readonly error: JsonRpcError) {
    super(error.message);
    this.name = 'McpRequestError';
  }
}

export interface RequestOptions {
  /** Gives the request up: the server is sent `notifications/cancelled`, and the request rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Gives the request up after this long (an McpServerError saying so). */
  timeoutMs?: number;
}

export interface McpClientOptions {
  /** The server's name (config `mcpServers`), in every message. */
  server: string;
  upstream: McpUpstream;
  /** The client's name and version, as the handshake gives them. */
  clientInfo?: { name: string; version: string };
  /** A limit on the handshake (initialize). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Pending {
  method: string;
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export class McpClient {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private endReason: string | undefined;
  private port: McpServerPort | undefined;
  /** The protocol version the server answered with. */
  protocolVersion = '';
  /** What the server said of itself (`serverInfo`), as it said it. */
  serverInfo: unknown;

  private constructor(readonly server: string) {}

  /** Start the server and finish the handshake (initialize, then notifications/initialized). */
  static async connect(options: McpClientOptions): Promise<McpClient> {
    const client = new McpClient(options.server);
    client.port = await options.upstream.open({
      message: (message) => client.receive(message),
      ended: (reason) => client.ended(reason),
    });
    try {
      const result = await client.request(
        'initialize',
        { protocolVersion: SUPPORTED_PROTOCOL_VERSIONS[0], capabilities: {}, clientInfo: options.clientInfo ?? { name: 'agentctl', version: '0' } },
        options,
      );
      const version = result['protocolVersion'];
      if (typeof version !== 'string' || !(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
        throw new McpServerError(`MCP server '${options.server}' answered the handshake with protocol version ${JSON.stringify(version)}, which agentctl does not speak (it speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
      }
      client.protocolVersion = version;
      client.serverInfo = result['serverInfo'];
      await client.notify('notifications/initialized');
      return client;
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  /** Every tool the server lists, all pages. */
  async listTools(options: RequestOptions = {}): Promise<McpListedTool[]> {
    const tools: McpListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await this.request('tools/list', cursor === undefined ? {} : { cursor }, options);
      if (!Array.isArray(result['tools'])) throw this.broke('answered tools/list without a "tools" list');
      for (const tool of result['tools'] as unknown[]) tools.push(this.listedTool(tool));
      const next = result['nextCursor'];
      if (typeof next !== 'string' || next === '') return tools;
      cursor = next;
    }
    throw this.broke(`listed its tools in more than ${MAX_TOOL_PAGES} pages`);
  }

  /** Call a tool: its result as the server gave it. A JSON-RPC error reply rejects with McpRequestError. */
  callTool(name: string, args: Record<string, unknown>, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    return this.request('tools/call', { name, arguments: args }, options);
  }

  /** Stop the server; every open request fails. Idempotent. */
  async close(): Promise<void> {
    await this.port?.close();
    this.ended('was stopped');
  }

  /** Send a request and wait for its answer. */
  request(method: string, params: Record<string, unknown>, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.endReason !== undefined) return Promise.reject(this.gone());
    if (this.pending.size >= MAX_PENDING_REQUESTS) {
      return Promise.reject(new McpServerError(`MCP server '${this.server}' has ${MAX_PENDING_REQUESTS} requests open already: ${method} was not sent`));
    }
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error(`${method} was cancelled`));
    const id = this.nextId++;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => giveUp(signal?.reason instanceof Error ? signal.reason : new Error(`${method} was cancelled`));
      const settle = (): void => {
        this.pending.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const giveUp = (reason: Error): void => {
        if (!this.pending.has(id)) return;
        settle();
        // The server may stop the work; its late answer, if any, is dropped (its id is no longer open).
        if (this.endReason === undefined) void this.notify('notifications/cancelled', { requestId: id, reason: reason.message }).catch(() => undefined);
        reject(reason);
      };
      this.pending.set(id, {
        method,
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => giveUp(new McpServerError(`MCP server '${this.server}' did not answer ${method} within ${timeoutMs} ms`)), timeoutMs);
      }
      this.send({ jsonrpc: '2.0', id, method, params }).catch(() => {
        // The connection is gone: `ended` fails the request with the reason, once it is known.
      });
    });
  }

  private notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  private send(message: JsonRpcMessage): Promise<void> {
    if (this.port === undefined) return Promise.reject(new Error('not connected'));
    return this.port.send(message);
  }

  private receive(message: JsonRpcMessage): void {
    if (isRequest(message)) {
      const answer: JsonRpcReply =
        message.method === 'ping'
          ? { jsonrpc: '2.0', id: message.id, result: {} }
          : errorReply(message.id, RPC_ERRORS.methodNotFound, `agentctl's MCP client does not handle ${message.method}`);
      void this.send(answer).catch(() => undefined);
      return;
    }
    // Progress, logging and list-changed notifications: nothing the agent acts on.
    if (isNotification(message)) return;
    const id = message.id;
    const open = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (open === undefined) return;
    if (isErrorReply(message)) open.reject(new McpRequestError(message.error));
    else open.resolve(message.result);
  }

  private ended(reason: string): void {
    if (this.endReason !== undefined) return;
    this.endReason = reason;
    for (const open of [...this.pending.values()]) open.reject(this.gone());
  }

  private gone(): McpServerError {
    return new McpServerError(`MCP server '${this.server}' ${this.endReason ?? 'ended'} before it answered`);
  }

  private broke(what: string): McpServerError {
    return new McpServerError(`MCP server '${this.server}' ${what}`);
  }

  private listedTool(value: unknown): McpListedTool {
    if (!isObject(value) || typeof value['name'] !== 'string' || value['name'] === '') throw this.broke('listed a tool without a name');
    const tool: McpListedTool = { name: value['name'], inputSchema: value['inputSchema'], annotations: annotationsOf(value['annotations']) };
    if (typeof value['title'] === 'string') tool.title = value['title'];
    if (typeof value['description'] === 'string') tool.description = value['description'];
    return tool;
  }
}
