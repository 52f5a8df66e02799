/**
 * `agentctl run --mcp-url <name>=<url>`: a streamable HTTP MCP server served on the run's own proxy
 * at `/mcp/<name>` (src/mcp/http-proxy.ts), its traffic on the run's tape beside the model calls,
 * and the command told where in `AGENTCTL_MCP_URL_<NAME>`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { UsageError } from '../../core/errors.js';
import { mcpServerNameSchema } from '../../core/tool-spec-schema.js';
import type { KeyRedactor } from '../../library/key-redactor.js';
import { endpointOf } from '../../mcp/http-upstream.js';
import { mcpHttpProxy, type McpHttpProxy } from '../../mcp/http-proxy.js';
import type { McpLink } from '../../mcp/link.js';

export interface McpUrl {
  name: string;
  url: string;
}

/** The `--mcp-url` values, checked: each `<name>=<http(s) url>`, each name once. */
export function parseMcpUrls(values: readonly string[]): McpUrl[] {
  const out: McpUrl[] = [];
  for (const value of values) {
    const equals = value.indexOf('=');
    const name = equals === -1 ? '' : value.slice(0, equals);
    if (equals === -1 || !mcpServerNameSchema.safeParse(name).success) {
      throw new UsageError('--mcp-url: give <name>=<url>, the name 1-48 of A-Z a-z 0-9 _ -', { hint: 'agentctl run --mcp-url docs=https://example.com/mcp -- <command>' });
    }
    const url = value.slice(equals + 1);
    try {
      endpointOf(url);
    } catch (error) {
      throw new UsageError(`--mcp-url ${name}: ${(error as Error).message}`);
    }
    if (out.some((given) => given.name === name)) throw new UsageError(`--mcp-url ${name}: given twice`);
    out.push({ name, url });
  }
  return out;
}

/** The variable that tells the command where a server is: `AGENTCTL_MCP_URL_DOCS` for `docs`. */
export function mcpUrlEnv(name: string): string {
  return `AGENTCTL_MCP_URL_${name.toUpperCase().replace(/-/g, '_')}`;
}

export interface McpUrlMounts {
  /** Whether a request's path (`req.url`) is one of the servers'. */
  owns(url: string | undefined): boolean;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** The command's variables, the proxy at `origin` (`http://127.0.0.1:<port>`). */
  env(origin: string): Record<string, string>;
  /** Close every session of every server (what is under way written): before the tape is finished. */
  close(): Promise<void>;
}

const pathOf = (url: string | undefined): string => new URL(url ?? '/', 'http://localhost').pathname;

export function mcpUrlMounts(urls: readonly McpUrl[], link: McpLink, redact: KeyRedactor, note: (line: string) => void): McpUrlMounts {
  const proxies = new Map<string, McpHttpProxy>();
  for (const { name, url } of urls) {
    proxies.set(`/mcp/${name}`, mcpHttpProxy({ server: name, link, url, redact, note, credentials: (headers) => redact.learn(headers) }));
  }
  return {
    owns: (url) => proxies.has(pathOf(url)),
    handle: (req, res) => {
      proxies.get(pathOf(req.url))?.handle(req, res);
      return Promise.resolve();
    },
    env: (origin) => Object.fromEntries(urls.map(({ name }) => [mcpUrlEnv(name), `${origin}/mcp/${name}`])),
    close: async () => {
      await Promise.all([...proxies.values()].map((proxy) => proxy.close()));
    },
  };
}
