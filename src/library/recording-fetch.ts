/**
 * A `fetch` that records: hand it to any client that takes a `fetch` option (`new OpenAI({ fetch })`,
 * openai-agents-js, the Vercel AI SDK's OpenAI provider) and every call the client makes goes
 * through it onto the session's run.
 *
 * - Chat Completions and Responses API calls are model calls, written as the built-in loop writes
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
import { requestDelta, requestHash } from '../agent/request-delta.js';
import { parseRetryAfter } from '../llm/retry-after.js';
import { agentctlError, bodyValue, describe, keptHeaders, passHeaders, rebuilt, wireFor } from '../llm/transport/http-reply.js';
import { recordExchange } from './exchange-recorder.js';
import type { FetchLike } from './fetch-like.js';
import { recordableUrl, type CallSlot, type RecordingSession } from './recording-session.js';
import { SseReader, type RawSseEvent } from '../core/sse.js';
import type { ModelWire, WireStream } from '../llm/transport/wire.js';

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
  const text = request.body === null ? '' : await request.clone().text();
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
  return { model: { wire, body: body as Record<string, unknown>, request: parsed, hash: requestHash(parsed) }, text };
}

export function recordingFetch(session: RecordingSession, redact: Redactor, options: RecordingFetchOptions = {}): FetchLike {
  const upstream = options.fetch ?? globalThis.fetch;
  const recorder = new TransportRecorder(session, redact, upstream);
  return (input, init) => recorder.fetch(new Request(input, init));
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
    const event: RunEventInput = {
      type: 'llm_request',
      step: slot.iteration,
      iteration: slot.iteration,
      hash: model.hash,
      ...delta,
      model: model.request.model,
      stream: model.request.stream,
      tools: (model.request.tools ?? []).map((tool) => tool.function.name),
    };
    if (model.wire.endpoint !== 'chat') event.endpoint = model.wire.endpoint;
    if (model.request.params !== undefined) event.params = model.request.params;
    await session.write(event);

    let reply: Response;
    try {
      reply = await this.upstream(request);
    } catch (error) {
      await this.error(slot, model.hash, { message: describe(error) });
      throw error;
    }
    const headers = keptHeaders(reply.headers);
    if (!reply.ok) {
      const body = bodyValue(await reply.text());
      const retryAfterMs = parseRetryAfter((name) => reply.headers.get(name), Date.now());
      await this.error(slot, model.hash, {
        message: errorMessage(body, reply.status),
        status: reply.status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        http: { status: reply.status, headers, ...(body === undefined ? {} : { body }) },
      });
      return rebuilt(reply, body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body));
    }
    if ((reply.headers.get('content-type') ?? '').includes('text/event-stream') && reply.body !== null) {
      return this.stream(request, reply, slot, model, headers);
    }
    const replyText = await reply.text();
    const body = bodyValue(replyText);
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

  /** Pass a stream through event by event, recording each; the last event waits for the synced response. */
  private stream(request: Request, reply: Response, slot: CallSlot, model: ModelRequest, headers: Record<string, string>): Response {
    const { session } = this;
    const source = (reply.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    const sse = new SseReader();
    const wire: WireStream = model.wire.stream();
    const offset = (): number => session.clock.now() - slot.started;
    /** Raw text read but not yet given to a chunk (for the tape). */
    let raw = '';
    /** Text for the client held back until the response is on disk: everything from the finish on. */
    let held = '';
    let settled = false;
    /** The client cancelled the body (it stopped reading). */
    let cancelled = false;
    const chunkEvent = (chunk: ReturnType<WireStream['terminal']>, text: string): RunEventInput => {
      const event: RunEventInput = { type: 'llm_chunk', step: slot.iteration, iteration: slot.iteration, attempt: slot.attempt, chunk };
      if (text !== '') event.raw = text;
      return event;
    };
    let ended = (): void => {};
    const whenEnded = new Promise<void>((resolve) => (ended = resolve));
    // Once the client gives up on the stream, the run's end waits for what that records.
    request.signal.addEventListener('abort', () => session.track(whenEnded), { once: true });
    /** The stream is over: it finished, broke (`error`), or the client stopped reading it (`stopped`). */
    const end = async (how: { error?: string; stopped?: boolean } = {}): Promise<void> => {
      try {
        await ending(how);
      } finally {
        ended();
      }
    };
    const ending = async (how: { error?: string; stopped?: boolean }): Promise<void> => {
      settled = true;
      const rest = sse.rest();
      if (rest !== undefined) {
        wire.add(rest, offset());
        raw += rest.raw;
        held += rest.raw;
      }
      const cut = how.stopped === true ? STOPPED : how.error;
      // The events not yet given to a chunk (e.g. `data: [DONE]`) go with the terminal one.
      await session.write(chunkEvent(wire.terminal(offset(), cut), how.stopped === true ? '' : raw));
      if (how.error !== undefined) {
        await this.error(slot, model.hash, { message: how.error });
        return;
      }
      if (how.stopped === true) {
        // It acts on what it got, so that is the response.
        await session.write({ type: 'warning', step: slot.iteration, message: `the client stopped reading the stream of iteration ${slot.iteration}; recorded what had arrived as the response` });
      } else if (!wire.hasFinishReason) {
        await session.write({ type: 'warning', step: slot.iteration, message: `the model stream of iteration ${slot.iteration} closed without a finish reason` });
      }
      await this.answer(slot, wire.response(), offset(), { status: reply.status, headers });
    };
    /** Why the stream was cut on the client's way (see StreamCut), if it was. */
    let cutBy: string | undefined;
    const cut = (): string | undefined => cutBy ?? (request.signal.reason instanceof StreamCut ? request.signal.reason.message : undefined);
    /** Take events: each chunk goes to the tape; returns the text to pass on now. */
    const take = (events: RawSseEvent[]): string => {
      let out = '';
      for (const event of events) {
        raw += event.raw;
        const chunk = wire.add(event, offset());
        if (chunk !== undefined) {
          void session.write(chunkEvent(chunk, raw)).catch(() => undefined);
          raw = '';
        }
        if (held !== '' || wire.done || wire.hasFinishReason) held += event.raw;
        else out += event.raw;
      }
      return out;
    };
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          for (;;) {
            const { done, value } = await source.read();
            if (done && cut() !== undefined) {
              await end({ error: cut() });
              controller.close();
              return;
            }
            if (done && (cancelled || request.signal.aborted)) {
              // The client gave up on the stream (a `break`, an abort): what it had is what it acts on.
              await end({ stopped: true });
              controller.close();
              return;
            }
            if (done) {
              const now = take(sse.push(decoder.decode()));
              if (now !== '') controller.enqueue(encoder.encode(now));
              // The end of the answer is passed on only once the response is on disk.
              await end();
              if (held !== '') controller.enqueue(encoder.encode(held));
              controller.close();
              return;
            }
            const out = take(sse.push(decoder.decode(value, { stream: true })));
            if (out !== '') {
              controller.enqueue(encoder.encode(out));
              return;
            }
          }
        } catch (error) {
          const how = cut() !== undefined ? { error: cut() } : request.signal.aborted ? { stopped: true } : { error: describe(error) };
          if (!settled) await end(how).catch(() => undefined);
          controller.error(error);
        }
      },
      cancel: async (reason) => {
        session.track(whenEnded);
        cancelled = true;
        // Cut by whoever relays it (a proxy shutting down): to the client the stream broke.
        if (reason instanceof StreamCut) cutBy = reason.message;
        await source.cancel(reason).catch(() => undefined);
        if (!settled) await end(cut() !== undefined ? { error: cut() } : { stopped: true });
      },
    });
    return new Response(body, { status: reply.status, statusText: reply.statusText, headers: passHeaders(reply.headers) });
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

const STOPPED = 'the client stopped reading the stream';

/**
 * The reason to cancel a recorded stream's body with when it is cut on the client's way (a proxy
 * shutting down), not by the client: it is recorded as a stream that broke, as the client saw it.
 */
export class StreamCut extends Error {}

/** The URL without its API path (`…/v1/chat/completions` → `…/v1`). */
function baseOf(url: URL): string {
  return `${url.origin}${url.pathname.replace(/\/(chat\/completions|responses)\/?$/, '')}`;
}



function errorMessage(body: unknown, status: number): string {
  const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
  if (typeof message === 'string' && message !== '') return `${status} ${message}`;
  return typeof body === 'string' && body !== '' ? `${status} ${body.slice(0, 200)}` : `HTTP ${status}`;
}

