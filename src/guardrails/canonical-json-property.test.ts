/**
 * canonicalJson is built by concatenation for speed, and hands data already in canonical order to
 * JSON.stringify; on random JSON values (and values with undefined members), in any key order or
 * already in order, it writes exactly what the plain array-of-parts definition gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { builtWithoutRecursion, canonicalJson } from './canonical-json.js';

/** The plain definition: the parts collected in an array and joined. */
function reference(value: unknown, out: string[] = []): string {
  if (value === null || typeof value !== 'object') out.push(JSON.stringify(value) ?? 'null');
  else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item, i) => {
      if (i > 0) out.push(',');
      reference(item === undefined ? null : item, out);
    });
    out.push(']');
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort();
    out.push('{');
    keys.forEach((key, i) => {
      if (i > 0) out.push(',');
      out.push(JSON.stringify(key), ':');
      reference(record[key], out);
    });
    out.push('}');
  }
  return out.join('');
}

describe('canonicalJson', () => {
  it('writes what the plain definition writes', () => {
    const value = fc.jsonValue({ maxDepth: 4 }).chain((v) => fc.oneof(fc.constant(v), fc.constant({ a: v, b: undefined, c: [undefined, v] })));
    fc.assert(fc.property(value, (v) => {
      expect(canonicalJson(v)).toBe(reference(v));
    }), { numRuns: 2000 });
  });

  it('orders keys by UTF-16 code unit, whatever their number and text (insertion sort up to 32 keys, the default sort above)', () => {
    const record = fc.dictionary(fc.string({ unit: 'binary', maxLength: 4 }), fc.integer(), { maxKeys: 48 });
    fc.assert(fc.property(record, (v) => {
      expect(canonicalJson(v)).toBe(reference(v));
    }), { numRuns: 1000 });
  });

  it('takes values already in canonical order (as a tape is read) through JSON.stringify with the same text', () => {
    // Parsed from its own canonical text, a value has every object's keys in order (integer-like
    // keys aside, which JavaScript lists first): what the JSON.stringify path takes.
    const inOrder = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.parse(reference(v)) as unknown);
    const withGaps = inOrder.map((v) => ({ a: v, b: undefined, c: [undefined, v], d: { e: v } }));
    fc.assert(fc.property(fc.oneof(inOrder, withGaps), (v) => {
      expect(canonicalJson(v)).toBe(reference(v));
    }), { numRuns: 2000 });
  });

  it('writes what JSON.stringify would write otherwise as the plain definition does', () => {
    class Tagged extends Array<number> {
      toJSON(): string {
        return 'tagged';
      }
    }
    const ownToJson = Object.assign([1, 2], { toJSON: () => 'own' });
    const values: unknown[] = [
      { a: new Date(0) },
      { a: Object.assign(Object.create(null) as object, { b: 1 }) },
      [new String('ab'), new Number(3), new Boolean(false)],
      { a: 1, toJSON: () => 'replaced' },
      { a: { toJSON: 'not a function' } },
      ownToJson,
      Tagged.from([1, 2]),
      { 9: 'nine', 10: 'ten' },
      { a: () => 1, b: Symbol('s'), c: [() => 1, Symbol('t')] },
      { a: new Map([[1, 2]]), b: new Set([1]) },
    ];
    for (const value of values) {
      expect(canonicalJson(value)).toBe(reference(value));
      expect(builtWithoutRecursion(value)).toBe(reference(value));
    }
  });

  it('writes the same text without recursion (its way with values nested deeper than the stack)', () => {
    const withGaps = (v: unknown) => ({ a: v, b: undefined, c: [undefined, v], d: { e: v } });
    const value = fc.jsonValue({ maxDepth: 6 }).chain((v) => fc.oneof(fc.constant(v), fc.constant(withGaps(v))));
    fc.assert(fc.property(value, (v) => {
      expect(builtWithoutRecursion(v)).toBe(reference(v));
    }), { numRuns: 2000 });
  });
});
