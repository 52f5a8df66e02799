/**
 * A `fetch` that answers from a tape, for any client that takes a `fetch` option: what the replay
 * engine decides (replay-engine.ts), served as the API's clients expect it. A reply recorded at the
 * transport is served whole — its status, kept headers and body (every choice, `reasoning_content`,
 * logprobs), a stream's server-sent events byte for byte; one recorded by `agentctl record` (or a
 * patch) is rebuilt for the endpoint asked. Recorded failures fail again, with their status, body
 * and Retry-After (but the replay does not wait: `retry-after-ms` is served as 1).
 *
 * What the tape cannot answer is an HTTP error of agentctl's own, which clients do not retry:
 * `agentctl_replay_mismatch` (strict replay; the body names the nearest recorded call and the first
 * differing field) or `agentctl_tape_exhausted` — unless a live fallback takes it: with one, a strict
 * replay sends a request that matches no recorded call on live too (record what is new, serve what
 * is known), and a lenient one serves it by position until the tape runs out.
 */
import type { HttpReply } from '../core/events.js';
import type { LlmResponse } from '../core/llm.js';
import type { Redactor } from '../core/redact.js';
import type { CallTape } from '../replay/call-tape.js';
import { exhaustedMessage } from '../core/errors.js';
import { describeDivergence, type ReplayEngine } from '../replay/replay-engine.js';
import { viewOf } from '../replay/request-difference.js';
import { agentctlError, bodyText, readExchangeRequest, replyResponse } from '../llm/transport/http-reply.js';
import type { FetchLike } from './fetch-like.js';
import { readModelRequest, type ModelRequest } from './recording-fetch.js';
import type { ReplyLabels } from '../llm/transport/wire.js';
import { sseText } from '../core/sse.js';

export interface ReplayingFetchOptions {
  engine: ReplayEngine;
  tape: CallTape;
  redact: Redactor;
  /** Where a call goes when the tape has no answer; absent: the `agentctl_tape_exhausted` error. */
  live?: FetchLike;
}

