/**
 * The parts of an HTTP exchange a tape may keep, and how recorded replies are served again. A
 * request's headers are never kept (they carry the client's credentials); of a reply's headers only
 * those clients read (content type, request id, rate limits, retry hints, OpenAI's processing
 * headers), never cookies. Query parameters named like credentials (`key`, `api_key`, `token`,
 * `sig`…) and any the redactor finds are `[REDACTED]` in a recorded path. A body that is not text
 * (audio, images, files, a multipart upload) is kept as base64, byte for byte.
 */
import { createHash } from 'node:crypto';
import type { HttpReply, ModelEndpoint } from '../../core/events.js';
import { REDACTED, replaceSpans, type Redactor } from '../../core/redact.js';
import { canonicalJson } from '../../guardrails/canonical-json.js';
import { nestsDeeperThan } from '../../tape/json-depth.js';
import { HEADER_VALUE } from '../../tape/schema.js';
import { TAPE_LIMITS } from '../../tape/tape-limits.js';
import { anthropicWire } from './anthropic-wire.js';
import { chatWire } from './chat-wire.js';
import { responsesWire } from './responses-wire.js';
import { requestBytes } from './request-body.js';
import type { ModelWire } from './wire.js';

const KEPT = /^(content-type|x-request-id|request-id|retry-after|retry-after-ms|x-ratelimit-[a-z0-9-]+|openai-[a-z0-9-]+|x-should-retry)$/;

/** The headers of a reply a tape keeps (a value a tape could not hold, such as one with control characters, is left out). */
export function keptHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    const key = name.toLowerCase();
    if (KEPT.test(key) && HEADER_VALUE.test(value)) out[key] = value;
  });
  return out;
}

/**
 * Request headers that carry a client's credentials: never passed on by the proxy (it sets the
 * upstream's key itself), and taught to the redactor by a recording (their values are never written).
 */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'api-key',
  'x-api-key',
  'x-goog-api-key',
  'x-auth-token',
  'ocp-apim-subscription-key',
];

/**
 * How deeply a recorded JSON body may nest: a tape line may nest TAPE_LIMITS.maxDepth levels, and a
 * body sits a few levels down in its event (`event.response.body`, `event.params.<name>`).
 */
const BODY_DEPTH = TAPE_LIMITS.maxDepth - 4;

/**
 * A body as recorded: parsed JSON when it is JSON (and nests no deeper than a tape line may), else
 * its text; absent when empty.
 */
export function bodyValue(text: string): unknown {
  if (text === '') return undefined;
  if (nestsDeeperThan(text, BODY_DEPTH)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Whether a JSON value (a request's params) nests no deeper than a recorded body may. */
export function fitsTapeDepth(value: unknown): boolean {
  return !nestsDeeperThan(JSON.stringify(value), BODY_DEPTH);
}

/** A recorded body as text to send again. */
export function bodyText(body: unknown): string {
  if (body === undefined) return '';
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/** A Response for a recorded reply: by default its recorded body (see replyBody). */
export function replyResponse(reply: HttpReply, body: string | Uint8Array | ReadableStream<Uint8Array> | null = replyBody(reply)): Response {
  return new Response(reply.status === 204 || reply.status === 304 ? null : body, { status: reply.status, headers: reply.headers });
}

/**
 * A recorded reply's body as it is served: its text, or the bytes of a base64 body. A truncated one
 * (larger than a tape keeps, or cut short when recorded) serves what was kept, then breaks, so a
 * client never takes part of a body for all of it.
 */
export function replyBody(reply: HttpReply): string | Uint8Array | ReadableStream<Uint8Array> {
  const bytes = reply.encoding === 'base64' ? new Uint8Array(Buffer.from(typeof reply.body === 'string' ? reply.body : '', 'base64')) : bodyText(reply.body);
  if (reply.truncated !== true) return bytes;
  const kept = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent && kept.length > 0) {
        sent = true;
        controller.enqueue(kept);
        return;
      }
      controller.error(new TypeError(`terminated (agentctl: the recorded reply was cut short after ${kept.length} bytes)`));
    },
  });
}

export { MAX_RECORDED_BODY, MAX_RECORDED_REQUEST, MAX_RECORDED_STREAM } from './recorded-sizes.js';

export { sizeText } from '../../core/size-text.js';

/**
 * A reply's body read whole as text, unless it is larger than `max` bytes: then undefined, and the
 * rest is not read (the body is cancelled), so a huge reply costs no more memory than `max`.
 */
