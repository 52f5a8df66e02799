import type { z } from 'zod';
import type * as schema from './event-schema.js';
import type { ChatMessage, ToolDefinition } from './messages.js';

/**
 * The one interface the agent loop knows for talking to a model. The OpenAI adapter, the recorder,
 * the tape LLM and the fallback all implement it, so recording and replay wrap one interface.
 */
export interface LlmClient {
  /**
   * Send one request and give the complete response. When `request.stream` is true, every chunk is
   * passed to `options.onChunk` as it arrives, ending with exactly one chunk whose `finished` is
   * true — also when the stream breaks (then the call fails after it). A client that already holds
   * the answer (a replay's tape) may give it as it is, or throw its error, instead of a promise: the
   * loop then goes on without a turn of the event loop for a reply that was never in flight.
   */
  complete(request: LlmRequest, options?: LlmCallOptions): LlmResponse | Promise<LlmResponse>;
}

export interface LlmCallOptions {
  signal?: AbortSignal;
  onChunk?: (chunk: LlmChunk) => void;
  /**
   * Told about anomalies that did not fail the call, e.g. a stream that closed without a finish
   * reason (the reason was inferred). The provider runner turns these into `warning` events.
   */
  onWarning?: (message: string) => void;
}

export interface LlmRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  stream: boolean;
  maxTokens?: number;
  temperature?: number;
  /** Requests recorded at the transport: the API they went to (absent: Chat Completions). */
  endpoint?: ModelEndpoint;
  /** Requests recorded at the transport: every other body field that affects the answer. */
  params?: Record<string, unknown>;
}

// What a request names and a response and its stream chunks hold: the event schema's shapes
// (event-schema.ts), which document each field; these types are inferred from it.
/** Which model API a call recorded at the transport used. */
export type ModelEndpoint = z.infer<typeof schema.modelEndpointSchema>;
export type FinishReason = z.infer<typeof schema.finishReasonSchema>;
export type Usage = z.infer<typeof schema.usageSchema>;
export type LlmResponse = z.infer<typeof schema.llmResponseSchema>;
/** One piece of a streamed response, as recorded on the tape. */
export type LlmChunk = z.infer<typeof schema.llmChunkSchema>;
export type ToolCallDelta = z.infer<typeof schema.toolCallDeltaSchema>;

/** Whether a failed provider call may be retried (docs/loop.md). */
export type LlmErrorKind = z.infer<typeof schema.llmErrorKindSchema>;
