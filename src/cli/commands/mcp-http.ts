/**
 * The streamable HTTP side of `agentctl mcp` (`--url`): a local endpoint, `http://<host>:<port>/mcp`,
 * that stands in for a server reached by URL (src/mcp/http-proxy.ts): the agent's MCP client points
 * at it, each session it opens is recorded onto the tape or served from it, and the real server is
 * reached when it must be. It serves until SIGINT or SIGTERM; then every session is closed (what is
 * still under way written) before the caller finishes the tape.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidOptionError, UsageError } from '../../core/errors.js';
import type { KeyRedactor } from '../../library/key-redactor.js';
import { endpointOf } from '../../mcp/http-upstream.js';
import { mcpHttpProxy } from '../../mcp/http-proxy.js';
import type { McpLink } from '../../mcp/link.js';

export interface ServeMcpUrlOptions {
  server: string;
  url: string;
  link: McpLink;
  redact: KeyRedactor;
  /** `--host`, default 127.0.0.1. */
  host?: string;
  /** `--port`, default a free one. */
  port?: string;
  /** A line for the user (standard error), without the prefix. */
  note(line: string): void;
}

/** `--port`: 0-65535 (0, the default, a free one). */
export function portOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--port ${JSON.stringify(text)}: a port is a number from 0 to 65535`);
  return port;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(new InvalidOptionError(error.code === 'EADDRINUSE' ? `--port ${port} is in use` : `cannot listen on ${host} port ${port}: ${error.message}`));
    });
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** Serve the endpoint until SIGINT or SIGTERM, then close every session; resolves once they are closed. */
export async function serveMcpUrl(options: ServeMcpUrlOptions): Promise<void> {
  endpointOf(options.url);
  const host = options.host ?? '127.0.0.1';
  const port = portOf(options.port);
  const proxy = mcpHttpProxy({
    server: options.server,
    link: options.link,
    url: options.url,
    redact: options.redact,
    note: options.note,
    credentials: (headers) => options.redact.learn(headers),
  });
  const server = createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname === '/mcp') {
      proxy.handle(req, res);
      return;
    }
    req.resume();
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('agentctl mcp: the MCP endpoint is /mcp\n');
  });
  const bound = await listen(server, port, host);
  const shown = host.includes(':') ? `[${host}]` : host;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  options.note(`listening on http://${shown}:${bound}/mcp`);
  try {
    await stopped;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await proxy.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
