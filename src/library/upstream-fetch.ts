/**
 * Where the live calls of a `new-episodes` or `passthrough` session go: the request as the client
 * made it, or moved onto another base URL (by default, for new-episodes, the endpoint the tape was
 * recorded against) with the API path kept, and another key when one is given.
 */
import { asRequest, requestText } from '../llm/transport/request-body.js';
import type { FetchLike } from './fetch-like.js';

export interface Upstream {
  /** Base URL the calls go to; '' (or absent, with no recorded endpoint): where the client sent them. */
  url?: string;
  /** API key sent instead of the client's (as `Authorization: Bearer`). */
  apiKey?: string;
  /** The fetch that sends them. Default: the session's `fetch` option, else the global fetch. */
  fetch?: FetchLike;
}

export function upstreamFetch(upstream: Upstream, base: string | undefined, fallback: FetchLike | undefined): FetchLike {
  const send = upstream.fetch ?? fallback ?? ((input, init) => globalThis.fetch(input, init));
  return async (input, init) => {
    const request = asRequest(input, init);
    // As it is (its body still unread, already known to the readers before): nothing to change.
    if (upstream.apiKey === undefined && (base === undefined || base === '')) return send(request);
    const headers = new Headers(request.headers);
    if (upstream.apiKey !== undefined) headers.set('authorization', `Bearer ${upstream.apiKey}`);
    if (base === undefined || base === '') return send(new Request(request, { headers }));
    const url = new URL(request.url);
    const target = new URL(base.replace(/\/?$/, '/') + apiPath(url.pathname) + url.search);
    const body = request.body === null ? null : await requestText(request);
    return send(new Request(target, { method: request.method, headers, body, signal: request.signal }));
  };
}

/**
 * The API part of a path: from a known endpoint on (`/openai/v1/chat/completions` →
 * `chat/completions`), else the path without its version prefix (`/v1/audio/speech` → `audio/speech`).
 */
function apiPath(pathname: string): string {
  const match = /\/(chat\/completions|responses|embeddings|models|completions|files|moderations)(\/.*)?$/.exec(pathname);
  return match === null ? pathname.replace(/^\/(v\d+\/)?/, '') : match[0].replace(/^\//, '');
}
