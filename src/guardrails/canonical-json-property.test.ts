/**
 * canonicalJson is built by concatenation for speed; on random JSON values (and values with
 * undefined members) it writes exactly what the plain array-of-parts definition gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

/** The plain definition (the array-of-parts version canonicalJson had before). */
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
});
