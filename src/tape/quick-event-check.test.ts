/**
 * The quick event check may skip the schema only where the schema would have said yes: on the
 * events of random valid tapes, and on the same events with one random change anywhere in them (a
 * key removed, an unknown key added, a value replaced), whatever it accepts the schema accepts and
 * parses to the same value. And it does accept the valid events of the types it covers, so a
 * replay takes the fast path.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quickEvent, quickHeader } from './quick-event-check.js';
import { runEventSchema, runMetaSchema, tapeHeaderSchema } from './schema.js';
import { tapeArbitrary } from './test-support/arbitraries.js';

const COVERED = new Set(['state', 'user_message', 'llm_request', 'llm_response', 'tool_call', 'guardrail', 'tool_result', 'budget', 'checkpoint', 'run_start', 'run_end']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every object and array inside `value` (itself included). */
function containers(value: Json, out: (Json[] | { [key: string]: Json })[] = []): (Json[] | { [key: string]: Json })[] {
  if (value !== null && typeof value === 'object') {
    out.push(value);
    for (const child of Object.values(value)) containers(child, out);
  }
  return out;
}

const mutation = fc.record({
  where: fc.nat(),
  which: fc.nat(),
  kind: fc.constantFrom('delete', 'add', 'replace'),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 1 }),
    fc.constantFrom(-1, 1.5, 2 ** 60, '', 'RUNNING', 'allow', 'function', 'assistant', null, true, [], {}, '0'.repeat(64)),
  ),
});

/** A copy of `event` with one change at a place picked by `m`. */
function mutate(event: unknown, m: { where: number; which: number; kind: string; value: unknown }): Json {
  const copy = JSON.parse(JSON.stringify(event)) as Json;
  const targets = containers(copy);
  const target = targets[m.where % targets.length]!;
  const keys = Object.keys(target);
  const key = keys.length === 0 ? undefined : keys[m.which % keys.length]!;
  if (m.kind === 'add' && !Array.isArray(target)) target[`extra${m.which % 3}`] = m.value as Json;
  else if (m.kind === 'delete' && key !== undefined) {
    if (Array.isArray(target)) target.splice(Number(key), 1);
    else delete target[key];
  } else if (key !== undefined) (target as Record<string, Json>)[key] = m.value as Json;
  return copy;
}

function agreesWithSchema(value: unknown): void {
  const quick = quickEvent(value);
  if (quick === undefined) return;
  const parsed = runEventSchema.safeParse(value);
  expect(parsed.success, JSON.stringify(value)).toBe(true);
  expect(quick).toEqual(parsed.data);
}

describe('quick event check', () => {
  it('accepts the valid events it covers, as the schema parses them', () => {
    fc.assert(
      fc.property(tapeArbitrary, ({ events }) => {
        for (const event of events) {
          const json: unknown = JSON.parse(JSON.stringify(event));
          if (COVERED.has(event.type)) expect(quickEvent(json), JSON.stringify(json)).toBeDefined();
          agreesWithSchema(json);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('accepts a changed event only when the schema does too', () => {
    fc.assert(
      fc.property(tapeArbitrary, fc.array(mutation, { minLength: 1, maxLength: 20 }), ({ events }, mutations) => {
        mutations.forEach((m, i) => agreesWithSchema(mutate(events[i % events.length], m)));
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves what it does not cover to the schema', () => {
    expect(quickEvent({ type: 'warning', seq: 0, step: 0, t: 0, message: 'x' })).toBeUndefined();
    expect(quickEvent({ type: 'constructor', seq: 0, step: 0, t: 0 })).toBeUndefined();
    expect(quickEvent(JSON.parse('{"type":"budget","seq":0,"step":0,"t":0,"inputTokens":1,"outputTokens":1,"cost":0,"nearBudget":false,"__proto__":{}}'))).toBeUndefined();
    expect(quickEvent(JSON.parse('{"type":"checkpoint","seq":0,"step":0,"t":0,"guardrails":{"__proto__":{}}}'))).toBeUndefined();
    const counters = '{"before":{},"after":{"__proto__":0}}';
    expect(quickEvent(JSON.parse(`{"type":"guardrail","seq":0,"step":0,"t":0,"gate":"arguments","verdict":"allow","rule":"","counters":${counters},"reason":""}`))).toBeUndefined();
  });
});

/** Whatever header the quick check vouches for, the header and run-metadata schemas accept as the same value. */
function headerAgreesWithSchemas(value: unknown): void {
  const quick = quickHeader(value);
  if (quick === undefined) return;
  const header = tapeHeaderSchema.safeParse(value);
  expect(header.success, JSON.stringify(value)).toBe(true);
  expect(quick.version).toBe(header.data!.version);
  const meta = runMetaSchema.safeParse(header.data!.run);
  expect(meta.success, JSON.stringify(value)).toBe(true);
  expect(quick.meta).toEqual(meta.data);
}

describe('quick header check', () => {
  it('accepts the headers of valid tapes, as the schemas parse them', () => {
    fc.assert(
      fc.property(tapeArbitrary, ({ meta }) => {
        const json: unknown = JSON.parse(JSON.stringify({ format: 'agentctl-tape', version: 1, run: meta }));
        expect(quickHeader(json), JSON.stringify(json)).toBeDefined();
        headerAgreesWithSchemas(json);
      }),
      { numRuns: 300 },
    );
  });

  it('accepts a changed header only when the schemas do too', () => {
    fc.assert(
      fc.property(tapeArbitrary, fc.array(mutation, { minLength: 1, maxLength: 3 }), ({ meta }, mutations) => {
        let header: unknown = { format: 'agentctl-tape', version: 1, run: meta };
        for (const m of mutations) {
          header = mutate(header, m);
          headerAgreesWithSchemas(header);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

