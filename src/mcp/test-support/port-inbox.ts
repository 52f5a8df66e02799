/**
 * What a test needs of a server connection's messages: handlers that collect them, a way to await the
 * next one, and how the connection ended (the reason, and every reason given, to see it is given once).
 */
import type { JsonRpcMessage } from '../protocol.js';
import type { McpServerHandlers } from '../upstream.js';

export interface PortInbox {
  handlers: McpServerHandlers;
  /** The next message, once it has come. */
  next(): Promise<JsonRpcMessage>;
  /** The first reason the connection ended. */
  ended: Promise<string>;
  /** Every reason given (one, when the connection reports its end once). */
  reasons: string[];
}

export function portInbox(): PortInbox {
  const messages: JsonRpcMessage[] = [];
  const waiting: Array<() => void> = [];
  const reasons: string[] = [];
  let reportEnd: (reason: string) => void = () => undefined;
  const ended = new Promise<string>((done) => (reportEnd = done));
  return {
    handlers: {
      message: (message) => {
        messages.push(message);
        for (const wake of waiting.splice(0)) wake();
      },
      ended: (reason) => {
        reasons.push(reason);
        reportEnd(reason);
      },
    },
    next: async () => {
      while (messages.length === 0) await new Promise<void>((wake) => waiting.push(wake));
      return messages.shift() as JsonRpcMessage;
    },
    ended,
    reasons,
  };
}
