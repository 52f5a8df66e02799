/**
 * Where the proxy sends a request, by the API its path belongs to: one table for every mode, so a
 * command that talks to OpenAI and Anthropic through one proxy (`agentctl run`) reaches both.
 *
 * - OpenAI (every path but Anthropic's): the client's base URL is the proxy's `/v1`, and
 *   `<proxy>/v1/<rest>` goes to `<base>/<rest>` (`/v1/chat/completions` →
 *   `http://127.0.0.1:1234/v1/chat/completions` for the base `http://127.0.0.1:1234/v1`); a path
 *   without a leading `/v1` is appended whole.
 * - Anthropic (`/v1/messages`, `/v1/messages/…`): its SDKs append `/v1/messages` to a base URL
 *   without `/v1`, and Anthropic writes its own base without one (`https://api.anthropic.com`), so
 *   the path keeps its `/v1` unless the base already ends in one.
 *
 * A table without an Anthropic route sends those paths to the OpenAI one (`agentctl proxy
 * --upstream` has one upstream). The key goes in the header its API reads: `x-api-key` on the
 * Anthropic route and for a client that sent its own key there (an Anthropic client behind a
 * single upstream), else `Authorization: Bearer`. The upstream's own query parameters (e.g. an
 * `api-version`) are added to every request's.
 */
/** An upstream API and the key requests to it carry. */
export interface Upstream {
  url: URL;
  apiKey: string | undefined;
}

export interface RouteTable {
  openai: Upstream;
  anthropic?: Upstream;
}

/** The key a request carries to its upstream, and the header its API reads it from. */
export interface Credential {
  key: string;
  /** `x-api-key` (Anthropic's), or `authorization` as a bearer token; a client that sent `x-api-key` gets it there either way. */
  header: 'x-api-key' | 'authorization';
}

export interface Route {
  url: URL;
  credential: Credential | undefined;
}

/** Anthropic's Messages API (and its sub-paths: `count_tokens`, batches). */
export function isAnthropicPath(requestPath: string): boolean {
  const pathname = new URL(requestPath, 'http://proxy.invalid').pathname;
  return /^\/v1\/messages(\/|$)/.test(pathname);
}

/** Where a client's request (`req.url`: path and query) goes, and with which key. */
export function route(table: RouteTable, requestPath: string): Route {
  const anthropicRoute = table.anthropic !== undefined && isAnthropicPath(requestPath);
  const { url, apiKey } = anthropicRoute ? (table.anthropic as Upstream) : table.openai;
  const credential: Credential | undefined = apiKey === undefined || apiKey === '' ? undefined : { key: apiKey, header: anthropicRoute ? 'x-api-key' : 'authorization' };
  return { url: mapPath(url, requestPath), credential };
}

/** The URL a client's request (`req.url`: path and query) goes to under `base` (see the module comment). */
export function mapPath(base: URL, requestPath: string): URL {
  const client = new URL(requestPath, 'http://proxy.invalid');
  const basePath = base.pathname.replace(/\/+$/, '');
  const keepsV1 = isAnthropicPath(requestPath) && !basePath.endsWith('/v1');
  const target = new URL(base.href);
  target.pathname = basePath + (keepsV1 ? client.pathname : client.pathname.replace(/^\/v1(?=\/|$)/, ''));
  for (const [name, value] of client.searchParams) target.searchParams.append(name, value);
  return target;
}
