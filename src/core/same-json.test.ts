import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../guardrails/canonical-json.js';
import { sameJson } from './same-json.js';

describe('sameJson', () => {
  it('property: agrees with comparing canonical JSON text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(sameJson(a, b)).toBe(canonicalJson(a) === canonicalJson(b));
        expect(sameJson(a, structuredClone(a))).toBe(true);
      }),
    );
  });

  it('leaves out ignored top-level keys only', () => {
    const ignore = new Set(['t', 'seq']);
    expect(sameJson({ type: 'x', t: 1, seq: 2, v: { t: 1 } }, { type: 'x', t: 9, seq: 3, v: { t: 1 } }, ignore)).toBe(true);
    expect(sameJson({ type: 'x', v: { t: 1 } }, { type: 'x', v: { t: 2 } }, ignore)).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 }, ignore)).toBe(false);
    expect(sameJson([1, 2], { 0: 1, 1: 2 })).toBe(false);
  });
});
