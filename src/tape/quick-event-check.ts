/**
 * A quick, hand-written check of the events a replay reads most (state, guardrail, tool call and
 * result, budget, checkpoint, plain model requests and responses, and every tape's run start and
 * end — so a plain tape never needs the schema loaded at all; and, by `quickHeader`, a tape's
 * header), written after the zod schemas in schema.ts and meta-schema.ts. It only ever says "valid" of an event the schema accepts as it is; anything else — an
 * unknown key, a missing field, a type it does not cover, an HTTP reply — is left to the schema,
 * which decides and words the error. So a tape is refused exactly as the schema alone refuses it, and a valid one costs
 * a few type tests per field instead of a schema parse.
 *
 * The property test in quick-event-check.test.ts holds it to that: whatever it accepts, the schema
 * accepts and parses to the same value.
 */
import { AGENT_STATES } from '../core/states.js';
import { VERDICTS } from '../core/decisions.js';
import type { RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';

type Check = (value: unknown) => boolean;
/** A field's check; `optional` fields may be absent (never present as undefined: JSON has none). */
type Field = Check | { optional: Check };
type Shape = Readonly<Record<string, Field>>;

const isString: Check = (v) => typeof v === 'string';
const isBoolean: Check = (v) => typeof v === 'boolean';
const isFinite: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isNonNegInt: Check = (v) => Number.isSafeInteger(v) && (v as number) >= 0;
const isNull: Check = (v) => v === null;
const oneOf = (values: readonly string[]): Check => {
  const set = new Set(values);
  return (v) => typeof v === 'string' && set.has(v);
};
const either = (a: Check, b: Check): Check => (v) => a(v) || b(v);
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
const arrayOf = (item: Check): Check => (v) => {
  if (!Array.isArray(v)) return false;
  for (const x of v) if (!item(x)) return false;
  return true;
};
/**
 * A zod record (`z.record`) is rebuilt key by key, so an own `__proto__` key (JSON.parse makes one)
 * does not survive it: such a record is left to the schema.
 */
const isJsonRecord: Check = (v) => isRecord(v) && !Object.hasOwn(v, '__proto__');
const recordOf = (value: Check): Check => (v) => {
  if (!isJsonRecord(v)) return false;
  const record = v as Record<string, unknown>;
  for (const key in record) if (!value(record[key])) return false;
  return true;
};
const optional = (check: Check): Field => ({ optional: check });

interface FieldCheck {
  key: string;
  check: Check;
  required: boolean;
}

/** A strict object: exactly the shape's keys (optional ones may be missing), each passing its check. */
function strict(shape: Shape): Check {
  const fields = Object.entries(shape).map(([key, field]): FieldCheck =>
    typeof field === 'function' ? { key, check: field, required: true } : { key, check: field.optional, required: false },
  );
  try {
    return compiled(fields);
  } catch (error) {
    // Code generation is off (`node --disallow-code-generation-from-strings`): the same check, slower.
    if (error instanceof EvalError) return interpreted(fields);
    throw error;
  }
}

/**
 * `strict` compiled to one function per shape: a `switch` on each key of the value, with a call of
 * its own for every field's check and a plain property read. The JIT then sees one check at each
 * call site and can inline it: on a long tape's events this is about twice as fast as
 * `interpreted`. The generated text holds only this file's key names (as JSON string literals) and
 * parameter names: nothing from a tape.
 */
function compiled(fields: readonly FieldCheck[]): Check {
  const required = fields.filter((f) => f.required).length;
  const cases = fields.map(({ key, required }, i) => {
    const name = JSON.stringify(key);
    return `case ${name}: if (!check${i}(v[${name}])) return false; ${required ? 'present++; ' : ''}break;`;
  });
  const body =
    'return (v) => { if (!isRecord(v)) return false; let present = 0; ' +
    `for (const key in v) { switch (key) { ${cases.join(' ')} default: return false; } } return present === ${required}; };`;
  const make = new Function('isRecord', ...fields.map((_, i) => `check${i}`), body) as (...args: unknown[]) => Check;
  return make(isRecord, ...fields.map((f) => f.check));
}

/** `strict` as a loop over the value's keys, each looked up in the shape. */
function interpreted(fields: readonly FieldCheck[]): Check {
  const required = fields.filter((f) => f.required).length;
  const byKey = new Map(fields.map((f) => [f.key, f]));
  return (v) => {
    if (!isRecord(v)) return false;
    let present = 0;
    for (const key in v) {
      const field = byKey.get(key);
      if (field === undefined || !field.check(v[key])) return false;
      if (field.required) present++;
    }
    return present === required;
  };
}

const toolCall = strict({
  id: isString,
  type: oneOf(['function']),
  function: strict({ name: isString, arguments: isString }),
});
const assistantFields = { role: oneOf(['assistant']), content: either(isString, isNull), tool_calls: optional(arrayOf(toolCall)) };
const assistantMessage = strict(assistantFields);
const messageByRole: Readonly<Record<string, Check>> = {
  system: strict({ role: isString, content: isString }),
  user: strict({ role: isString, content: isString, internal: optional(strict({ reason: isString })) }),
  assistant: assistantMessage,
  tool: strict({ role: isString, tool_call_id: isString, content: isString }),
};
const chatMessage: Check = (v) => isRecord(v) && typeof v.role === 'string' && Object.hasOwn(messageByRole, v.role) && messageByRole[v.role]!(v);

const base = { seq: isNonNegInt, step: isNonNegInt, t: isFinite };
const counters = recordOf(isFinite);
const HASH = /^[0-9a-f]{64}$/;
const TERMINAL = ['COMPLETED', 'CANCELLED', 'TIMED_OUT', 'MAX_STEPS', 'BUDGET_EXCEEDED', 'ERROR'];
const runTotals = strict({
  steps: isNonNegInt,
  llmCalls: isNonNegInt,
  toolCalls: isNonNegInt,
  inputTokens: isNonNegInt,
  outputTokens: isNonNegInt,
  cost: isFinite,
});

/** The covered event types; the others (and any event these reject) go to the schema. */
const byType: Readonly<Record<string, Check>> = {
  state: strict({ ...base, type: isString, from: either(oneOf(AGENT_STATES), isNull), to: oneOf(AGENT_STATES), reason: isString }),
  user_message: strict({ ...base, type: isString, content: isString, internal: optional(isString) }),
  llm_request: strict({
    ...base,
    type: isString,
    iteration: isNonNegInt,
    hash: (v) => typeof v === 'string' && HASH.test(v),
    prefix: isNonNegInt,
    append: arrayOf(chatMessage),
    model: isString,
    stream: isBoolean,
    tools: arrayOf(isString),
  }),
  llm_response: strict({
    ...base,
    type: isString,
    iteration: isNonNegInt,
    attempt: isNonNegInt,
    response: strict({
      message: assistantMessage,
      finishReason: oneOf(['stop', 'length', 'tool_calls', 'content_filter', 'unknown']),
      usage: strict({ inputTokens: isNonNegInt, outputTokens: isNonNegInt }),
      model: optional(isString),
    }),
    durationMs: isFinite,
  }),
  tool_call: strict({ ...base, type: isString, callId: isString, tool: isString, arguments: isString, key: isString }),
  guardrail: strict({
    ...base,
    type: isString,
    callId: optional(isString),
    gate: oneOf(['arguments', 'loop_guard', 'replay_control', 'failures', 'repetition', 'max_tokens', 'budget', 'policy']),
    verdict: oneOf(VERDICTS),
    rule: isString,
    tool: optional(isString),
    key: optional(isString),
    counters: strict({ before: counters, after: counters }),
    threshold: optional(isFinite),
    reason: isString,
  }),
  tool_result: strict({
    ...base,
    type: isString,
    callId: isString,
    tool: isString,
    status: oneOf(['ok', 'error', 'timeout', 'denied']),
    output: isString,
    durationMs: isFinite,
  }),
  budget: strict({ ...base, type: isString, inputTokens: isNonNegInt, outputTokens: isNonNegInt, cost: isFinite, nearBudget: isBoolean }),
  checkpoint: strict({ ...base, type: isString, guardrails: isJsonRecord }),
  run_start: strict({ ...base, type: isString, task: isString, model: isString, seed: (v) => Number.isSafeInteger(v), config: isJsonRecord }),
  run_end: strict({
    ...base,
    type: isString,
    state: oneOf(TERMINAL),
    reason: isString,
    totals: runTotals,
  }),
};

const checkOfType: ReadonlyMap<string, Check> = new Map(Object.entries(byType));

/** The value as a RunEvent when the quick check can vouch for it; undefined → ask the schema. */
export function quickEvent(value: unknown): RunEvent | undefined {
  if (!isRecord(value) || typeof value.type !== 'string') return undefined;
  const check = checkOfType.get(value.type);
  return check !== undefined && check(value) ? (value as unknown as RunEvent) : undefined;
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
/** Run metadata (a tape header's `run`), after runMetaSchema in meta-schema.ts. */
const runMeta = strict({
  id: (v) => typeof v === 'string' && ULID.test(v),
  kind: oneOf(['record', 'replay']),
  source: optional(oneOf(['cli', 'library', 'proxy'])),
  parentId: optional(isString),
  name: optional(isString),
  createdAt: isString,
  task: isString,
  model: isString,
  baseUrl: optional(isString),
  config: isJsonRecord,
  seed: (v) => Number.isSafeInteger(v),
  status: oneOf(['recording', 'complete', 'incomplete']),
  finalState: optional(oneOf(TERMINAL)),
  totals: optional(runTotals),
  eventCount: optional(isNonNegInt),
  updates: optional(arrayOf(strict({ at: isString, note: isString }))),
  tapeVersion: isNonNegInt,
});
const header = strict({ format: oneOf(['agentctl-tape']), version: (v) => Number.isSafeInteger(v), run: isRecord });

/**
 * A tape header (line 1) whose run metadata the quick check can vouch for: `{ version, meta }`, or
 * undefined → ask the schemas (meta-schema.ts), which decide and word the error.
 */
export function quickHeader(value: unknown): { version: number; meta: RunMeta } | undefined {
  if (!header(value)) return undefined;
  const { version, run } = value as { version: number; run: unknown };
  return runMeta(run) ? { version, meta: run as RunMeta } : undefined;
}

