/**
 * Which upstreams gave no reply. The proxy answers a request whose upstream fetch failed with a 502
 * (server.ts counts them); `agentctl run` names where those requests were going in its summary, so
 * a dead upstream is not hidden behind the command's own exit code.
 */
import type { Upstream } from './routes.js';
import type { ProxyHandler } from './server.js';

export interface WatchedHandler {
  handler: ProxyHandler;
  /** The upstreams (shown as `origin/path`) a fetch failed for, in the order they first did. */
  unreachable(): string[];
}

/** `handler`, its fetch noting the upstream of each request that got no reply (one not cut off by the proxy). */
export function watchUpstreams(handler: ProxyHandler, upstreams: readonly Upstream[]): WatchedHandler {
  const failed = new Set<string>();
  const watched: ProxyHandler = {
    route: (path) => handler.route(path),
    fetch: async (input, init) => {
      try {
        return await handler.fetch(input, init);
      } catch (error) {
        if (init?.signal?.aborted !== true) failed.add(upstreamOf(String(input instanceof Request ? input.url : input), upstreams));
        throw error;
      }
    },
    ...(handler.observe === undefined ? {} : { observe: handler.observe.bind(handler) }),
  };
  return { handler: watched, unreachable: () => [...failed] };
}

/** The upstream a request's URL is under: the longest base it starts with, else its origin. */
function upstreamOf(url: string, upstreams: readonly Upstream[]): string {
  const bases = upstreams.map((u) => shownUrl(u.url)).filter((base) => url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`));
  return bases.sort((a, b) => b.length - a.length)[0] ?? new URL(url).origin;
}

/** An upstream as messages show it: origin and path, no credentials, no trailing slash. */
export function shownUrl(url: URL): string {
  return `${url.origin}${url.pathname.replace(/\/$/, '')}`;
}
