/**
 * A `fetch` that records: hand it to any client that takes a `fetch` option (`new OpenAI({ fetch })`,
 * openai-agents-js, the Vercel AI SDK's OpenAI provider) and every call the client makes goes
 * through it onto the session's run.
 *
 * - Chat Completions, Responses API and Anthropic Messages API calls are model calls, written as the built-in loop writes
 *   them: `llm_request` (a delta of the redacted messages, the hash over everything that affects
 *   the answer), for a stream one `llm_chunk` per event that adds to the answer (with the raw
 *   server-sent events, so a replay serves the stream byte for byte), then `llm_response` with the
 *   reply's status, kept headers and (unless it streamed) its body — or `llm_error`.
 * - Anything else is an opaque `http_exchange`: method, path (credential query values redacted),
 *   body, and the reply — its bytes passed on as they arrive, a body that is not text kept as base64.
 *
 * Durability as everywhere in agentctl: a reply is synced to the store before the client sees it;
 * for a stream, its last event is held back until the response is on disk. The client's own
 * headers (its API key) are never recorded.
 */
import type { HttpReply, RunEventInput } from '../core/events.js';
import type { LlmRequest, LlmResponse } from '../core/llm.js';
import type { ChatMessage } from '../core/messages.js';
import type { Redactor } from '../core/redact.js';
import { requestDelta, requestHash, type RequestDelta } from '../agent/request-delta.js';
import { parseRetryAfter } from '../llm/retry-after.js';
import { agentctlError, bodyValue, describe, fitsTapeDepth, keptHeaders, MAX_RECORDED_BODY, rebuilt, sizeText, textUpTo, wireFor } from '../llm/transport/http-reply.js';
import { asRequest, requestText } from '../llm/transport/request-body.js';
import { quickEvent } from '../tape/quick-event-check.js';
import { recordExchange } from './exchange-recorder.js';
import type { FetchLike } from './fetch-like.js';
import { recordableUrl, type CallSlot, type RecordingSession } from './recording-session.js';
import { recordedStream } from './recording-stream.js';
import type { ModelWire } from '../llm/transport/wire.js';

export interface RecordingFetchOptions {
  /** Where requests really go. Default: the global `fetch`. */
  fetch?: FetchLike;
}

/** A model request as it was sent: for the recorder and for matching. */
export interface ModelRequest {
  wire: ModelWire;
  body: Record<string, unknown>;
  /** Redacted. */
  request: LlmRequest;
  hash: string;
}

/** Read a model request from an HTTP request, redacted and hashed; undefined when it is not one. */
export async function readModelRequest(request: Request, redact: Redactor): Promise<{ model?: ModelRequest; text: string }> {
  const text = await requestText(request);
  const wire = wireFor(request.method, new URL(request.url).pathname);
  if (wire === undefined) return { text };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { text };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { text };
  let parsed: LlmRequest;
  try {
    parsed = redact(wire.request(body as Record<string, unknown>));
  } catch {
    return { text };
  }
  const model: ModelRequest = { wire, body: body as Record<string, unknown>, request: parsed, hash: requestHash(parsed) };
  // A request the tape cannot hold as a model call (a message of no known shape, a tool with no
  // name, parameters nested deeper than a tape line may) is not one: it is recorded as an opaque
  // exchange, and a replay, reading it here too, matches it as one.
  return tapeHolds(model) ? { model, text } : { text };
}

/** The `llm_request` event of a model request, its messages a delta from the previous request's. */
function requestEvent(model: ModelRequest, iteration: number, delta: RequestDelta): Extract<RunEventInput, { type: 'llm_request' }> {
  const event: Extract<RunEventInput, { type: 'llm_request' }> = {
    type: 'llm_request',
    step: iteration,
    iteration,
    hash: model.hash,
    ...delta,
    model: model.request.model,
    stream: model.request.stream,
    tools: (model.request.tools ?? []).map((tool) => tool.function.name),
  };
  if (model.wire.endpoint !== 'chat') event.endpoint = model.wire.endpoint;
  if (model.request.params !== undefined) event.params = model.request.params;
  return event;
}

/** Whether the request's `llm_request` event is one a tape accepts (whatever its place in the run). */
function tapeHolds(model: ModelRequest): boolean {
  const event = { seq: 0, t: 0, ...requestEvent(model, 0, { prefix: 0, append: model.request.messages }) };
  return quickEvent(event) !== undefined && (model.request.params === undefined || fitsTapeDepth(model.request.params));
}

export function recordingFetch(session: RecordingSession, redact: Redactor, options: RecordingFetchOptions = {}): FetchLike {
  const upstream = options.fetch ?? globalThis.fetch;
  const recorder = new TransportRecorder(session, redact, upstream);
  return (input, init) => recorder.fetch(asRequest(input, init));
}

export class TransportRecorder {
  /** The redacted messages of the previous request, for deltas. */
  private sent: ChatMessage[] = [];

  constructor(
    private readonly session: RecordingSession,
    private readonly redact: Redactor,
    private readonly upstream: FetchLike,
  ) {}

  async fetch(request: Request): Promise<Response> {
    if (this.session.isFinished) {
      return agentctlError(400, 'agentctl_recording_finished', `agentctl: run ${this.session.runId} is finished; no more calls can be recorded`);
    }
    const { model } = await readModelRequest(request, this.redact);
    return model === undefined ? recordExchange(this.session, this.redact, this.upstream, request) : this.modelCall(request, model);
  }

