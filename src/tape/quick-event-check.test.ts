/**
 * The quick event check is generated from the schemas, and may skip the schema only where the
 * schema would have said yes. The checked-in module must be what the generator makes of the schemas
 * now (so a field added to a schema alone fails here). On the events of random valid tapes, on
 * random values of every event type and field the schema describes, and on both with one random
 * change anywhere in them (a key removed, an unknown key added, a value replaced), whatever it
 * accepts the schema accepts and parses to the same value. And it does accept the valid events of
 * the types it covers, so a replay takes the fast path.
 */
import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, quickCheckSource } from '../../scripts/generate-quick-check.js';
import { quickEvent, quickHeader } from './quick-event-check.js';
import { QUICK_EVENT_TYPES } from './quick-event-check.generated.js';
import { runEventSchema, runMetaSchema, tapeHeaderSchema } from './schema.js';
import { tapeArbitrary } from './test-support/arbitraries.js';
import { changed, holdsProtoKey, jsonChange } from './test-support/json-changes.js';
import { arbitraryOf } from './test-support/schema-arbitrary.js';

const COVERED: ReadonlySet<string> = new Set(QUICK_EVENT_TYPES);
/** Fields a covered event may have that the quick check leaves to the schema (an HTTP reply, a run's custom tools: refinements). */
const LEFT_TO_SCHEMA = ['http', 'customTools'];
const anyEvent = arbitraryOf(runEventSchema);
const anyRunMeta = arbitraryOf(runMetaSchema);

const mutation = jsonChange([-1, 1.5, 2 ** 60, '', 'RUNNING', 'allow', 'function', 'assistant', null, true, [], {}, '0'.repeat(64)]);

function agreesWithSchema(value: unknown): void {
  const quick = quickEvent(value);
  if (quick === undefined) return;
  const parsed = runEventSchema.safeParse(value);
  expect(parsed.success, JSON.stringify(value)).toBe(true);
  expect(quick).toEqual(parsed.data);
}

describe('quick event check', () => {
  it('is what scripts/generate-quick-check.ts makes of the schemas now (else: npm run quick-check:generate)', async () => {
    expect(await readFile(GENERATED_FILE, 'utf8')).toBe(quickCheckSource());
  });

  it('covers every event type but the transport\'s opaque HTTP exchange', () => {
    const types = runEventSchema.options.map((option) => option.shape.type.value);
    expect([...QUICK_EVENT_TYPES].sort()).toEqual(types.filter((type) => type !== 'http_exchange').sort());
  });

  it('accepts the valid events it covers, as the schema parses them', () => {
    fc.assert(
      fc.property(tapeArbitrary, ({ events }) => {
        for (const event of events) {
          const json: unknown = JSON.parse(JSON.stringify(event));
          if (COVERED.has(event.type) && !holdsProtoKey(json)) expect(quickEvent(json), JSON.stringify(json)).toBeDefined();
          agreesWithSchema(json);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('accepts a changed event only when the schema does too', () => {
    fc.assert(
      fc.property(tapeArbitrary, fc.array(mutation, { minLength: 1, maxLength: 20 }), ({ events }, mutations) => {
        mutations.forEach((m, i) => agreesWithSchema(changed(events[i % events.length], m)));
      }),
      { numRuns: 1000 },
    );
  });

  it('accepts any value of every event type the schema describes, every optional field included, as the schema parses it', () => {
    fc.assert(
      fc.property(anyEvent, (event) => {
        expect(runEventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
        const { type } = event as { type: string };
        const deferred = LEFT_TO_SCHEMA.some((key) => Object.hasOwn(event as object, key));
        if (!COVERED.has(type) || deferred) expect(quickEvent(event), JSON.stringify(event)).toBeUndefined();
        else if (!holdsProtoKey(event)) expect(quickEvent(event), JSON.stringify(event)).toBeDefined();
        agreesWithSchema(event);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts any such value changed only when the schema does too', () => {
    fc.assert(
      fc.property(anyEvent, fc.array(mutation, { minLength: 1, maxLength: 5 }), (event, mutations) => {
        for (const m of mutations) agreesWithSchema(changed(event, m));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves what it does not cover to the schema', () => {
    const response = { type: 'llm_response', seq: 0, step: 0, t: 0, iteration: 0, attempt: 0, durationMs: 1 };
    const reply = { message: { role: 'assistant', content: 'hi' }, finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
    expect(quickEvent({ ...response, response: reply })).toBeDefined();
    expect(quickEvent({ ...response, response: reply, http: { status: 200, headers: {} } })).toBeUndefined();
    const exchange = { type: 'http_exchange', seq: 0, step: 0, t: 0, method: 'GET', path: '/v1/models', hash: '0'.repeat(64), durationMs: 1 };
    expect(runEventSchema.safeParse({ ...exchange, response: { status: 200, headers: {} } }).success).toBe(true);
    expect(quickEvent({ ...exchange, response: { status: 200, headers: {} } })).toBeUndefined();
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

  it('accepts any run metadata the schema describes, every optional field included, as the schemas parse it', () => {
    fc.assert(
      fc.property(anyRunMeta, fc.integer(), (run, version) => {
        const header = { format: 'agentctl-tape', version, run };
        if (!holdsProtoKey(run)) expect(quickHeader(header), JSON.stringify(header)).toBeDefined();
        headerAgreesWithSchemas(header);
      }),
      { numRuns: 1000 },
    );
  });

  it('accepts a changed header only when the schemas do too', () => {
    fc.assert(
      fc.property(tapeArbitrary, fc.array(mutation, { minLength: 1, maxLength: 3 }), ({ meta }, mutations) => {
        let header: unknown = { format: 'agentctl-tape', version: 1, run: meta };
        for (const m of mutations) {
          header = changed(header, m);
          headerAgreesWithSchemas(header);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

