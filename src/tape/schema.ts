/**
 * zod schemas for everything read from outside: portable tape files and store values. A tape is
 * untrusted input, so objects are strict (unknown keys are refused) and every field is checked.
 * The compile-time checks at the bottom keep these schemas and the TypeScript types in step.
 *
 * The tape header's schemas (and the HTTP header patterns) live in meta-schema.ts, re-exported here:
 * reading a tape file needs them up front, the event schema below only for events the quick check
 * (quick-event-check.ts) cannot vouch for, so line-checks.ts loads this module on demand (its construction would add to every replay's start-up).
 */
import { z } from 'zod';
import { finiteNumber, HEADER_NAME, HEADER_VALUE, jsonRecord, nonNegInt, terminalState, totals, type runMetaSchema } from './meta-schema.js';
import { AGENT_STATES } from '../core/states.js';
import { VERDICTS } from '../core/decisions.js';
import type { RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';

export { describeIssue, HEADER_NAME, HEADER_VALUE, runMetaSchema, tapeHeaderSchema } from './meta-schema.js';


const agentState = z.enum(AGENT_STATES);
const finishReason = z.enum(['stop', 'length', 'tool_calls', 'content_filter', 'unknown']);

const toolCall = z.strictObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string(), arguments: z.string() }),
});

const assistantMessage = z.strictObject({
  role: z.literal('assistant'),
  content: z.string().nullable(),
  tool_calls: z.array(toolCall).optional(),
});

const chatMessage = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('system'), content: z.string() }),
  z.strictObject({
    role: z.literal('user'),
    content: z.string(),
    internal: z.strictObject({ reason: z.string() }).optional(),
  }),
  assistantMessage,
  z.strictObject({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
]);

const usage = z.strictObject({ inputTokens: nonNegInt, outputTokens: nonNegInt });

const llmResponse = z.strictObject({
  message: assistantMessage,
  finishReason,
  usage,
  model: z.string().optional(),
});

const llmChunk = z.strictObject({
  index: nonNegInt,
  offsetMs: finiteNumber,
  content: z.string().optional(),
  toolCalls: z
    .array(
      z.strictObject({
        index: nonNegInt,
        id: z.string().optional(),
        name: z.string().optional(),
        arguments: z.string().optional(),
      }),
    )
    .optional(),
  finishReason: finishReason.optional(),
  finished: z.boolean(),
  error: z.string().optional(),
});


const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A body recorded as base64 must be base64 text. */
const base64Body = (value: { body?: unknown; encoding?: 'base64' }): boolean =>
  value.encoding === undefined || (typeof value.body === 'string' && value.body.length % 4 === 0 && BASE64.test(value.body));

// A recorded reply is served again as a Response: only what one can be (status 200-599, valid header
// names and values), so a hostile tape is refused when read, not at serve time.
const httpReply = z
  .strictObject({
    status: z.number().int().min(200).max(599),
    headers: z.record(z.string().regex(HEADER_NAME, 'not an HTTP header name'), z.string().regex(HEADER_VALUE, 'not a valid HTTP header value')),
    body: z.unknown().optional(),
    encoding: z.literal('base64').optional(),
    truncated: z.boolean().optional(),
  })
  .refine(base64Body, { message: 'a base64 body must be base64 text', path: ['body'] });

const base = { seq: nonNegInt, step: nonNegInt, t: finiteNumber };
const counters = z.record(z.string(), finiteNumber);

/** One RunEvent, as stored or exported. */
export const runEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ ...base, type: z.literal('run_start'), task: z.string(), model: z.string(), seed: z.number().int(), config: jsonRecord }),
  z.strictObject({ ...base, type: z.literal('state'), from: agentState.nullable(), to: agentState, reason: z.string() }),
  z.strictObject({ ...base, type: z.literal('user_message'), content: z.string(), internal: z.string().optional() }),
  z.strictObject({
    ...base,
    type: z.literal('llm_request'),
    iteration: nonNegInt,
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    prefix: nonNegInt,
    append: z.array(chatMessage),
    model: z.string(),
    stream: z.boolean(),
    tools: z.array(z.string()),
    endpoint: z.enum(['chat', 'responses']).optional(),
    params: jsonRecord.optional(),
  }),
  z.strictObject({ ...base, type: z.literal('llm_chunk'), iteration: nonNegInt, attempt: nonNegInt, chunk: llmChunk, raw: z.string().optional() }),
  z.strictObject({
    ...base,
    type: z.literal('llm_error'),
    iteration: nonNegInt,
    attempt: nonNegInt,
    kind: z.enum(['recoverable', 'fatal']),
    status: z.number().int().optional(),
    message: z.string(),
    retryAfterMs: finiteNumber.optional(),
    retryInMs: finiteNumber.optional(),
    http: httpReply.optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('llm_response'),
    iteration: nonNegInt,
    attempt: nonNegInt,
    response: llmResponse,
    durationMs: finiteNumber,
    http: httpReply.optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('http_exchange'),
    method: z.string(),
    path: z.string(),
    body: z.unknown().optional(),
    bodyEncoding: z.literal('base64').optional(),
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    response: httpReply,
    durationMs: finiteNumber,
  }).refine((e) => base64Body({ body: e.body, ...(e.bodyEncoding === undefined ? {} : { encoding: e.bodyEncoding }) }), {
    message: 'a base64 body must be base64 text',
    path: ['body'],
  }),
  z.strictObject({ ...base, type: z.literal('tool_call'), callId: z.string(), tool: z.string(), arguments: z.string(), key: z.string() }),
  z.strictObject({
    ...base,
    type: z.literal('guardrail'),
    callId: z.string().optional(),
    gate: z.enum(['arguments', 'loop_guard', 'replay_control', 'failures', 'repetition', 'max_tokens', 'budget', 'policy']),
    verdict: z.enum(VERDICTS),
    rule: z.string(),
    tool: z.string().optional(),
    key: z.string().optional(),
    counters: z.strictObject({ before: counters, after: counters }),
    threshold: finiteNumber.optional(),
    reason: z.string(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('tool_result'),
    callId: z.string(),
    tool: z.string(),
    status: z.enum(['ok', 'error', 'timeout', 'denied']),
    output: z.string(),
    durationMs: finiteNumber,
  }),
  z.strictObject({
    ...base,
    type: z.literal('budget'),
    inputTokens: nonNegInt,
    outputTokens: nonNegInt,
    cost: finiteNumber,
    nearBudget: z.boolean(),
  }),
  z.strictObject({ ...base, type: z.literal('checkpoint'), guardrails: jsonRecord }),
  z.strictObject({ ...base, type: z.literal('warning'), message: z.string() }),
  z.strictObject({
    ...base,
    type: z.literal('divergence'),
    iteration: nonNegInt,
    kind: z.enum(['request', 'event', 'patched', 'resync', 'exhausted', 'live', 'tool_output', 'decision']),
    expected: z.boolean(),
    message: z.string(),
    detail: z.strictObject({ path: z.string(), recorded: z.unknown(), replayed: z.unknown() }).optional(),
  }),
  z.strictObject({ ...base, type: z.literal('run_end'), state: terminalState, reason: z.string(), totals }),
]);

// Compile-time: the schemas produce exactly the core types (both directions).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const eventsMatch: Same<z.infer<typeof runEventSchema>, RunEvent> = true;
const metaMatch: Same<z.infer<typeof runMetaSchema>, RunMeta> = true;
void eventsMatch;
void metaMatch;
