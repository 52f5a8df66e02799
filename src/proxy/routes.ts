/**
 * Where the proxy sends a request, by the API its path belongs to: one table for every mode, so a
 * command that talks to OpenAI and Anthropic through one proxy (`agentctl run`) reaches both.
 *
 * - OpenAI (every path but Anthropic's): the client's base URL is the proxy's `/v1`, and
 *   `<proxy>/v1/<rest>` goes to `<base>/<rest>` (`/v1/chat/completions` →
 *   `http://127.0.0.1:1234/v1/chat/completions` for the base `http://127.0.0.1:1234/v1`); a path
 *   without a leading `/v1` is appended whole.
 * - Anthropic (`/v1/messages`, `/v1/messages/…`): its SDKs append `/v1/messages` to a base URL
 *   without `/v1`, so the path is appended whole to the Anthropic base (`https://api.anthropic.com`).
 *
 * A table without an Anthropic route sends those paths to the OpenAI one, as `agentctl proxy
 * --upstream` does. Each route carries its own key, set in the header its API reads. The
 * upstream's own query parameters (e.g. an `api-version`) are added to every request's.
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

/** The header and value a request carries for its upstream's key. */
export interface Credential {
  header: string;
  value: string;
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
  if (table.anthropic !== undefined && isAnthropicPath(requestPath)) {
    const { url, apiKey } = table.anthropic;
    return { url: appendPath(url, requestPath), credential: apiKey === undefined || apiKey === '' ? undefined : { header: 'x-api-key', value: apiKey } };
  }
  const { url, apiKey } = table.openai;
  return { url: mapPath(url, requestPath), credential: apiKey === undefined || apiKey === '' ? undefined : { header: 'authorization', value: `Bearer ${apiKey}` } };
}

/** The URL a client's OpenAI request (`req.url`: path and query) goes to under `base` (see the module comment). */
export function mapPath(base: URL, requestPath: string): URL {
  return appendPath(base, requestPath, (pathname) => pathname.replace(/^\/v1(?=\/|$)/, ''));
}

/** `base` with the client's path (as `rest` keeps it) appended, and its query added to the base's own. */
function appendPath(base: URL, requestPath: string, rest: (pathname: string) => string = (pathname) => pathname): URL {
  const client = new URL(requestPath, 'http://proxy.invalid');
  const target = new URL(base.href);
  target.pathname = base.pathname.replace(/\/+$/, '') + rest(client.pathname);
  for (const [name, value] of client.searchParams) target.searchParams.append(name, value);
  return target;
}
