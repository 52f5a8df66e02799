/**
 * JSON-RPC 2.0 as the Model Context Protocol uses it: the four kinds of message, how to tell them
 * apart, and the error codes agentctl answers with. A message comes from outside (an agent, a
 * server, a tape), so reading one checks its shape and never trusts it further.
 */

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcResult {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorReply {
  jsonrpc: '2.0';
  /** null when the request's id could not be read. */
  id: JsonRpcId | null;
  error: JsonRpcError;
}

export type JsonRpcReply = JsonRpcResult | JsonRpcErrorReply;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcReply;

/** The largest message agentctl reads (a line on stdio, a body over HTTP): 16 MiB, as a tape line may hold. */
export const MAX_MCP_MESSAGE_BYTES = 16 * 1024 * 1024;

/** JSON-RPC's codes, and the ones agentctl answers with (the -32000s are the implementation's own). */
export const RPC_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** The server went away (exited, was killed, closed its output) before it answered. */
  connectionClosed: -32000,
  /** A replay refused a call: the tape has no answer for it, and it may not run again (not read-only). */
  notReplayed: -32001,
  /** A request timed out. */
  requestTimeout: -32002,
} as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is JsonRpcId => typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return 'method' in message && 'id' in message;
}

export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return 'method' in message && !('id' in message);
}

export function isReply(message: JsonRpcMessage): message is JsonRpcReply {
  return !('method' in message);
}

export function isErrorReply(message: JsonRpcMessage): message is JsonRpcErrorReply {
  return isReply(message) && 'error' in message;
}

/**
 * One JSON-RPC message from a parsed JSON value, or a string saying why it is not one. Batches
 * (arrays) are not messages: the transports take them apart first (the 2025 protocol has none).
 */
export function readMessage(value: unknown): JsonRpcMessage | string {
  if (!isObject(value)) return 'not a JSON-RPC message (not an object)';
  if (value['jsonrpc'] !== '2.0') return 'not a JSON-RPC 2.0 message ("jsonrpc" is not "2.0")';
  const { method, id, params } = value;
  if (params !== undefined && !isObject(params)) return 'JSON-RPC "params" must be an object';
  if (method !== undefined) {
    if (typeof method !== 'string' || method === '') return 'JSON-RPC "method" must be a non-empty string';
    if (id === undefined) return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    if (!isId(id)) return 'JSON-RPC "id" must be a string or a number';
    return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
  }
  if (id !== null && !isId(id)) return 'a JSON-RPC reply needs the "id" of its request';
  if ('result' in value) {
    if (!isObject(value['result']) || id === null) return 'a JSON-RPC result must be an object answering a request id';
    return { jsonrpc: '2.0', id, result: value['result'] };
  }
  const error = value['error'];
  if (!isObject(error) || typeof error['code'] !== 'number' || !Number.isInteger(error['code']) || typeof error['message'] !== 'string') {
    return 'a JSON-RPC reply needs a "result" or an "error" with an integer "code" and a "message"';
  }
  const read: JsonRpcError = { code: error['code'], message: error['message'] };
  if (error['data'] !== undefined) read.data = error['data'];
  return { jsonrpc: '2.0', id: id, error: read };
}

/** A JSON-RPC error reply to `id`. */
export function errorReply(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcErrorReply {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

/**
 * Splits a byte stream into lines (MCP's stdio framing: one JSON message per line, `\n`-terminated,
 * a `\r` before it tolerated). A line longer than `max` bytes is dropped whole and reported, so a
 * peer cannot make agentctl hold unbounded input.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onTooLong: (bytes: number) => void,
    private readonly max = MAX_MCP_MESSAGE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, nl));
      this.flushLine();
      start = nl + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  /** The stream ended: a last line without its newline is still a line. */
  end(): void {
    if (this.size > 0 || this.skipping) this.flushLine();
  }

  private take(part: Buffer): void {
    if (this.skipping) {
      this.size += part.length;
      return;
    }
    this.size += part.length;
    if (this.size > this.max) {
      this.skipping = true;
      this.pending = [];
      return;
    }
    this.pending.push(part);
  }

  private flushLine(): void {
    const size = this.size;
    const skipped = this.skipping;
    const text = skipped ? '' : Buffer.concat(this.pending).toString('utf8');
    this.pending = [];
    this.size = 0;
    this.skipping = false;
    if (skipped) {
      this.onTooLong(size);
      return;
    }
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line.trim() !== '') this.onLine(line);
  }
}
