/** fast-check generators of valid tape contents, for property tests. */
import fc from 'fast-check';
import type { RunEvent } from '../../core/events.js';
import type { RunMeta } from '../../core/run-meta.js';
import { AGENT_STATES, TERMINAL_STATES } from '../../core/states.js';
import { GATES, VERDICTS } from '../../core/decisions.js';
import { finishReasonSchema, llmErrorKindSchema, toolOutcomeStatusSchema } from '../../core/event-schema.js';
import type { AgentConfig } from '../../agent/config.js';
import { parseConfig } from '../../agent/load-config.js';
import { applyDeltaInPlace, RequestHasher } from '../../agent/request-delta.js';
import type { LlmRequest } from '../../core/llm.js';
import type { ChatMessage } from '../../core/messages.js';
import { BUILTIN_TOOL_NAMES, isBuiltinToolName } from '../../tools/builtins.js';
import { ToolRegistry } from '../../tools/registry.js';
import { replyOutcome } from '../mcp-checks.js';
import { isObjectMachineryKey } from '../../core/object-keys.js';

const text = fc.string({ maxLength: 40 });
const nat = fc.nat({ max: 1_000_000 });
const time = fc.double({ min: 0, max: 1e7, noNaN: true, noDefaultInfinity: true });
/**
 * fast-check favours names such as `constructor` and `__proto__` for keys. What a client, a model or
 * a server sent may have them at any depth below its top level (a tape holds them there); agentctl's
 * own records (a config, a checkpoint, counters) never do, so their keys are renamed.
 */
const payload: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(
  fc.string({ maxLength: 8 }).filter((key) => !isObjectMachineryKey(key)),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<unknown>,
  { maxKeys: 4 },
);
/** A server's answer keyed by machinery names below its top level (fast-check rarely makes one at depth). */
const oddPayload = fc.constant('{"structuredContent":{"__proto__":{"a":1},"constructor":"c","prototype":["p"]}}').map((text) => JSON.parse(text) as Record<string, unknown>);
const json: fc.Arbitrary<Record<string, unknown>> = payload.map((value) => ownKeys(value) as Record<string, unknown>);
const counterName = text.filter((key) => !isObjectMachineryKey(key));

function ownKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ownKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [isObjectMachineryKey(key) ? `${key}_` : key, ownKeys(inner)]));
}
const terminal = fc.constantFrom(...TERMINAL_STATES);
const toolCall = fc.record({
  id: text,
  type: fc.constant('function' as const),
  function: fc.record({ name: text, arguments: text }),
});
const assistant = fc.record(
  { role: fc.constant('assistant' as const), content: fc.option(text, { nil: null }), tool_calls: fc.array(toolCall, { maxLength: 2 }) },
  { requiredKeys: ['role', 'content'] },
);
const message = fc.oneof(
  fc.record({ role: fc.constant('system' as const), content: text }),
  fc.record({ role: fc.constant('user' as const), content: text }),
  assistant,
  fc.record({ role: fc.constant('tool' as const), tool_call_id: text, content: text }),
);
const finishReason = fc.constantFrom(...finishReasonSchema.options);
const server = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const mcpReply = fc.record(
  {
    result: fc.oneof({ arbitrary: payload, weight: 4 }, { arbitrary: oddPayload, weight: 1 }),
    error: fc.record({ code: fc.integer({ min: -32768, max: 32767 }), message: text, data: fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<unknown> }, { requiredKeys: ['code', 'message'] }),
    notifications: fc.array(fc.record({ method: text, params: payload }, { requiredKeys: ['method'] }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const usage = fc.record({ inputTokens: nat, outputTokens: nat });

type Body = Omit<RunEvent, 'seq' | 'step' | 't'>;
const body: fc.Arbitrary<Body> = fc.oneof(
  fc.record({ type: fc.constant('run_start' as const), task: text, model: text, seed: fc.integer(), config: json }),
  fc.record({ type: fc.constant('state' as const), from: fc.option(fc.constantFrom(...AGENT_STATES), { nil: null }), to: fc.constantFrom(...AGENT_STATES), reason: text }),
  fc.record({ type: fc.constant('user_message' as const), content: text, internal: text }, { requiredKeys: ['type', 'content'] }),
  fc.record({
    type: fc.constant('llm_request' as const),
    iteration: nat,
    hash: fc.stringMatching(/^[0-9a-f]{64}$/),
    prefix: nat,
    append: fc.array(message, { maxLength: 3 }),
    model: text,
    stream: fc.boolean(),
    tools: fc.array(text, { maxLength: 3 }),
  }),
  fc.record({
    type: fc.constant('llm_chunk' as const),
    iteration: nat,
    attempt: nat,
    chunk: fc.record(
      { index: nat, offsetMs: time, content: text, finishReason, finished: fc.boolean(), error: text },
      { requiredKeys: ['index', 'offsetMs', 'finished'] },
    ),
  }),
  fc.record(
    { type: fc.constant('llm_error' as const), iteration: nat, attempt: nat, kind: fc.constantFrom(...llmErrorKindSchema.options), status: fc.integer({ min: 100, max: 599 }), message: text, retryInMs: time },
    { requiredKeys: ['type', 'iteration', 'attempt', 'kind', 'message'] },
  ),
  fc.record({
    type: fc.constant('llm_response' as const),
    iteration: nat,
    attempt: nat,
    response: fc.record({ message: assistant, finishReason, usage }),
    durationMs: time,
  }),
  fc.record({ type: fc.constant('tool_call' as const), callId: text, tool: text, arguments: text, key: text, server }, { requiredKeys: ['type', 'callId', 'tool', 'arguments', 'key'] }),
  fc.record(
    {
      type: fc.constant('guardrail' as const),
      gate: fc.constantFrom(...GATES),
      verdict: fc.constantFrom(...VERDICTS),
      rule: text,
      tool: text,
      key: text,
      callId: text,
      counters: fc.record({ before: fc.dictionary(counterName, nat, { maxKeys: 2 }), after: fc.dictionary(counterName, nat, { maxKeys: 2 }) }),
      threshold: nat,
      reason: text,
    },
    { requiredKeys: ['type', 'gate', 'verdict', 'rule', 'counters', 'reason'] },
  ),
  fc.record(
    { type: fc.constant('tool_result' as const), callId: text, tool: text, status: fc.constantFrom(...toolOutcomeStatusSchema.options), output: text, durationMs: time, server, mcp: mcpReply },
    { requiredKeys: ['type', 'callId', 'tool', 'status', 'output', 'durationMs'] },
  ),
  fc.record(
    { type: fc.constant('mcp_exchange' as const), server, from: fc.constantFrom('client', 'server' as const), method: text, params: payload, reply: mcpReply, durationMs: time },
    { requiredKeys: ['type', 'server', 'from', 'method'] },
  ),
  fc.record({ type: fc.constant('budget' as const), inputTokens: nat, outputTokens: nat, cost: time, nearBudget: fc.boolean() }),
  fc.record({ type: fc.constant('checkpoint' as const), guardrails: json }),
  fc.record({ type: fc.constant('warning' as const), message: text }),
  fc.record({
    type: fc.constant('run_end' as const),
    state: terminal,
    reason: text,
    totals: fc.record({ steps: nat, llmCalls: nat, toolCalls: nat, inputTokens: nat, outputTokens: nat, cost: time }),
  }),
) as fc.Arbitrary<Body>;

const builtinTools = fc.subarray([...BUILTIN_TOOL_NAMES]);

/** Recorded configs that replay accepts: any subset of some settings, over this version's defaults. */
const config: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    model: fc.string({ minLength: 1, maxLength: 12 }),
    seed: fc.integer(),
    stream: fc.boolean(),
    maxTokens: fc.nat({ max: 4096 }),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    tools: builtinTools,
    limits: fc.record({ maxSteps: fc.integer({ min: 1, max: 100 }), timeoutMs: nat }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

const runEnd = fc.record({
  type: fc.constant('run_end' as const),
  state: terminal,
  reason: text,
  totals: fc.record({ steps: nat, llmCalls: nat, toolCalls: nat, inputTokens: nat, outputTokens: nat, cost: time }),
});

/**
 * A valid tape: run_start first (with a config replay accepts), steps that never go back, requests
 * whose prefix and hash are those of the conversation their deltas build, maybe run_end last, and a
 * header that agrees with itself and the events (a run without run_end is the export of an
 * incomplete one).
 */
export const tapeArbitrary: fc.Arbitrary<{ meta: RunMeta; events: RunEvent[] }> = fc
  .record({
    id: fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
    kind: fc.constantFrom('record', 'replay' as const),
    parentId: fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
    name: fc.option(text, { nil: undefined }),
    task: text,
    baseUrl: fc.option(fc.webUrl({ withQueryParameters: false, withFragments: false }), { nil: undefined }),
    seed: fc.integer(),
    config,
    middle: fc.array(fc.tuple(body, nat, time), { maxLength: 25 }),
    end: fc.option(runEnd, { nil: undefined }),
    startStep: fc.nat({ max: 3 }),
    withCount: fc.boolean(),
  })
  .map((draft) => {
    const bodies = draft.middle.filter(([b]) => b.type !== 'run_start' && b.type !== 'run_end');
    const steps = bodies.map(([, step]) => step % 50).sort((a, b) => a - b);
    const model = typeof draft.config.model === 'string' ? draft.config.model : 'gpt-test';
    const events: RunEvent[] = [
      { type: 'run_start', seq: 0, step: 0, t: 0, task: draft.task, model, seed: draft.seed, config: draft.config },
      ...bodies.map(([b, , t], i) => ({ ...b, seq: i + 1, step: steps[i] as number, t }) as RunEvent),
    ];
    if (draft.end !== undefined) events.push({ ...draft.end, seq: events.length, step: steps.at(-1) ?? 0, t: 0 });
    rehash(events, parseConfig(draft.config, 'test config'));
    answerOwnServers(events);
    const meta: RunMeta = {
      id: draft.id,
      kind: draft.kind,
      createdAt: '2026-11-21T23:49:51.000Z',
      task: draft.task,
      model,
      config: draft.config,
      seed: draft.seed,
      status: draft.end === undefined ? 'incomplete' : 'complete',
      tapeVersion: 1,
    };
    for (const key of ['name', 'baseUrl'] as const) if (draft[key] !== undefined) meta[key] = draft[key];
    // A replay names the run it replayed; a recording none (header-checks.ts).
    if (draft.kind === 'replay') meta.parentId = draft.parentId;
    if (draft.end !== undefined) {
      meta.finalState = draft.end.state;
      meta.totals = draft.end.totals;
    }
    if (draft.withCount || draft.end !== undefined) meta.eventCount = events.length;
    return { meta, events };
  });

/**
 * Make each tool result name the server of the open call it answers (tape/mcp-checks.ts): the
 * server of the first unanswered call with its id, or, for a result no call is open for, its own
 * (one with an MCP reply always names one); and the output and status its MCP reply says.
 */
function answerOwnServers(events: RunEvent[]): void {
  const open = new Map<string, (string | undefined)[]>();
  for (const event of events) {
    if (event.type === 'tool_call') open.set(event.callId, [...(open.get(event.callId) ?? []), event.server]);
    if (event.type !== 'tool_result') continue;
    const servers = open.get(event.callId);
    const answered = servers === undefined || servers.length === 0 ? (event.mcp === undefined ? event.server : (event.server ?? 'mcp')) : servers.shift();
    if (answered === undefined) delete event.server;
    else event.server = answered;
    if (event.server === undefined) delete event.mcp;
    const said = event.mcp === undefined ? undefined : replyOutcome(event.mcp);
    if (said !== undefined) Object.assign(event, said);
  }
}

/** Give every request a prefix its previous request had, and the hash of the request its deltas build. */
function rehash(events: RunEvent[], recorded: AgentConfig): void {
  const hasher = new RequestHasher();
  const messages: ChatMessage[] = [];
  for (const event of events) {
    if (event.type !== 'llm_request') continue;
    event.prefix = Math.min(event.prefix, messages.length);
    event.tools = [...new Set(event.tools.filter(isBuiltinToolName))];
    applyDeltaInPlace(messages, event);
    const request: LlmRequest = { model: event.model, messages, tools: ToolRegistry.fromNames(event.tools).definitions(), stream: event.stream };
    if (recorded.maxTokens > 0) request.maxTokens = recorded.maxTokens;
    if (recorded.temperature !== undefined) request.temperature = recorded.temperature;
    event.hash = hasher.hash(request, event);
  }
}
