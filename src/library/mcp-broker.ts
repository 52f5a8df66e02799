/**
 * A session's MCP link (mcp-link.ts) served over HTTP to the MCP wrappers an agent starts as its
 * servers' commands (`agentctl mcp -- <server>`, src/mcp/remote-link.ts): one JSON request per link
 * call, `POST /agentctl/mcp/<token>/<op>`. The token (32 random hex characters, compared in constant
 * time) is the only way in: it reaches the wrappers through the agent's environment
 * (`AGENTCTL_MCP_LINK`), as the run's own processes, and nothing else on the machine knows it.
 * Requests come from 127.0.0.1 only, with bounded bodies; what a body holds is checked before the
 * link gets it (the link checks every event against the tape's schema).
 *
 * `agentctl run` mounts the handler on its proxy; a library session's `mcpServer()` serves it on a
 * port of its own (serveBroker).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { mcpServerNameSchema } from '../core/tool-spec-schema.js';
import type { McpLink } from '../mcp/link.js';
import { MAX_MCP_MESSAGE_BYTES } from '../mcp/protocol.js';

/** Where the broker's paths begin. */
export const BROKER_PREFIX = '/agentctl/mcp/';
/** The environment variable that gives a wrapper the run to join. */
export { MCP_LINK_ENV } from '../mcp/run-link.js';
/** The largest request body: an event holds a message as the client got it and its text for the model. */
export const MAX_BROKER_BODY = 2 * MAX_MCP_MESSAGE_BYTES + 1024 * 1024;

export interface McpBroker {
  /** The broker's path for its link, `/agentctl/mcp/<token>`: a wrapper's link URL is the server's origin and this. */
  readonly path: string;
  /** Whether a request's path (`req.url`) is the broker's to answer. */
  owns(url: string | undefined): boolean;
  /** Answer one request (the caller checked owns()). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

const divergenceSchema = z.strictObject({
  message: z.string(),
  path: z.string().optional(),
  recorded: z.unknown().optional(),
  replayed: z.unknown().optional(),
});
const noteSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('request'),
    server: mcpServerNameSchema,
    method: z.string(),
    tool: z.string().optional(),
    outcome: z.enum(['served', 'live', 'refused']),
    divergence: divergenceSchema.optional(),
  }),
  z.strictObject({ kind: z.literal('end'), server: mcpServerNameSchema, unused: z.number().int().nonnegative() }),
]);
const serverSchema = z.strictObject({ server: mcpServerNameSchema });
/** Calls and events are checked whole by the link, against the tape's own schema. */
const eventBody = z.strictObject({ event: z.record(z.string(), z.unknown()) });
const callBody = z.strictObject({ call: z.record(z.string(), z.unknown()) });
const noteBody = z.strictObject({ note: noteSchema });

/** What a link call answers with, by op. */
type Op = (link: McpLink, body: unknown) => Promise<unknown>;

const OPS: Readonly<Record<string, Op>> = {
  setup: (link) => Promise.resolve({ mode: link.mode, strict: link.strict, allowSideEffects: link.allowSideEffects, redact: link.redact }),
  recorded: async (link, body) => ({ events: await link.recorded(serverSchema.parse(body).server) }),
  writeCall: async (link, body) => ({ callId: await link.writeCall(callBody.parse(body).call as never) }),
  write: async (link, body) => {
    await link.write(eventBody.parse(body).event as never);
    return {};
  },
  report: async (link, body) => {
    await link.report(noteBody.parse(body).note as never);
    return {};
  },
  close: async (link) => {
    await link.close();
    return {};
  },
};

export function mcpBroker(link: McpLink): McpBroker {
  const token = randomBytes(16).toString('hex');
  const expected = Buffer.from(token);
  const path = `${BROKER_PREFIX}${token}`;
  return {
    path,
    owns: (url) => url !== undefined && url.startsWith(BROKER_PREFIX),
    handle: async (req, res) => {
      if (!isLoopback(req.socket.remoteAddress)) return send(res, 403, { error: { message: 'the MCP link answers this machine only' } });
      const [given = '', op = '', ...rest] = (req.url ?? '').slice(BROKER_PREFIX.length).split('?')[0]?.split('/') ?? [];
      const call = Object.hasOwn(OPS, op) ? OPS[op] : undefined;
      // A wrong token and a wrong path look the same from outside.
      if (!sameToken(given, expected) || call === undefined || rest.length > 0) return send(res, 404, { error: { message: 'no such MCP link' } });
      if (req.method !== 'POST') return send(res, 405, { error: { message: 'the MCP link takes POST requests' } });
      const text = await readBounded(req, MAX_BROKER_BODY);
      if (text === undefined) return send(res, 413, { error: { message: `an MCP link request larger than ${MAX_BROKER_BODY} bytes` } }, true);
      let body: unknown;
      try {
        body = text === '' ? {} : JSON.parse(text);
      } catch {
        return send(res, 400, { error: { message: 'an MCP link request that is not JSON' } });
      }
      try {
        send(res, 200, { value: await call(link, body) });
      } catch (error) {
        const bad = error instanceof z.ZodError;
        send(res, bad ? 400 : 500, { error: { message: bad ? `a malformed MCP link request (${op}): ${error.issues[0]?.message ?? ''}` : (error as Error).message } });
      }
    },
  };
}

/** A broker on a port of its own, on 127.0.0.1: `url` is what a wrapper is given (AGENTCTL_MCP_LINK). */
export interface BrokerServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function serveBroker(broker: McpBroker): Promise<BrokerServer> {
  const server = createServer((req, res) => {
    if (!broker.owns(req.url)) {
      send(res, 404, { error: { message: 'no such MCP link' } });
      return;
    }
    broker.handle(req, res).catch((error: unknown) => send(res, 500, { error: { message: String(error) } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  // The wrappers' requests keep their connections open between calls: close() must not wait on idle ones.
  server.keepAliveTimeout = 1_000;
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${broker.path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

function sameToken(given: string, expected: Buffer): boolean {
  const buffer = Buffer.from(given);
  return buffer.length === expected.length && timingSafeEqual(buffer, expected);
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/** The body as text, or undefined when it is larger than `max` bytes (then the rest is read and dropped). */
async function readBounded(req: IncomingMessage, max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= max) chunks.push(chunk);
  }
  return size > max ? undefined : Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown, close = false): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...(close ? { connection: 'close' } : {}) });
  res.end(text);
}
