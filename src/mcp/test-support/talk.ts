/**
 * A conversation driven message by message, as a transport drives it, for tests that need to say
 * exactly when each client message comes: what the conversation sent the client, and a way to await
 * a message of it.
 */
import { createRedactor } from '../../core/redact.js';
import { openConversation, type McpConversation } from '../conversation.js';
import { isReply, type JsonRpcId, type JsonRpcMessage, type JsonRpcRequest } from '../protocol.js';
import type { McpUpstream } from '../upstream.js';
import type { MemoryLink } from './memory-link.js';

export interface Talk {
  conversation: McpConversation;
  /** Everything the conversation sent the client, in order. */
  got: JsonRpcMessage[];
  /** The first message sent to the client that `matches`, once it came. */
  when(matches: (message: JsonRpcMessage) => boolean): Promise<JsonRpcMessage>;
  /** The answer of request `id`, once it came. */
  answer(id: JsonRpcId): Promise<JsonRpcMessage>;
}

export async function talk(link: MemoryLink, upstream: McpUpstream, server = 'fake'): Promise<Talk> {
  const got: JsonRpcMessage[] = [];
  const waiting: Array<{ matches(message: JsonRpcMessage): boolean; done(message: JsonRpcMessage): void }> = [];
  const conversation = await openConversation({
    server,
    link,
    upstream,
    redact: createRedactor({ patterns: link.redact }),
    toClient: (message) => {
      got.push(message);
      for (const waiter of waiting.filter((candidate) => candidate.matches(message))) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.done(message);
      }
    },
  });
  const when = (matches: (message: JsonRpcMessage) => boolean): Promise<JsonRpcMessage> => {
    const found = got.find(matches);
    return found === undefined ? new Promise((done) => waiting.push({ matches, done })) : Promise.resolve(found);
  };
  return { conversation, got, when, answer: (id) => when((message) => isReply(message) && message.id === id) };
}

let nextId = 100;

/** A client request (an id of its own unless given). */
export function request(method: string, params?: Record<string, unknown>, id: JsonRpcId = nextId++): JsonRpcRequest {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export const call = (name: string, args: Record<string, unknown>, id?: JsonRpcId): JsonRpcRequest => request('tools/call', { name, arguments: args }, id);

export const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
export const INITIALIZED: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** The ids of the answers among `got`, in order. */
export const answeredIds = (got: readonly JsonRpcMessage[]): unknown[] => got.filter(isReply).map((message) => message.id);