export async function textUpTo(reply: Response, max: number): Promise<string | undefined> {
  if (reply.body === null) return '';
  const encoding = (reply.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  const declared = encoding === 'identity' ? Number(reply.headers.get('content-length') ?? Number.NaN) : Number.NaN;
  const reader = reply.body.getReader();
  if (declared > max) {
    await reader.cancel().catch(() => undefined);
    return undefined;
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    parts.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(parts, size));
}

/** Content types whose bodies are text: JSON, `text/*`, XML, form data, and the like. Anything else is kept as base64 (so is text with control characters: see utf8). */
const TEXT_TYPE = new RegExp(
  '^(?:text/[^;]*|application/(?:json|[^;]*\\+json|x-ndjson|jsonl|json-seq|x-www-form-urlencoded|xml|[^;]*\\+xml|javascript|ecmascript|graphql|yaml|x-yaml|toml|sql))\\s*(?:;|$)',
  'i',
);
const JSON_TYPE = /^application\/(?:json|[^;]*\+json)\s*(?:;|$)/i;

/** A body as a tape keeps it: text (parsed when JSON), or base64 (`encoding`) for bytes that are not text. */
export interface RecordedBody {
  body?: unknown;
  encoding?: 'base64';
  /** Some bytes were zeroed because their base64 looked like a secret to the redactor (which would have cut it). */
  blanked?: boolean;
}

/**
 * A body as a tape keeps it, redacted. Text — a text content type (or none) and valid UTF-8 — is kept
 * as text: parsed when it is JSON (a request's always, as its hash has always been over the parsed
 * value; a reply's when its type is JSON or absent, so other text is served back exactly). Anything
 * else is kept as base64 of its bytes, with the secrets the redactor finds in them (read as Latin-1,
 * one character per byte) replaced.
 */
export function recordedBody(bytes: Uint8Array, contentType: string | null, redact: Redactor, of: 'request' | 'reply'): RecordedBody {
  if (bytes.length === 0) return {};
  const type = (contentType ?? '').trim();
  const text = type === '' || TEXT_TYPE.test(type) ? utf8(bytes) : undefined;
  if (text !== undefined) {
    if (of === 'request') return { body: redact(bodyValue(text)) };
    if (type !== '' && !JSON_TYPE.test(type)) return { body: redact.text(text) };
    const value = bodyValue(text);
    // A JSON string is kept as its text, so it is served back quoted.
    return { body: typeof value === 'string' ? redact.text(text) : redact(value) };
  }
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const spans = redact.spans(latin1);
  let kept = spans.length === 0 ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : Buffer.from(replaceSpans(latin1, spans), 'latin1');
  let base64 = kept.toString('base64');
  // Every string written to a tape is redacted: base64 that happens to look like a secret (`AIza` and
  // 35 more letters, a user's pattern) would be cut there and be base64 no more. The bytes under it
  // are zeroed instead, on a copy (the same for a recording and its replay, so a request still matches).
  let blanked = false;
  for (let round = 0; ; round++) {
    const found = redact.spans(base64);
    if (found.length === 0) break;
    if (!blanked) kept = Buffer.from(kept);
    blanked = true;
    if (round === 8) kept = Buffer.alloc(0);
    else for (const [start, end] of found) kept.fill(0, Math.floor(start / 4) * 3, Math.min(kept.length, Math.ceil(end / 4) * 3));
    base64 = kept.toString('base64');
  }
  return { body: base64, encoding: 'base64', ...(blanked ? { blanked } : {}) };
}

/**
 * The text of bytes that are valid UTF-8 (a byte-order mark kept) without control characters but
 * tabs and line breaks, else undefined: one written as a JSON string would grow sixfold
 * (`\u0001`), base64 only by a third.
 */
function utf8(bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
  return /[\x00-\x08\x0b\x0c\x0e-\x1f]/.test(text) ? undefined : text;
}

/** Query parameters whose values are credentials by their name. */
const CREDENTIAL_PARAM = /(^|[-_])(key|api[-_]?key|token|access[-_]?token|secret|password|sig|signature|auth)$/i;

/**
 * A URL's path and query as a tape keeps it (and as replay errors print it): the value of every query
 * parameter named like a credential, or holding one the redactor finds, is `[REDACTED]`; then the
 * redactor runs over the whole.
 */
export function recordablePath(url: URL, redact: Redactor): string {
  const query = url.search === ''
    ? ''
    : `?${url.search
      .slice(1)
      .split('&')
      .map((part) => {
        const at = part.indexOf('=');
        if (at === -1) return part;
        const name = part.slice(0, at);
        const value = part.slice(at + 1);
        const secret = CREDENTIAL_PARAM.test(decoded(name)) || redact.spans(decoded(value)).length > 0 || redact.spans(value).length > 0;
        return secret ? `${name}=${REDACTED}` : part;
      })
      .join('&')}`;
  return redact.text(url.pathname + query);
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part;
  }
}

