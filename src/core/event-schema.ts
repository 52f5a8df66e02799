/**
 * The zod schema of every RunEvent, and of what events carry (chat messages, model responses and
 * chunks, HTTP replies, guardrail decisions): the one description of their shape. The TypeScript
 * types (events.ts, messages.ts, llm.ts, decisions.ts, tools.ts) are inferred from it, and the quick
 * check that reads a plain tape without it (src/tape/quick-event-check.generated.ts) is generated
 * from it, so a field is added here alone (then `npm run quick-check:generate`).
 *
 * A tape is untrusted input, so objects are strict (unknown keys are refused) and every field is
 * checked. Only tape reading loads this module, and only for an event the quick check cannot vouch
 * for; everything else imports its types alone, which the compiler erases (start-up: no zod on a
 * plain tape's replay).
 */
import { z } from 'zod';
import { GATES, VERDICTS } from './decision-names.js';
import { finiteNumber, jsonRecord, nonNegInt, runTotalsSchema, terminalStateSchema } from './run-meta-schema.js';
import { AGENT_STATES } from './states.js';
import { customToolsSchema, mcpServerNameSchema, toolNameSchema } from './tool-spec-schema.js';

/** A header name: an HTTP token. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value a reply can carry: printable Latin-1 and tabs, no CR or LF. */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

// ---- Chat messages, in the OpenAI chat-completions shape (messages.ts) ----

/** One function call the model asked for; `arguments` is the raw JSON text the model produced. */
export const toolCallSchema = z.strictObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string(), arguments: z.string() }),
});

export const systemMessageSchema = z.strictObject({ role: z.literal('system'), content: z.string() });

export const userMessageSchema = z.strictObject({
  role: z.literal('user'),
  content: z.string(),
  /**
   * Set on messages the loop injects itself (max-tokens recovery, halt nudges, compaction
   * markers). Not sent to the provider as a field; the UI hides or dims them.
   */
  internal: z.strictObject({ reason: z.string() }).optional(),
});

export const assistantMessageSchema = z.strictObject({
  role: z.literal('assistant'),
  content: z.string().nullable(),
  tool_calls: z.array(toolCallSchema).optional(),
});

export const toolMessageSchema = z.strictObject({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() });

export const chatMessageSchema = z.discriminatedUnion('role', [systemMessageSchema, userMessageSchema, assistantMessageSchema, toolMessageSchema]);

// ---- Model responses and stream chunks (llm.ts) ----

export const finishReasonSchema = z.enum(['stop', 'length', 'tool_calls', 'content_filter', 'unknown']);

export const usageSchema = z.strictObject({ inputTokens: nonNegInt, outputTokens: nonNegInt });

export const llmResponseSchema = z.strictObject({
  message: assistantMessageSchema,
  finishReason: finishReasonSchema,
  usage: usageSchema,
  /** The model name the server reported, if any. */
  model: z.string().optional(),
});

export const toolCallDeltaSchema = z.strictObject({
  index: nonNegInt,
  id: z.string().optional(),
  name: z.string().optional(),
  arguments: z.string().optional(),
});

/** One piece of a streamed response, as recorded on the tape. */
export const llmChunkSchema = z.strictObject({
  /** 0-based position of the chunk in its stream. */
  index: nonNegInt,
  /** Milliseconds since the request was sent (replayed with `--speed`). */
  offsetMs: finiteNumber,
  /** Text added to the assistant message by this chunk. */
  content: z.string().optional(),
  /** Tool-call fragments, as the provider streams them. */
  toolCalls: z.array(toolCallDeltaSchema).optional(),
  finishReason: finishReasonSchema.optional(),
  /** True on the single terminal chunk of every stream. */
  finished: z.boolean(),
  /** Set on the terminal chunk when the stream ended abnormally. */
  error: z.string().optional(),
});

/** Whether a failed provider call may be retried (docs/loop.md). */
export const llmErrorKindSchema = z.enum(['recoverable', 'fatal']);

// ---- HTTP, as recorded at the transport ----

/** Which model API a transport-recorded call used: Chat Completions, the Responses API, or Anthropic's Messages API. */
export const modelEndpointSchema = z.enum(['chat', 'responses', 'messages']);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A body recorded as base64 must be base64 text. */
const base64Body = (value: { body?: unknown; encoding?: 'base64' }): boolean =>
  value.encoding === undefined || (typeof value.body === 'string' && value.body.length % 4 === 0 && BASE64.test(value.body));