  /** Record a model call already matched as such (also used by a replay that goes on live). */
  async modelCall(request: Request, model: ModelRequest): Promise<Response> {
    const { session } = this;
    const url = new URL(request.url);
    await session.start({ model: model.request.model, baseUrl: recordableUrl(baseOf(url)) });
    const slot = session.slot(model.hash);
    const delta = requestDelta(this.sent, model.request.messages);
    this.sent = model.request.messages;
    // The request goes upstream first and its record is written while the upstream answers, so its
    // redaction and the journal's write are not on the way to the first byte (its place in the run
    // is taken here, before anything the reply adds).
    const requested = session.write(requestEvent(model, slot.iteration, delta), { afterIo: true });
    requested.catch(() => undefined);

    let reply: Response;
    try {
      reply = await this.upstream(request);
    } catch (error) {
      await requested;
      await this.error(slot, model.hash, { message: describe(error) });
      throw error;
    }
    try {
      await requested;
    } catch (error) {
      await reply.body?.cancel(error).catch(() => undefined);
      throw error;
    }
    const headers = keptHeaders(reply.headers);
    if (reply.ok && (reply.headers.get('content-type') ?? '').includes('text/event-stream') && reply.body !== null) {
      return recordedStream({
        session,
        request,
        reply,
        slot,
        wire: model.wire,
        headers,
        answer: (response, durationMs, http) => this.answer(slot, response, durationMs, http),
        fail: (message) => this.error(slot, model.hash, { message }),
      });
    }
    let replyText: string | undefined;
    try {
      replyText = await textUpTo(reply, MAX_RECORDED_BODY);
    } catch (error) {
      // The reply broke off, or the call was aborted (its client went away, the proxy stopped) while it arrived.
      await this.error(slot, model.hash, { message: describe(error) });
      throw error;
    }
    if (replyText === undefined) return this.tooLarge(slot, model.hash, reply);
    const body = bodyValue(replyText);
    if (!reply.ok) {
      const retryAfterMs = parseRetryAfter((name) => reply.headers.get(name), Date.now());
      await this.error(slot, model.hash, {
        message: errorMessage(body, reply.status),
        status: reply.status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        http: { status: reply.status, headers, ...(body === undefined ? {} : { body }) },
      });
      return rebuilt(reply, body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body));
    }
    let response;
    try {
      response = model.wire.response(body);
    } catch (error) {
      await this.error(slot, model.hash, { message: `the model's reply could not be read: ${describe(error)}`, status: reply.status });
      return rebuilt(reply, replyText);
    }
    await this.answer(slot, response, session.clock.now() - slot.started, { status: reply.status, headers, body });
    return rebuilt(reply, replyText);
  }

  /**
   * A whole reply larger than a tape keeps: the call is refused, and the refusal is what the tape
   * records (so a replay answers the same): an HTTP 502 of agentctl's own that clients do not retry.
   */
  private async tooLarge(slot: CallSlot, hash: string, reply: Response): Promise<Response> {
    const message = `agentctl: the model's reply (HTTP ${reply.status}) is larger than a tape keeps (${sizeText(MAX_RECORDED_BODY)}); it was not passed on`;
    const refusal = agentctlError(502, 'agentctl_reply_too_large', message);
    const body = bodyValue(await refusal.clone().text());
    await this.error(slot, hash, { message, status: 502, http: { status: 502, headers: keptHeaders(refusal.headers), body } });
    return refusal;
  }

  /** The call's answer, synced before the client sees it. */
  private async answer(slot: CallSlot, response: LlmResponse, durationMs: number, http: HttpReply): Promise<void> {
    await this.session.write({ type: 'llm_response', step: slot.iteration, iteration: slot.iteration, attempt: slot.attempt, response, durationMs, http });
    this.session.answered(slot, response);
  }

  private async error(
    slot: CallSlot,
    hash: string,
    data: { message: string; status?: number; retryAfterMs?: number; http?: Extract<RunEventInput, { type: 'llm_error' }>['http'] },
  ): Promise<void> {
    const recoverable = data.status === undefined || data.status === 408 || data.status === 409 || data.status === 429 || data.status >= 500;
    const event: Extract<RunEventInput, { type: 'llm_error' }> = {
      type: 'llm_error',
      step: slot.iteration,
      iteration: slot.iteration,
      attempt: slot.attempt,
      kind: recoverable ? 'recoverable' : 'fatal',
      message: data.message,
    };
    if (data.status !== undefined) event.status = data.status;
    if (data.retryAfterMs !== undefined) event.retryAfterMs = data.retryAfterMs;
    if (data.http !== undefined) event.http = data.http;
    await this.session.write(event);
    this.session.failedCall(hash, slot);
  }
}

/** The URL without its API path (`…/v1/chat/completions` → `…/v1`, `…/v1/messages` → `…/v1`). */
function baseOf(url: URL): string {
  return `${url.origin}${url.pathname.replace(/\/(chat\/completions|responses|messages)\/?$/, '')}`;
}


function errorMessage(body: unknown, status: number): string {
  const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
  if (typeof message === 'string' && message !== '') return `${status} ${message}`;
  return typeof body === 'string' && body !== '' ? `${status} ${body.slice(0, 200)}` : `HTTP ${status}`;
}

