/**
 * The HTTP plumbing of `agentctl proxy`: what of a client's request is passed on (where it goes:
 * routes.ts), and how a `Response` (recorded, replayed or straight from upstream) is written back to
 * the client — a stream chunk by chunk, as it arrives.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { UsageError } from '../core/errors.js';
import { StreamCut } from '../library/recording-stream.js';
import { CREDENTIAL_HEADERS } from '../llm/transport/http-reply.js';
import { isAnthropicPath, type Route } from './routes.js';

/**
 * Read and check an upstream URL (`--upstream`, or `where` it came from: `$OPENAI_BASE_URL`): http(s),
 * no credentials in it (the key comes from the environment).
 */
export function parseUpstream(value: string, where = '--upstream'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${where} is not a URL: '${value}'`, { hint: 'e.g. --upstream https://api.openai.com/v1' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${where} must be http(s): '${value}'`);
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${where} must not carry credentials`, { hint: 'the API key is read from the environment' });
  }
  url.hash = '';
  return url;
}

/**
 * Headers never passed on: hop-by-hop ones, those the request is re-framed without, and every header
 * that carries the client's own credentials (the proxy sets the upstream's key itself).
 */
const DROPPED = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'content-length',
  'accept-encoding',
  ...CREDENTIAL_HEADERS,
]);

/** A request as it goes on, as `fetch(url, init)` arguments (a `Request` with a body can be read only once). */
export interface Outgoing {
  url: string;
  init: RequestInit & { method: string; headers: Headers };
}

/**
 * The request as it goes on: the client's method, body and headers (without its credentials), to
 * the route's URL, with the route's key in its API's header when there is one. It never leaves the
 * process with a client's key in it.
 */
export function outgoingRequest(req: IncomingMessage, body: Buffer, route: Route, signal: AbortSignal): Outgoing {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || DROPPED.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const key = route.credential;
  if (key !== undefined) {
    // An Anthropic client behind a single upstream keeps the header it sent its own key in.
    const anthropicClient = req.headers['x-api-key'] !== undefined && isAnthropicPath(req.url ?? '/');
    if (key.header === 'x-api-key' || anthropicClient) headers.set('x-api-key', key.key);
    else headers.set('authorization', `Bearer ${key.key}`);
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const hasBody = method !== 'GET' && method !== 'HEAD' && body.length > 0;
  return { url: route.url.href, init: { method, headers, body: hasBody ? new Uint8Array(body) : null, signal } };
}

/**
 * The whole body of a client's request, or undefined when it is larger than `max` bytes: then no more
 * of it is kept (what still arrives is read and dropped), so a huge body costs no more memory than `max`.
 */
export function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length']) > max) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    let parts: Buffer[] = [];
    let size = 0;
    req.on('data', (part: Buffer) => {
      size += part.length;
      if (size <= max) {
        parts.push(part);
        return;
      }
      parts = [];
      resolve(undefined);
    });
    req.on('end', () => resolve(size > max ? undefined : Buffer.concat(parts, size)));
    req.on('error', reject);
    // Before its end: the connection closed (the client went away, or the proxy cut it).
    req.on('close', () => reject(new Error('the client closed the connection')));
  });
}

/** Why a call still under way when a stopping proxy's grace period ends is cut: what its client sees, and its recording says. */
export const CUT = 'agentctl proxy stopped before the reply was complete';

/** Response headers not passed back: the body is re-framed here, and fetch already decoded it. */
const NOT_RETURNED = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/**
 * Write a Response to the client: status and headers at once (with the first chunk when it is
 * already there), then the body chunk by chunk as it arrives (a stream is flushed per chunk). If the client goes away, the body is cancelled (so a
 * recording notes where the client stopped reading); if the proxy cuts it (`cutting()`: shutting
 * down), it is cancelled as a stream that broke. Resolves when the exchange is over.
 */
export async function sendResponse(res: ServerResponse, response: Response, cutting: () => boolean = () => false): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!NOT_RETURNED.has(name)) headers[name] = value;
  });
  res.writeHead(response.status, response.statusText === '' ? undefined : response.statusText, headers);
  if (response.body === null) {
    await ended(res);
    return;
  }
  // The headers go out with the first chunk when it is already there (one write, one wake-up of the
  // client instead of two), else at the next turn of the loop: a client still has them at once while
  // the answer is slow to start.
  const flush = setImmediate(() => res.flushHeaders());
  const reader = response.body.getReader();
  let gone = false;
  const onClose = (): void => {
    if (res.writableFinished) return;
    gone = true;
    const reason = cutting() ? new StreamCut(CUT) : new Error('the client closed the connection');
    // (The same words as the server's abort of the upstream call, whichever reaches the recording first.)
    void reader.cancel(reason).catch(() => undefined);
  };
  res.on('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || gone) break;
      const written = res.write(value);
      clearImmediate(flush);
      if (!written) await drained(res);
    }
    if (!gone) await ended(res);
  } catch (error) {
    // The body broke mid-way (upstream cut the stream, or the tape recorded such a break): cut the client's too.
    if (!gone) res.destroy(error as Error);
  } finally {
    clearImmediate(flush);
    res.off('close', onClose);
  }
}

/** End the reply; resolves once it is handed to the system (or the connection is gone). */
function ended(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    res.once('close', resolve);
    res.end(() => resolve());
  });
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * An error reply of the proxy's own, in the OpenAI error shape (clients show its message); `retry:
 * false` tells clients not to retry it; `close` ends the connection after it (a request not read).
 */
export function sendError(
  res: ServerResponse, status: number, code: string, message: string, options: { retry?: boolean; close?: boolean } = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(options.retry === true ? {} : { 'x-should-retry': 'false' }),
    ...(options.close === true ? { connection: 'close' } : {}),
  });
  res.end(JSON.stringify({ error: { message, type: code, code, param: null } }));
}
