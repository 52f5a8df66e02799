/**
 * The events the wrapper writes for MCP traffic (docs/tape-format.md): a `tools/call` as a
 * tool_call (its redacted arguments as canonical JSON, keyed as every tool call is) and a
 * tool_result (what a model reads of the answer, and the answer whole as the client got it), any
 * other message as an mcp_exchange. Every value that came from the client or the server goes
 * through the redactor first: the tape never holds a key, and a replay's arguments, redacted the
 * same way, key the same.
 */
import type { McpReply } from '../core/events.js';
import { callKey } from '../guardrails/call-key.js';
import { canonicalJson } from '../guardrails/canonical-json.js';
import type { McpCallInput, McpEventInput } from './link.js';
import { RPC_ERRORS, type JsonRpcReply } from './protocol.js';
import { mcpToolOutput } from './tool-output.js';

export interface Notification {
  method: string;
  params?: Record<string, unknown>;
}

/** A notification's method and params, without an absent `params` key (the tape's schema has no undefined). */
export function notificationOf(message: Notification): Notification {
  return message.params === undefined ? { method: message.method } : { method: message.method, params: message.params };
}

/** A tools/call request's tool name and arguments (an absent or non-object `arguments` reads as `{}`). */
export function callOf(params: Record<string, unknown> | undefined): { tool: string; args: Record<string, unknown> } {
  const tool = typeof params?.['name'] === 'string' ? params['name'] : '';
  const args = params?.['arguments'];
  return { tool, args: typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {} };
}

/** The tool_call of a tools/call, its arguments already redacted. */
export function callInput(server: string, tool: string, redactedArgs: Record<string, unknown>): McpCallInput {
  return { type: 'tool_call', tool, arguments: canonicalJson(redactedArgs), key: callKey(tool, redactedArgs), server };
}

/** The reply as the tape keeps it: the answer and the notifications that came with it. */
export function replyOf(message: JsonRpcReply | undefined, notifications: readonly Notification[]): McpReply {
  const reply: McpReply = {};
  if (message !== undefined) {
    if ('result' in message) reply.result = message.result;
    else reply.error = message.error;
  }
  if (notifications.length > 0) reply.notifications = notifications.map(notificationOf);
  return reply;
}

/** The tool_result of a call answered with `reply` (already redacted); `missing` is its output when no answer came. */
export function resultInput(server: string, callId: string, tool: string, reply: McpReply, durationMs: number, missing: string): McpEventInput {
  let status: 'ok' | 'error' | 'timeout' = 'error';
  let output = missing;
  if (reply.error !== undefined) {
    output = reply.error.message;
    if (reply.error.code === RPC_ERRORS.requestTimeout) status = 'timeout';
  } else if (reply.result !== undefined) {
    const read = mcpToolOutput(reply.result);
    output = read.text;
    status = read.isError ? 'error' : 'ok';
  }
  return { type: 'tool_result', callId, tool, status, output, durationMs, server, mcp: reply };
}

/** An mcp_exchange: a request with its reply (none for a notification, or a request never answered). */
export function exchangeInput(
  server: string,
  from: 'client' | 'server',
  method: string,
  params: Record<string, unknown> | undefined,
  reply?: McpReply,
  durationMs?: number,
): McpEventInput {
  return {
    type: 'mcp_exchange',
    server,
    from,
    method,
    ...(params === undefined ? {} : { params }),
    ...(reply === undefined ? {} : { reply }),
    ...(durationMs === undefined ? {} : { durationMs }),
  };
}

