/**
 * A `fetch` on node:http(s): what `agentctl proxy` sends every call upstream with, in every mode
 * (the library's recording, replaying and upstream fetches take it as their `fetch`, as they take a
 * user's). It speaks the same `Request` → `Response` as the global fetch, for http(s) URLs, at a
 * fraction of its cost per call: undici's fetch runs the whole Fetch standard around a connection
 * (its own Request, an AbortSignal that follows the caller's, web streams inside), which was about
 * half of what the proxy added to a streamed call's first byte against a local server
 * (BENCHMARKS.md, "Proxy overhead"). Connections are kept alive, as the global fetch keeps them.
 *
 * What a caller sees is what the global fetch gives: the status and headers as sent, a body
 * decoded when the server compressed it (gzip, deflate, br), a stream that breaks with an error when
 * the connection does, and the signal's reason when the call is aborted.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { asRequest, requestBytes } from './request-body.js';

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/** Statuses whose reply has no body (a `Response` with one could not be made). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export async function httpFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = asRequest(input, init);
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`fetch failed: ${url.protocol} URLs are not sent upstream`);
  const { signal } = request;
  const body = (await requestBytes(request)) ?? undefined;
  // (After the body: an abort while it was read is seen here, before the call goes out.)
  signal.throwIfAborted();
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (body !== undefined) headers['content-length'] = String(body.length);
  const https = url.protocol === 'https:';
  const message = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(url, { method: request.method, headers, agent: https ? agents.https : agents.http });
    // A call is one write each way; Nagle's algorithm would only hold a small one back.
    req.setNoDelay(true);
    const abort = (): void => {
      req.destroy();
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
    req.once('response', (res) => {
      signal.removeEventListener('abort', abort);
      resolve(res);
    });
    req.once('error', (error) => {
      signal.removeEventListener('abort', abort);
      reject(new TypeError('fetch failed', { cause: error }));
    });
    req.end(body);
  });
  const responseHeaders = new Headers();
  const raw = message.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i] as string, raw[i + 1] as string);
  const status = message.statusCode ?? 502;
  const reply = { status, statusText: message.statusMessage ?? '', headers: responseHeaders };
  if (NULL_BODY.has(status) || request.method === 'HEAD') {
    message.resume();
    return new Response(null, reply);
  }
  return new Response(bodyStream(decoded(message), message, signal), reply);
}

/** The reply's bytes as the server meant them: decompressed when it says it compressed them. */
function decoded(message: IncomingMessage): Readable {
  const coding = (message.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder = coding === 'gzip' || coding === 'x-gzip' ? createGunzip() : coding === 'deflate' ? createInflate() : coding === 'br' ? createBrotliDecompress() : undefined;
  if (decoder === undefined) return message;
  message.on('error', (error) => decoder.destroy(error));
  return message.pipe(decoder);
}

/**
 * A node stream as a web ReadableStream, read as it is pulled (a client that reads slowly holds the
 * upstream back, as with the global fetch). A connection that ends before the reply does breaks it
 * with `terminated`, as the global fetch's does; an abort, with the signal's reason.
 */
function bodyStream(source: Readable, message: IncomingMessage, signal: AbortSignal): ReadableStream<Uint8Array> {
  let finished = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (error: unknown): void => {
        if (finished) return;
        finished = true;
        signal.removeEventListener('abort', aborted);
        controller.error(error);
        message.destroy();
      };
      const aborted = (): void => fail(signal.reason);
      signal.addEventListener('abort', aborted, { once: true });
      source.on('data', (chunk: Buffer) => {
        // Data already read when the reader cancelled or the stream failed is no one's: dropped.
        if (finished) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
        if ((controller.desiredSize ?? 0) <= 0) source.pause();
      });
      source.once('end', () => {
        if (finished) return;
        finished = true;
        signal.removeEventListener('abort', aborted);
        controller.close();
      });
      source.once('error', (error) => fail(new TypeError('terminated', { cause: error })));
      // The connection closed before the reply was complete (node:http says so with `aborted`).
      message.once('aborted', () => fail(new TypeError('terminated', { cause: new Error('the connection closed before the reply ended') })));
      message.once('close', () => {
        if (!message.complete) fail(new TypeError('terminated', { cause: new Error('the connection closed before the reply ended') }));
      });
    },
    pull() {
      source.resume();
    },
    cancel() {
      finished = true;
      message.destroy();
      if (source !== message) source.destroy();
    },
  });
}