/**
 * An HTTP reply as recorded: status, the headers clients read, and the body — parsed JSON, text, or
 * (`encoding: 'base64'`) the exact bytes of a body that is not text. It is served again as a
 * Response, so only what one can be (status 200-599, valid header names and values): a hostile tape
 * is refused when read, not at serve time.
 */
export const httpReplySchema = z
  .strictObject({
    status: z.number().int().min(200).max(599),
    headers: z.record(z.string().regex(HEADER_NAME, 'not an HTTP header name'), z.string().regex(HEADER_VALUE, 'not a valid HTTP header value')),
    body: z.unknown().optional(),
    /** `base64`: `body` is the base64 of the reply's bytes (audio, images, files: a body that is not text). */
    encoding: z.literal('base64').optional(),
    /** The body is not all of it: the reply was larger than a tape keeps, broke, or the client stopped reading. */
    truncated: z.boolean().optional(),
  })
  .refine(base64Body, { message: 'a base64 body must be base64 text', path: ['body'] });

// ---- Guardrail decisions (decisions.ts) ----

const counters = z.record(z.string(), finiteNumber);

/** One guardrail evaluation, with enough context to explain it without the code. */
export const decisionRecordSchema = z.strictObject({
  gate: z.enum(GATES),
  verdict: z.enum(VERDICTS),
  /** Stable machine name of the rule that fired, e.g. `identical_call_block`, `duplicate_success`. */
  rule: z.string(),
  /** The tool concerned, when the gate looks at one call. */
  tool: z.string().optional(),
  /** The call key (docs/guardrails.md §1) of the call concerned. */
  key: z.string().optional(),
  /** Counter values before and after this evaluation, e.g. `{ attempts: 1 }` → `{ attempts: 2 }`. */
  counters: z.strictObject({ before: counters, after: counters }),
  /** The threshold the counter is compared with, when there is one. */
  threshold: finiteNumber.optional(),
  /** One line for a person: "identical call 2 of 3", "prior call succeeded at step 2". */
  reason: z.string(),
});

// ---- MCP (src/mcp) ----

/** A JSON-RPC error as an MCP peer sent it. */
export const jsonRpcErrorSchema = z.strictObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });

/**
 * How an MCP request was answered, as the client saw it: the JSON-RPC `result` or `error`, and the
 * notifications the server sent while it was open (progress, log messages), in order, which a
 * replay sends again before the answer.
 */
export const mcpReplySchema = z.strictObject({
  result: jsonRecord.optional(),
  error: jsonRpcErrorSchema.optional(),
  notifications: z.array(z.strictObject({ method: z.string(), params: jsonRecord.optional() })).optional(),
});

/** How one tool call ended (tools.ts). */
export const toolOutcomeStatusSchema = z.enum(['ok', 'error', 'timeout', 'denied']);

// ---- The events ----

/**
 * What every event has: `seq` (0-based position in the run), `step` (the loop iteration it belongs
 * to, 0-based, the N of `--patch N=…`) and `t` (milliseconds since the run started, from the
 * injected clock). `t` and `durationMs` are timing, not behaviour: replay comparisons ignore them.
 */
export const eventBaseSchema = z.strictObject({ seq: nonNegInt, step: nonNegInt, t: finiteNumber });
const base = eventBaseSchema.shape;

export const runStartEventSchema = z.strictObject({
  ...base,
  type: z.literal('run_start'),
  task: z.string(),
  model: z.string(),
  seed: z.number().int(),
  /** The effective configuration (no secrets). */
  config: jsonRecord,
  /**
   * The run's custom tools (from its config's `toolModules`), each as the run used it: what the model
   * was shown of it, and its flags. Replay and the tape's request checks use these; the modules
   * themselves are never loaded from a tape. Absent when the run had none (and on tapes from before
   * they were recorded).
   */
  customTools: customToolsSchema.optional(),
  /**
   * Tools the config enabled that the run went without, each with why: `exec_shell` where it could
   * not run commands (no sandbox on the machine, no bash). The config recorded beside it is the one
   * the run used, without them, and a replay rebuilds its tools from that. Absent when none was.
   */
  toolsLeftOut: z.array(z.strictObject({ name: toolNameSchema, reason: z.string() })).optional(),
});

