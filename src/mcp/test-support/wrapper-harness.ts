/**
 * The record/replay wrapper as a test drives it: the official SDK's Client connected to
 * runStdioWrapper through a pair of in-memory streams (the SDK's Transport interface over
 * PassThrough), real MCP servers from the dev dependencies started with this Node, and upstreams
 * that say whether a server was ever started.
 */
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createRedactor } from '../../core/redact.js';
import type { McpLink } from '../link.js';
import { LineSplitter, type JsonRpcMessage } from '../protocol.js';
import { stdioUpstream } from '../stdio-upstream.js';
import { runStdioWrapper } from '../stdio-wrapper.js';
import type { McpServerPort, McpUpstream } from '../upstream.js';

const resolveScript = createRequire(import.meta.url).resolve;
export const MEMORY_SERVER = resolveScript('@modelcontextprotocol/server-memory/dist/index.js');
export const EVERYTHING_SERVER = resolveScript('@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM_SERVER = resolveScript('@modelcontextprotocol/server-filesystem/dist/index.js');
/** test/support/mcp-fake-server.mjs: a server for the cases real ones do not show on demand (its first argument is its mode). */
export const FAKE_SERVER = fileURLToPath(new URL('../../../test/support/mcp-fake-server.mjs', import.meta.url));

/** A server of the dev dependencies, run by this Node with `args` (a test adds a unique one to find its process). */
export function nodeServer(script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): McpUpstream {
  return stdioUpstream({ command: process.execPath, args: [script, ...args], env: { ...process.env, ...env }, stderr: 'ignore', stopGraceMs: 500 });
}

/** The fake server (FAKE_SERVER) in `mode`. */
export const fakeServer = (mode = 'normal'): McpUpstream => nodeServer(FAKE_SERVER, [mode]);

/** An upstream that cannot be started: a replay that must not need its server. */
export const absentServer: McpUpstream = {
  label: 'absent',
  open: () => Promise.reject(new Error('the server is not there')),
};

/** An upstream that counts its starts and stops, and keeps every message sent to the server. */
export function watched(upstream: McpUpstream): McpUpstream & { opened: number; closed: number; sent: JsonRpcMessage[] } {
  const watch = {
    label: upstream.label,
    opened: 0,
    closed: 0,
    sent: [] as JsonRpcMessage[],
    open: async (handlers: Parameters<McpUpstream['open']>[0]): Promise<McpServerPort> => {
      watch.opened++;
      const port = await upstream.open(handlers);
      return {
        send: (message) => {
          watch.sent.push(message);
          return port.send(message);
        },
        close: () => {
          watch.closed++;
          return port.close();
        },
      };
    },
  };
  return watch;
}

/** The SDK's Transport over two streams: what it sends is the wrapper's input, the wrapper's output what it receives. */
class StreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;

  constructor(
    private readonly toWrapper: PassThrough,
    private readonly fromWrapper: PassThrough,
  ) {}

  start(): Promise<void> {
    const lines = new LineSplitter(
      (line) => this.onmessage?.(JSON.parse(line) as JSONRPCMessage),
      () => this.onerror?.(new Error('a line too long')),
    );
    this.fromWrapper.on('data', (chunk: Buffer) => lines.push(chunk));
    this.fromWrapper.on('end', () => this.end());
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (!this.toWrapper.writableEnded) this.toWrapper.write(`${JSON.stringify(message)}\n`);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.toWrapper.end();
    this.end();
    return Promise.resolve();
  }

  private end(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

export interface Wrapped {
  client: Client;
  /** The wrapper's exit code. */
  exit: Promise<number>;
  /** Every line the wrapper wrote to the client, as written. */
  output: string[];
  notes: string[];
  /** Close the client (its input to the wrapper ends) and wait for the wrapper's exit code. */
  close(): Promise<number>;
}

export interface ClientSetup {
  /** What the client says it can do (sampling, roots). */
  capabilities?: ClientCapabilities;
  /** Called before the client connects: its request handlers. */
  prepare?(client: Client): void;
}

/** The wrapper with `link` and `upstream`, and the SDK's client connected to it (the handshake done). */
export async function wrapped(link: McpLink, upstream: McpUpstream, server = 'srv', setup: ClientSetup = {}): Promise<Wrapped> {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: string[] = [];
  const notes: string[] = [];
  const write = output.write.bind(output) as (chunk: string) => boolean;
  output.write = ((chunk: string) => {
    lines.push(chunk);
    return write(chunk);
  }) as typeof output.write;
  const redact = createRedactor({ patterns: link.redact });
  const exit = runStdioWrapper({ server, link, upstream, input, output, redact, note: (line) => notes.push(line) });
  const client = new Client({ name: 'agentctl-test', version: '1.0.0' }, { capabilities: setup.capabilities ?? {} });
  setup.prepare?.(client);
  await client.connect(new StreamTransport(input, output));
  return {
    client,
    exit,
    output: lines,
    notes,
    close: async () => {
      await client.close();
      return exit;
    },
  };
}
