/**
 * The RunEvent union: the spine of agentctl. The loop yields these; the recorder writes them to the
 * tape; the TUI, the text reporter and `--json` render them; replay compares them.
 *
 * Every event has `seq` (0-based position in the run), `step` (the loop iteration it belongs to,
 * 0-based, the N of `--patch N=…`) and `t` (milliseconds since the run started, from the injected
 * clock). `t` and `durationMs` are timing, not behaviour: replay comparisons ignore them.
 */
import type { DecisionRecord } from './decisions.js';
import type { FinishReason, LlmChunk, LlmErrorKind, LlmResponse } from './llm.js';
import type { ChatMessage } from './messages.js';
import type { AgentState, TerminalState } from './states.js';
import type { ToolOutcomeStatus } from './tools.js';

export interface EventBase {
  seq: number;
  step: number;
  t: number;
}

export interface RunStartEvent extends EventBase {
  type: 'run_start';
  task: string;
  model: string;
  seed: number;
  /** The effective configuration (no secrets). */
  config: Record<string, unknown>;
}

export interface StateEvent extends EventBase {
  type: 'state';
  from: AgentState | null;
  to: AgentState;
  reason: string;
}

/** A user message entering the conversation: the task, an interactive reply, or an internal nudge. */
export interface UserMessageEvent extends EventBase {
  type: 'user_message';
  content: string;
  /** Why the loop injected it (`max_tokens_recovery`, `halt_nudge`, `compaction`); absent for real user input. */
  internal?: string;
}

/**
 * A request to the model, stored as a delta: the first `prefix` messages equal the previous
 * request's, then `append` follows. `hash` is the sha-256 of the whole request, so the full request
 * can be rebuilt and checked on read while the tape grows linearly with run length.
 */
export interface LlmRequestEvent extends EventBase {
  type: 'llm_request';
  iteration: number;
  hash: string;
  prefix: number;
  append: ChatMessage[];
  model: string;
  stream: boolean;
  tools: string[];
  /** Recorded at the transport: which API the call went to. Absent: Chat Completions. */
  endpoint?: ModelEndpoint;
  /**
   * Recorded at the transport: every other body field that affects the answer (`top_p`, `seed`,
   * `tool_choice`, `response_format`, `stop`, `n`, …), part of the hash. Absent for the built-in loop.
   */
  params?: Record<string, unknown>;
}

export interface LlmChunkEvent extends EventBase {
  type: 'llm_chunk';
  iteration: number;
  attempt: number;
  chunk: LlmChunk;
  /** Recorded at the transport: the server-sent event(s) this chunk came from, verbatim (redacted). */
  raw?: string;
}

export interface LlmErrorEvent extends EventBase {
  type: 'llm_error';
  iteration: number;
  attempt: number;
  kind: LlmErrorKind;
  status?: number;
  message: string;
  /** The server's Retry-After, in ms, when it sent one. */
  retryAfterMs?: number;
  /** Back-off before the next attempt; absent when the error is fatal or retries are used up. */
  retryInMs?: number;
  /** Recorded at the transport: the error response as the server sent it. */
  http?: HttpReply;
}

export interface LlmResponseEvent extends EventBase {
  type: 'llm_response';
  iteration: number;
  attempt: number;
  response: LlmResponse;
  durationMs: number;
  /** Recorded at the transport: the reply as the server sent it (its body unless it streamed), served whole on replay. */
  http?: HttpReply;
}

/** Which model API a transport-recorded call used. */
export type ModelEndpoint = 'chat' | 'responses';

/**
 * An HTTP reply as recorded: status, the headers clients read, and the body — parsed JSON, text, or
 * (`encoding: 'base64'`) the exact bytes of a body that is not text.
 */
export interface HttpReply {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
  /** `base64`: `body` is the base64 of the reply's bytes (audio, images, files: a body that is not text). */
  encoding?: 'base64';
  /** The body is not all of it: the reply was larger than a tape keeps, broke, or the client stopped reading. */
  truncated?: boolean;
}

/** Recorded at the transport: a call to an endpoint that is not a model call, kept as an opaque pair. */
export interface HttpExchangeEvent extends EventBase {
  type: 'http_exchange';
  method: string;
  /** The URL path with its query (e.g. `/v1/models`); credential-named query values are `[REDACTED]`. */
  path: string;
  /** The request body (parsed JSON, text, or base64 with `bodyEncoding`); absent when there was none. */
  body?: unknown;
  /** `base64`: `body` is the base64 of the request's bytes (a multipart upload, a body that is not text). */
  bodyEncoding?: 'base64';
  /** sha-256 of method, path and body: what a replay matches on. */
  hash: string;
  response: HttpReply;
  durationMs: number;
}

export interface ToolCallEvent extends EventBase {
  type: 'tool_call';
  callId: string;
  tool: string;
  /** The raw argument text the model produced. */
  arguments: string;
  key: string;
}

export interface GuardrailEvent extends EventBase, DecisionRecord {
  type: 'guardrail';
  callId?: string;
}

export interface ToolResultEvent extends EventBase {
  type: 'tool_result';
  callId: string;
  tool: string;
  status: ToolOutcomeStatus;
  /** What the model sees as the tool message. */
  output: string;
  durationMs: number;
}

export interface BudgetEvent extends EventBase {
  type: 'budget';
  inputTokens: number;
  outputTokens: number;
  cost: number;
  nearBudget: boolean;
}

/** Guardrail counters after a step, so a run restored from the tape continues with the same state. */
export interface CheckpointEvent extends EventBase {
  type: 'checkpoint';
  guardrails: Record<string, unknown>;
}

export interface WarningEvent extends EventBase {
  type: 'warning';
  message: string;
}

/** Replay only: where and how a replay departs from its tape. */
export interface DivergenceEvent extends EventBase {
  type: 'divergence';
  iteration: number;
  /**
   * `decision`: a guardrail decision (same gate, tool, call and key) came to another verdict or rule;
   * reported also after the replay has left the tape, so a what-if shows every decision it changed.
   */
  kind: 'request' | 'event' | 'patched' | 'resync' | 'exhausted' | 'live' | 'tool_output' | 'decision';
  /** True when the divergence follows from a patch or a --set override. */
  expected: boolean;
  message: string;
  /**
   * Where the two differ, recorded vs replayed: for `request`, the first differing message and
   * field; for `decision`, path `verdict` and a summary of each side (verdict, rule, counters, threshold).
   */
  detail?: { path: string; recorded: unknown; replayed: unknown };
}

export interface RunTotals {
  steps: number;
  llmCalls: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
}

export interface RunEndEvent extends EventBase {
  type: 'run_end';
  state: TerminalState;
  reason: string;
  totals: RunTotals;
}

export type RunEvent =
  | RunStartEvent
  | StateEvent
  | UserMessageEvent
  | LlmRequestEvent
  | LlmChunkEvent
  | LlmErrorEvent
  | LlmResponseEvent
  | ToolCallEvent
  | GuardrailEvent
  | ToolResultEvent
  | BudgetEvent
  | CheckpointEvent
  | WarningEvent
  | HttpExchangeEvent
  | DivergenceEvent
  | RunEndEvent;

export type RunEventType = RunEvent['type'];

/** An event before the run assigns its `seq` and `t`. */
export type RunEventInput = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'seq' | 't'> : never) : never;

/** Re-exported for convenience of renderers. */
export type { FinishReason };