/** An opaque request as recorded and matched: method, path (redacted), body, and its hash. */
export interface ExchangeRequest {
  method: string;
  path: string;
  body?: unknown;
  bodyEncoding?: 'base64';
  hash: string;
  /** The hash over the path as it was recorded before query values were redacted, when that differs: tapes from before match by it. */
  formerHash?: string;
  /** Some bytes of a base64 body were zeroed (see recordedBody). */
  blanked?: boolean;
}

/**
 * Read an opaque request (its body read apart from it: the request can still be sent). A multipart body's
 * boundary (random per request) is replaced by a fixed one, so the same upload hashes the same.
 */
export async function readExchangeRequest(request: Request, redact: Redactor): Promise<ExchangeRequest> {
  const url = new URL(request.url);
  const method = request.method.toUpperCase();
  const path = recordablePath(url, redact);
  const type = request.headers.get('content-type');
  const raw = (await requestBytes(request)) ?? new Uint8Array();
  const sent = recordedBody(fixedBoundary(raw, type), type, redact, 'request');
  const out: ExchangeRequest = { method: request.method, path, hash: exchangeHash(method, path, sent.body, sent.encoding) };
  if (sent.body !== undefined) out.body = sent.body;
  if (sent.encoding !== undefined) out.bodyEncoding = sent.encoding;
  if (sent.blanked === true) out.blanked = true;
  const former = url.pathname + url.search;
  if (former !== path && sent.encoding === undefined) out.formerHash = exchangeHash(method, former, sent.body);
  return out;
}

const FIXED_BOUNDARY = 'agentctl-boundary';

/** A multipart body with its boundary replaced by FIXED_BOUNDARY. */
function fixedBoundary(bytes: Uint8Array, contentType: string | null): Uint8Array {
  const match = /^multipart\/[^;]*;(?:.*;)?\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType ?? '');
  const boundary = match?.[1] ?? match?.[2];
  if (boundary === undefined || boundary === FIXED_BOUNDARY) return bytes;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const from = Buffer.from(`--${boundary}`, 'latin1');
  const to = Buffer.from(`--${FIXED_BOUNDARY}`, 'latin1');
  const parts: Buffer[] = [];
  let at = 0;
  for (let found = buffer.indexOf(from, at); found !== -1; found = buffer.indexOf(from, at)) {
    parts.push(buffer.subarray(at, found), to);
    at = found + from.length;
  }
  if (parts.length === 0) return bytes;
  parts.push(buffer.subarray(at));
  return new Uint8Array(Buffer.concat(parts));
}

/** The model API a request goes to, from its method and path; undefined: not a model call. */
export function wireFor(method: string, pathname: string): ModelWire | undefined {
  if (method.toUpperCase() !== 'POST') return undefined;
  const path = pathname.replace(/\/+$/, '');
  if (path.endsWith('/chat/completions')) return chatWire;
  if (path.endsWith('/responses')) return responsesWire;
  if (path.endsWith('/v1/messages')) return anthropicWire;
  return undefined;
}

export function wireOf(endpoint: ModelEndpoint | undefined): ModelWire {
  if (endpoint === 'responses') return responsesWire;
  return endpoint === 'messages' ? anthropicWire : chatWire;
}

/** The hash an opaque exchange is matched by: method, path and body (and how the body is encoded, when base64). */
export function exchangeHash(method: string, path: string, body: unknown, encoding?: 'base64'): string {
  const key: Record<string, unknown> = { body: body ?? null, method: method.toUpperCase(), path };
  if (encoding !== undefined) key.encoding = encoding;
  return createHash('sha256').update(canonicalJson(key)).digest('hex');
}

/** An error reply of agentctl's own (no match, tape exhausted), in the OpenAI error shape; never retried by clients. */
export function agentctlError(status: number, type: string, message: string, extra: Record<string, unknown> = {}): Response {
  return new Response(JSON.stringify({ error: { message, type, code: type, param: null, ...extra } }), {
    status,
    headers: { 'content-type': 'application/json', 'x-should-retry': 'false' },
  });
}


/** A reply passed on with its body already read (so without the encoding headers of the original bytes). */
export function rebuilt(reply: Response, text: string): Response {
  const body = reply.status === 204 || reply.status === 304 ? null : text;
  return new Response(body, { status: reply.status, statusText: reply.statusText, headers: passHeaders(reply.headers) });
}

export function passHeaders(headers: Headers): Headers {
  const out = new Headers(headers);
  out.delete('content-encoding');
  out.delete('content-length');
  out.delete('transfer-encoding');
  return out;
}

/** An error's message as the tape says it. */
export function describe(error: unknown): string {
  if (error instanceof Error) return error.name === 'AbortError' ? 'the request was aborted by the client' : error.message;
  return String(error);
}
