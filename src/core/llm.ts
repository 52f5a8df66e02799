import type { AssistantMessage, ChatMessage, ToolDefinition } from './messages.js';

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
  endpoint?: 'chat' | 'responses';
  /** Requests recorded at the transport: every other body field that affects the answer. */
  params?: Record<string, unknown>;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'unknown';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface LlmResponse {
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: Usage;
  /** The model name the server reported, if any. */
  model?: string;
}

/** One piece of a streamed response, as recorded on the tape. */
export interface LlmChunk {
  /** 0-based position of the chunk in its stream. */
  index: number;
  /** Milliseconds since the request was sent (replayed with `--speed`). */
  offsetMs: number;
  /** Text added to the assistant message by this chunk. */
  content?: string;
  /** Tool-call fragments, as the provider streams them. */
  toolCalls?: ToolCallDelta[];
  finishReason?: FinishReason;
  /** True on the single terminal chunk of every stream. */
  finished: boolean;
  /** Set on the terminal chunk when the stream ended abnormally. */
  error?: string;
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

/** Whether a failed provider call may be retried (docs/loop.md). */
export type LlmErrorKind = 'recoverable' | 'fatal';