export const stateEventSchema = z.strictObject({
  ...base,
  type: z.literal('state'),
  from: z.enum(AGENT_STATES).nullable(),
  to: z.enum(AGENT_STATES),
  reason: z.string(),
});

/** A user message entering the conversation: the task, an interactive reply, or an internal nudge. */
export const userMessageEventSchema = z.strictObject({
  ...base,
  type: z.literal('user_message'),
  content: z.string(),
  /** Why the loop injected it (`max_tokens_recovery`, `halt_nudge`, `compaction`); absent for real user input. */
  internal: z.string().optional(),
});

/**
 * A request to the model, stored as a delta: the first `prefix` messages equal the previous
 * request's, then `append` follows. `hash` is the sha-256 of the whole request, so the full request
 * can be rebuilt and checked on read while the tape grows linearly with run length.
 */
export const llmRequestEventSchema = z.strictObject({
  ...base,
  type: z.literal('llm_request'),
  iteration: nonNegInt,
  hash: sha256Hex,
  prefix: nonNegInt,
  append: z.array(chatMessageSchema),
  model: z.string(),
  stream: z.boolean(),
  tools: z.array(z.string()),
  /** Recorded at the transport: which API the call went to. Absent: Chat Completions. */
  endpoint: modelEndpointSchema.optional(),
  /**
   * Recorded at the transport: every other body field that affects the answer (`top_p`, `seed`,
   * `tool_choice`, `response_format`, `stop`, `n`, …), part of the hash. Absent for the built-in loop.
   */
  params: jsonRecord.optional(),
});

export const llmChunkEventSchema = z.strictObject({
  ...base,
  type: z.literal('llm_chunk'),
  iteration: nonNegInt,
  attempt: nonNegInt,
  chunk: llmChunkSchema,
  /** Recorded at the transport: the server-sent event(s) this chunk came from, verbatim (redacted). */
  raw: z.string().optional(),
});

export const llmErrorEventSchema = z.strictObject({
  ...base,
  type: z.literal('llm_error'),
  iteration: nonNegInt,
  attempt: nonNegInt,
  kind: llmErrorKindSchema,
  status: z.number().int().optional(),
  message: z.string(),
  /** The server's Retry-After, in ms, when it sent one. */
  retryAfterMs: finiteNumber.optional(),
  /** Back-off before the next attempt; absent when the error is fatal or retries are used up. */
  retryInMs: finiteNumber.optional(),
  /** Recorded at the transport: the error response as the server sent it. */
  http: httpReplySchema.optional(),
});

export const llmResponseEventSchema = z.strictObject({
  ...base,
  type: z.literal('llm_response'),
  iteration: nonNegInt,
  attempt: nonNegInt,
  response: llmResponseSchema,
  durationMs: finiteNumber,
  /** Recorded at the transport: the reply as the server sent it (its body unless it streamed), served whole on replay. */
  http: httpReplySchema.optional(),
});

export const toolCallEventSchema = z.strictObject({
  ...base,
  type: z.literal('tool_call'),
  callId: z.string(),
  tool: z.string(),
  /** The raw argument text the model produced. */
  arguments: z.string(),
  key: z.string(),
  /** The MCP server the tool belongs to (config `mcpServers`, or `agentctl mcp`); absent for other tools. */
  server: mcpServerNameSchema.optional(),
});

export const guardrailEventSchema = z.strictObject({
  ...base,
  type: z.literal('guardrail'),
  callId: z.string().optional(),
  ...decisionRecordSchema.shape,
  /**
   * Not what happened: what the guardrails would have decided over a recorded run that did not run
   * them (docs/guardrails.md, "Any agent"). Made by `view`, `show` and `analyze` as they read a tape;
   * a tape never holds one.
   */
  analysis: z.literal(true).optional(),
});

export const toolResultEventSchema = z.strictObject({
  ...base,
  type: z.literal('tool_result'),
  callId: z.string(),
  tool: z.string(),
  status: toolOutcomeStatusSchema,
  /** What the model sees as the tool message. */
  output: z.string(),
  durationMs: finiteNumber,
  /** The MCP server the tool belongs to; absent for other tools. */
  server: mcpServerNameSchema.optional(),
  /** Recorded by `agentctl mcp`: the `tools/call` answer as the client got it, served whole on replay. */
  mcp: mcpReplySchema.optional(),
});

