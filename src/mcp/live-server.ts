/**
 * The real server behind a conversation: opened at once when recording (the client's own
 * handshake goes through), or — on replay — only when a request the tape cannot answer has to
 * run, and then introduced with the client's `initialize` (sent under an id of agentctl's own,
 * its answer kept from the client, which already had one from the tape) and
 * `notifications/initialized`, as a client would.
 */
import type { JsonRpcMessage, JsonRpcRequest } from './protocol.js';
import { isReply } from './protocol.js';
import type { McpServerPort, McpUpstream } from './upstream.js';

/** The id of agentctl's own `initialize` to a server started on replay (a client's ids are numbers or its own strings). */
const OWN_INITIALIZE_ID = 'agentctl:initialize';

export const DEFAULT_INITIALIZE: Record<string, unknown> = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'agentctl', version: '1' },
};

export interface LiveServerHandlers {
  message(message: JsonRpcMessage): void;
  ended(reason: string, expected: boolean): void;
}

export class LiveServer {
  private port: McpServerPort | undefined;
  private starting: Promise<McpServerPort> | undefined;
  private ownInitialize: { answered(ok: boolean, detail: string): void } | undefined;
  private closing = false;
  /** Why the server ended, once it has. */
  gone: string | undefined;

  constructor(
    private readonly upstream: McpUpstream,
    private readonly handlers: LiveServerHandlers,
  ) {}

  get started(): boolean {
    return this.port !== undefined;
  }

  /** Open the server; with `initialize`, introduce agentctl to it first (a replay's lazy start). */
  start(initialize?: Record<string, unknown>): Promise<McpServerPort> {
    this.starting ??= this.open(initialize);
    return this.starting;
  }

  private async open(initialize: Record<string, unknown> | undefined): Promise<McpServerPort> {
    const port = await this.upstream.open({
      message: (message) => {
        if (isReply(message) && message.id === OWN_INITIALIZE_ID && this.ownInitialize !== undefined) {
          this.ownInitialize.answered('result' in message, 'error' in message ? message.error.message : '');
          return;
        }
        this.handlers.message(message);
      },
      ended: (reason) => {
        this.gone = reason;
        this.ownInitialize?.answered(false, reason);
        this.handlers.ended(reason, this.closing);
      },
    });
    if (initialize !== undefined) {
      const answered = new Promise<void>((ok, fail) => {
        this.ownInitialize = { answered: (good, detail) => (good ? ok() : fail(new Error(`its initialize failed: ${detail}`))) };
      });
      const request: JsonRpcRequest = { jsonrpc: '2.0', id: OWN_INITIALIZE_ID, method: 'initialize', params: initialize };
      try {
        await port.send(request);
        await answered;
        await port.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      } catch (error) {
        await port.close();
        throw error;
      } finally {
        this.ownInitialize = undefined;
      }
    }
    this.port = port;
    return port;
  }

  /** Send to a started server; false when it could not take it (it has ended). */
  async send(message: JsonRpcMessage): Promise<boolean> {
    if (this.port === undefined || this.gone !== undefined) return false;
    try {
      await this.port.send(message);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    const port = this.port ?? (await this.starting?.catch(() => undefined));
    await port?.close();
  }
}
