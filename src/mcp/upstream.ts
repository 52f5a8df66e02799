/**
 * A connection to a real MCP server, whatever carries it (a child process's stdio, streamable
 * HTTP): messages out, messages in, and the end. The built-in agent's client (the loop's MCP
 * tools) and the record/replay wrapper both talk to servers through this, so there is one way to
 * start, reach and stop a server.
 */
import type { JsonRpcMessage } from './protocol.js';

export interface McpServerHandlers {
  /** A message from the server: a reply, a notification, or a request of its own. */
  message(message: JsonRpcMessage): void;
  /**
   * The connection ended and will carry nothing more (the process exited or was killed, the HTTP
   * session ended, the server broke the protocol): `reason` says so in words, as
   * `exited with code 1`, `killed by SIGKILL`. Called once, also after close().
   */
  ended(reason: string): void;
}

export interface McpServerPort {
  /** Send one message. Rejects when the connection has ended (a request's answer then never comes). */
  send(message: JsonRpcMessage): Promise<void>;
  /** Stop the server (a process: its input closed, then SIGTERM, then SIGKILL) and wait for the end. */
  close(): Promise<void>;
}

export interface McpUpstream {
  /** How messages name the server: `npx @modelcontextprotocol/server-memory`, `https://host/mcp`. */
  readonly label: string;
  /** Start the server (or open the session) and begin delivering its messages to `handlers`. */
  open(handlers: McpServerHandlers): Promise<McpServerPort>;
}