/**
 * Recorded by `agentctl mcp`: an MCP message that is not a tool call — a request (`initialize`,
 * `tools/list`, `resources/read`, `ping`, …) with its reply, or a notification (no reply). `from`
 * says who sent it: the client (the agent), or the server (a notification outside any request, or
 * a request of its own, answered by the client).
 */
export const mcpExchangeEventSchema = z.strictObject({
  ...base,
  type: z.literal('mcp_exchange'),
  server: mcpServerNameSchema,
  from: z.enum(['client', 'server']),
  method: z.string(),
  params: jsonRecord.optional(),
  /** Absent for a notification (and for a request the recording ended before the answer came). */
  reply: mcpReplySchema.optional(),
  durationMs: finiteNumber.optional(),
});

export const budgetEventSchema = z.strictObject({
  ...base,
  type: z.literal('budget'),
  inputTokens: nonNegInt,
  outputTokens: nonNegInt,
  cost: finiteNumber,
  nearBudget: z.boolean(),
});

/** Guardrail counters after a step, so a run restored from the tape continues with the same state. */
export const checkpointEventSchema = z.strictObject({ ...base, type: z.literal('checkpoint'), guardrails: jsonRecord });

export const warningEventSchema = z.strictObject({ ...base, type: z.literal('warning'), message: z.string() });

/** Recorded at the transport: a call to an endpoint that is not a model call, kept as an opaque pair. */
export const httpExchangeEventSchema = z
  .strictObject({
    ...base,
    type: z.literal('http_exchange'),
    method: z.string(),
    /** The URL path with its query (e.g. `/v1/models`); credential-named query values are `[REDACTED]`. */
    path: z.string(),
    /** The request body (parsed JSON, text, or base64 with `bodyEncoding`); absent when there was none. */
    body: z.unknown().optional(),
    /** `base64`: `body` is the base64 of the request's bytes (a multipart upload, a body that is not text). */
    bodyEncoding: z.literal('base64').optional(),
    /** sha-256 of method, path and body: what a replay matches on. */
    hash: sha256Hex,
    response: httpReplySchema,
    durationMs: finiteNumber,
  })
  .refine((e) => base64Body({ body: e.body, ...(e.bodyEncoding === undefined ? {} : { encoding: e.bodyEncoding }) }), {
    message: 'a base64 body must be base64 text',
    path: ['body'],
  });

/** Replay only: where and how a replay departs from its tape. */
export const divergenceEventSchema = z.strictObject({
  ...base,
  type: z.literal('divergence'),
  iteration: nonNegInt,
  /**
   * `decision`: a guardrail decision (same gate, tool, call and key) came to another verdict or rule;
   * reported also after the replay has left the tape, so a what-if shows every decision it changed.
   */
  kind: z.enum(['request', 'event', 'patched', 'resync', 'exhausted', 'live', 'tool_output', 'decision']),
  /** True when the divergence follows from a patch or a --set override. */
  expected: z.boolean(),
  message: z.string(),
  /**
   * Where the two differ, recorded vs replayed: for `request`, the first differing message and
   * field; for `decision`, path `verdict` and a summary of each side (verdict, rule, counters, threshold).
   */
  detail: z.strictObject({ path: z.string(), recorded: z.unknown(), replayed: z.unknown() }).optional(),
});

export const runEndEventSchema = z.strictObject({
  ...base,
  type: z.literal('run_end'),
  state: terminalStateSchema,
  reason: z.string(),
  totals: runTotalsSchema,
});

/** One RunEvent, as stored or exported. */
export const runEventSchema = z.discriminatedUnion('type', [
  runStartEventSchema,
  stateEventSchema,
  userMessageEventSchema,
  llmRequestEventSchema,
  llmChunkEventSchema,
  llmErrorEventSchema,
  llmResponseEventSchema,
  toolCallEventSchema,
  guardrailEventSchema,
  toolResultEventSchema,
  mcpExchangeEventSchema,
  budgetEventSchema,
  checkpointEventSchema,
  warningEventSchema,
  httpExchangeEventSchema,
  divergenceEventSchema,
  runEndEventSchema,
]);
