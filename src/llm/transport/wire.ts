/**
 * How a model API looks on the wire, for recording and replaying at the transport. One `ModelWire`
 * per API (Chat Completions in chat-wire.ts, the Responses API in responses-wire.ts, Anthropic's
 * Messages API in anthropic-wire.ts) turns a
 * request body into our `LlmRequest`, a reply (whole or as server-sent events) into our
 * `LlmResponse` and chunks — the same tape events the built-in loop writes — and, the other way, an
 * `LlmResponse` the tape has no reply body for (a patch, a run recorded by `agentctl record`) into
 * the body or events that API's clients expect.
 */
import type { ModelEndpoint } from '../../core/events.js';
import type { LlmChunk, LlmRequest, LlmResponse } from '../../core/llm.js';
import type { SseEvent } from '../../core/sse.js';

export type { SseEvent };

/** What a served reply is labelled with, so a replay is deterministic: ids and times from the tape. */
export interface ReplyLabels {
  /** The wire's `replyId`: e.g. `chatcmpl-replay-<run>-<n>`, `resp_replay_<run>_<n>`, `msg_replay_<run>_<n>`. */
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
}

export interface ModelWire {
  readonly endpoint: ModelEndpoint;
  /** The id of a reply written for call `iteration` of run `run` (ids in this API's own style, the same on every replay). */
  replyId(run: string, iteration: number): string;
  /**
   * A request body as our request: model, messages, tools, stream, max tokens, temperature, and in
   * `params` every other field that affects the answer (not ones that only label or route it, like
   * `user`, `metadata`, `store`, `stream_options`). Throws a TypeError for a body that is not this API's.
   */
  request(body: Record<string, unknown>): LlmRequest;
  /** A whole (non-streamed) reply body as our response. */
  response(body: unknown): LlmResponse;
  /** A fresh reader for one streamed reply. */
  stream(): WireStream;
  /** The reply body this API's clients expect, for a response the tape holds no body for. */
  replyBody(response: LlmResponse, labels: ReplyLabels): unknown;
  /**
   * The same as server-sent events, for a request that asked to stream (`request`: its body, e.g. for
   * `stream_options`). `chunks`: the recorded chunks, when the tape has them without their events
   * (a run recorded by `agentctl record`): the stream is cut where they were cut.
   */
  replyEvents(response: LlmResponse, labels: ReplyLabels, request: Record<string, unknown>, chunks?: readonly LlmChunk[]): SseEvent[];
}

/** Reads the events of one streamed reply. */
export interface WireStream {
  /** Take one event; returns the chunk it adds to the tape (undefined: nothing for the tape, e.g. a keep-alive). */
  add(event: SseEvent, offsetMs: number): LlmChunk | undefined;
  /** True once the stream said it is done (`[DONE]`, `response.completed`, …). */
  readonly done: boolean;
  /** True once the stream carried a finish reason (or its API's equivalent). */
  readonly hasFinishReason: boolean;
  /** Set once the stream carried an error of the API's own (an `error` event): the call failed, though the stream ended cleanly. */
  readonly error?: string;
  /** The one terminal chunk (`finished: true`), with `error` when the stream broke. */
  terminal(offsetMs: number, error?: string): LlmChunk;
  /** The response the stream added up to. */
  response(): LlmResponse;
}
