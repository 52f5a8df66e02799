/**
 * The quick check generator (scripts/generate-quick-check.ts) on schemas made for the test, not only
 * the tape schemas of today: every construct it mirrors, at its edges (exclusive bounds, literal
 * numbers and booleans, a discriminator with two values, nested records and arrays, a pattern with
 * a slash), is vouched for exactly when the schema accepts the value as it is; and every construct
 * it does not mirror (a refinement, a transform, a default, a plain union, coercion, a key pattern,
 * a non-strict object, checks it does not know) is left to the schema, so that adding one to a tape
 * schema can never make the quick check accept what the schema would refuse or change.
 */
import { runInThisContext } from 'node:vm';
import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { quickCheckModule } from '../../scripts/generate-quick-check.js';
import { changed, holdsProtoKey, jsonChange } from './test-support/json-changes.js';
import { arbitraryOf } from './test-support/schema-arbitrary.js';

/** The generated check of `schema` (an object or a discriminated union), compiled as the module would be. */
function generatedCheck(schema: z.core.$ZodType): (value: unknown) => boolean {
  const source = quickCheckModule([{ name: 'check', doc: '/** The check. */', schema, path: 'value' }]);
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const exports: Record<string, unknown> = {};
  // This realm's, so the check sees the test's objects' Object.prototype as its own.
  (runInThisContext(`(function (exports) {\n${js}\n})`) as (exports: Record<string, unknown>) => void)(exports);
  return exports.check as (value: unknown) => boolean;
}

const mutation = jsonChange([-1, 0, 1, 9, 10, 1.5, -0.5, 2 ** 60, '', 'a', 'b', 'c', 'w', '/a/', null, true, false, 3, [], {}]);

describe('the generated quick check, on what it mirrors', () => {
  const schema = z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal(['a', 'b']),
      n: z.number().int().positive().lt(10),
      f: z.number().gt(-1).max(1),
      flag: z.literal(true),
      nothing: z.null(),
      level: z.literal(3).optional(),
      tags: z.array(z.enum(['x', 'y', 'z', 'w'])).optional(),
      path: z.string().regex(/^\/[a-z]+\/?$/),
    }),
    z.strictObject({
      kind: z.literal('c'),
      nested: z.record(z.string(), z.array(z.string().nullable())),
      choice: z.enum(['p', 'q']).nullable(),
      any: z.unknown(),
      maybe: z.unknown().optional(),
    }),
  ]);
  const check = generatedCheck(schema);

  it('vouches for every value the schema accepts (a record with an own __proto__ key aside)', () => {
    fc.assert(
      fc.property(arbitraryOf(schema), (value) => {
        expect(schema.safeParse(value).success, JSON.stringify(value)).toBe(true);
        if (!holdsProtoKey(value)) expect(check(value), JSON.stringify(value)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('vouches for a changed value only when the schema accepts it, and parses it to the same value', () => {
    fc.assert(
      fc.property(arbitraryOf(schema), fc.array(mutation, { minLength: 1, maxLength: 3 }), (value, mutations) => {
        let near = value;
        for (const m of mutations) {
          near = changed(near, m);
          if (!check(near)) continue;
          const parsed = schema.safeParse(near);
          expect(parsed.success, JSON.stringify(near)).toBe(true);
          expect(parsed.data).toEqual(near);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('at the edges: exclusive bounds, values outside a set, a record with an own __proto__ key', () => {
    const a = { kind: 'a', n: 1, f: 1, flag: true, nothing: null, path: '/a/' };
    expect(check(a)).toBe(true);
    for (const edit of [{ n: 0 }, { n: 10 }, { n: 1.5 }, { f: -1 }, { f: 1.01 }, { flag: false }, { level: 4 }, { tags: ['v'] }, { path: 'a' }, { kind: 'd' }]) {
      expect(check({ ...a, ...edit }), JSON.stringify(edit)).toBe(false);
      expect(schema.safeParse({ ...a, ...edit }).success, JSON.stringify(edit)).toBe(false);
    }
    const c = JSON.parse('{"kind":"c","nested":{"__proto__":[]},"choice":null,"any":1}') as unknown;
    expect(schema.safeParse(c).success).toBe(true);
    expect(check(c)).toBe(false);
    expect(check({ kind: 'c', nested: {}, choice: null })).toBe(false);
  });
});

describe('the generated quick check leaves to the schema what it does not mirror', () => {
  const unmirrored: [string, z.ZodType, unknown][] = [
    ['a refinement', z.string().refine((s) => s !== 'no'), 'x'],
    ['a refined object', z.strictObject({ a: z.string() }).refine((o) => o.a !== 'no'), { a: 'x' }],
    ['a refined nullable', z.string().nullable().refine((s) => s !== 'no'), 'x'],
    ['a refined optional', z.string().optional().refine((s) => s !== 'no'), 'x'],
    ['a transform', z.string().transform((s) => s.length), 'x'],
    ['a catch', z.string().catch('c'), 'x'],
    ['a plain union', z.union([z.string(), z.number()]), 'x'],
    ['coercion', z.coerce.number(), 1],
    ['a record with a key pattern', z.record(z.string().regex(/^a/), z.string()), { a: 'x' }],
    ['an object that strips unknown keys', z.object({ a: z.string() }), { a: 'x' }],
    ['an object that keeps unknown keys', z.looseObject({ a: z.string() }), { a: 'x' }],
    ['a string length', z.string().min(1), 'x'],
    ['a string format', z.email(), 'a@b.co'],
    ['a multiple', z.number().multipleOf(2), 2],
    ['an array length', z.array(z.string()).min(1), ['x']],
    ['a global pattern', z.string().regex(/x/g), 'x'],
    ['a lazy schema', z.lazy(() => z.string()), 'x'],
  ];

  for (const [what, field, value] of unmirrored) {
    it(`${what}: never vouched for, required or optional`, () => {
      const required = z.strictObject({ f: field });
      expect(required.safeParse({ f: value }).success).toBe(true);
      expect(generatedCheck(required)({ f: value })).toBe(false);
      const optional = z.strictObject({ g: z.string(), f: field.optional() });
      const check = generatedCheck(optional);
      expect(check({ g: 'x' })).toBe(true);
      expect(optional.safeParse({ g: 'x', f: value }).success).toBe(true);
      expect(check({ g: 'x', f: value })).toBe(false);
    });
  }

  it('a default: the schema fills in an absent key, so neither a value nor its absence is vouched for', () => {
    for (const field of [z.string().default('d'), z.string().default('d').optional()]) {
      const schema = z.strictObject({ g: z.string(), f: field });
      expect(schema.parse({ g: 'x' })).toEqual({ g: 'x', f: 'd' });
      const check = generatedCheck(schema);
      expect(check({ g: 'x' })).toBe(false);
      expect(check({ g: 'x', f: 'x' })).toBe(false);
    }
  });
});