export function replayingFetch(options: ReplayingFetchOptions): FetchLike {
  const exchangesServed = new Set<number>();
  const { engine, redact } = options;
  const run = engine.state.run;
  const created = createdOf(run.createdAt);

  const exchange = async (request: Request): Promise<Response> => {
    // Not a call to a server (a `data:` URL, as the SDK's probe before an upload): answered locally, as recorded.
    const { protocol } = new URL(request.url);
    if (protocol !== 'http:' && protocol !== 'https:') return globalThis.fetch(request);
    // Matched as recorded: the path with credential query values redacted, the body's bytes when not text.
    const sent = await readExchangeRequest(request, redact);
    const unserved = (hash: string | undefined): number =>
      hash === undefined ? -1 : options.tape.exchanges.findIndex((e, i) => !exchangesServed.has(i) && e.hash === hash);
    let index = unserved(sent.hash);
    if (index === -1) index = unserved(sent.formerHash);
    if (index !== -1) {
      exchangesServed.add(index);
      return replyResponse((options.tape.exchanges[index] as { response: HttpReply }).response);
    }
    if (options.live !== undefined) return options.live(request);
    return agentctlError(404, 'agentctl_no_recording', `agentctl replay: no recorded ${sent.method} ${sent.path} with this body`);
  };

  return async (input, init) => {
    const request = new Request(input, init);
    if (request.signal.aborted) throw request.signal.reason as Error;
    const { model } = await readModelRequest(request, redact);
    if (model === undefined) return exchange(request);
    const served = engine.take(viewOf(model.request), model.hash);
    const labels = (iteration: number): ReplyLabels => ({
      id: model.wire.replyId(run.id, iteration),
      created,
      model: model.request.model,
    });
    switch (served.kind) {
      case 'mismatch':
        // Strict with a live fallback: what the tape has no match for goes live (the recorded calls stay for later requests).
        if (options.live !== undefined) {
          engine.wentLive(served.divergence.iteration, served.divergence);
          return options.live(request);
        }
        return agentctlError(400, 'agentctl_replay_mismatch', `agentctl replay (strict): ${describeDivergence(served.divergence)}`, {
          nearest: { iteration: served.divergence.recordedIteration, hash: served.divergence.recordedHash },
          difference: { path: served.divergence.path, recorded: served.divergence.recorded, replayed: served.divergence.replayed },
        });
      case 'exhausted':
        if (options.live !== undefined) {
          engine.wentLive(served.iteration);
          return options.live(request);
        }
        return agentctlError(400, 'agentctl_tape_exhausted', `agentctl replay: ${served.message}`);
      case 'patch':
        return synthesized(model, served.response, labels(served.iteration), request.signal);
      case 'tape': {
        const { outcome, chunks } = served.attempt;
        if (outcome === undefined) return agentctlError(400, 'agentctl_tape_exhausted', `agentctl replay: ${exhaustedMessage(served.iteration)}`);
        if (outcome.type === 'llm_error') {
          if (outcome.http !== undefined) return replyResponse(withoutWaiting(outcome.http));
          // A stream that broke: the same events, then the same break.
          const raws = chunks.map((c) => c.raw ?? '').filter((r) => r !== '');
          if (raws.length > 0) return streamResponse(raws, 200, { 'content-type': 'text/event-stream' }, request.signal, outcome.message);
          // No reply at all was a network failure: fail the same way.
          throw new TypeError(`fetch failed (recorded: ${outcome.message})`);
        }
        const http = outcome.http;
        if (model.request.stream) {
          // Recorded at the transport, every chunk but the terminal one came from events (the terminal
          // one has none when the stream ended without a `[DONE]`): served as they were.
          const raws = chunks.map((c) => c.raw);
          const fromEvents = raws.every((r, i) => r !== undefined || chunks[i]?.chunk.finished === true);
          if (http !== undefined && raws.some((r) => r !== undefined) && fromEvents) {
            return streamResponse(raws.filter((r) => r !== undefined), http.status, http.headers, request.signal);
          }
          const recordedChunks = chunks.length > 0 ? chunks.map((c) => c.chunk) : undefined;
          const events = model.wire.replyEvents(outcome.response, labels(served.iteration), model.body, recordedChunks);
          return streamResponse(events.map((e) => sseText([e])), 200, { 'content-type': 'text/event-stream' }, request.signal);
        }
        if (http?.body !== undefined) return replyResponse(http, bodyText(http.body));
        return json(model.wire.replyBody(outcome.response, labels(served.iteration)), http?.headers);
      }
    }
  };
}

function synthesized(model: ModelRequest, response: LlmResponse, labels: ReplyLabels, signal: AbortSignal): Response {
  if (!model.request.stream) return json(model.wire.replyBody(response, labels));
  const events = model.wire.replyEvents(response, labels, model.body);
  return streamResponse(events.map((e) => sseText([e])), 200, { 'content-type': 'text/event-stream' }, signal);
}

function json(body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { ...headers, 'content-type': 'application/json' } });
}

/** A stream of recorded event texts; it ends quietly if the client aborts, or breaks with `broke` after the last. */
function streamResponse(texts: readonly string[], status: number, headers: Record<string, string>, signal: AbortSignal, broke?: string): Response {
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (signal.aborted) {
        controller.close();
        return;
      }
      if (next >= texts.length) {
        if (broke === undefined) controller.close();
        else controller.error(new TypeError(`terminated (recorded: ${broke})`));
        return;
      }
      controller.enqueue(encoder.encode(texts[next++] as string));
    },
  });
  return new Response(body, { status, headers: { ...headers, 'content-type': headers['content-type'] ?? 'text/event-stream' } });
}

/** A recorded failure served again, without its wait. */
function withoutWaiting(reply: HttpReply): HttpReply {
  if (reply.headers['retry-after'] === undefined && reply.headers['retry-after-ms'] === undefined) return reply;
  return { ...reply, headers: { ...reply.headers, 'retry-after-ms': '1' } };
}

/** Unix seconds of the recording: deterministic, unlike the clock. */
function createdOf(createdAt: string): number {
  const ms = Date.parse(createdAt);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
}
