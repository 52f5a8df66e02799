/**
 * The parts of an HTTP exchange a tape may keep, and how recorded replies are served again. A
 * request's headers are never kept (they carry the client's credentials); of a reply's headers only
 * those clients read (content type, request id, rate limits, retry hints, OpenAI's processing
 * headers), never cookies.
 */
import { createHash } from 'node:crypto';
import type { HttpReply, ModelEndpoint } from '../../core/events.js';
import { canonicalJson } from '../../guardrails/canonical-json.js';
import { chatWire } from './chat-wire.js';
import { responsesWire } from './responses-wire.js';
import type { ModelWire } from './wire.js';

const KEPT = /^(content-type|x-request-id|request-id|retry-after|retry-after-ms|x-ratelimit-[a-z0-9-]+|openai-[a-z0-9-]+|x-should-retry)$/;

/** The headers of a reply a tape keeps. */
export function keptHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    const key = name.toLowerCase();
    if (KEPT.test(key)) out[key] = value;
  });
  return out;
}

/** A body as recorded: parsed JSON when it is JSON, else its text; absent when empty. */
export function bodyValue(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A recorded body as text to send again. */
export function bodyText(body: unknown): string {
  if (body === undefined) return '';
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** A Response for a recorded reply. */
export function replyResponse(reply: HttpReply, body: string | ReadableStream<Uint8Array> | null = bodyText(reply.body)): Response {
  return new Response(reply.status === 204 || reply.status === 304 ? null : body, { status: reply.status, headers: reply.headers });
}

/** The model API a request goes to, from its method and path; undefined: not a model call. */
export function wireFor(method: string, pathname: string): ModelWire | undefined {
  if (method.toUpperCase() !== 'POST') return undefined;
  const path = pathname.replace(/\/+$/, '');
  if (path.endsWith('/chat/completions')) return chatWire;
  if (path.endsWith('/responses')) return responsesWire;
  return undefined;
}

export function wireOf(endpoint: ModelEndpoint | undefined): ModelWire {
  return endpoint === 'responses' ? responsesWire : chatWire;
}

/** The hash an opaque exchange is matched by: method, path and body. */
export function exchangeHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(canonicalJson({ body: body ?? null, method: method.toUpperCase(), path })).digest('hex');
}

/** An error reply of agentctl's own (no match, tape exhausted), in the OpenAI error shape; never retried by clients. */
export function agentctlError(status: number, type: string, message: string, extra: Record<string, unknown> = {}): Response {
  return new Response(JSON.stringify({ error: { message, type, code: type, param: null, ...extra } }), {
    status,
    headers: { 'content-type': 'application/json', 'x-should-retry': 'false' },
  });
}
