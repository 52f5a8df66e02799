import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

/** `[[[…{inner}…]]]`, `depth` arrays deep, under a key: the JSON.parse of such text nests as deep. */
const nested = (depth: number, inner: string): string => `{"z":1,"a":${'['.repeat(depth)}${inner}${']'.repeat(depth)}}`;

describe('canonicalJson (docs/guardrails.md §1)', () => {
  it('sorts object keys, so key order does not matter', () => {
    expect(canonicalJson({ b: 2, a: 1 })).toBe('{"a":1,"b":2}');
    expect(canonicalJson({ b: 2, a: 1 })).toBe(canonicalJson({ a: 1, b: 2 }));
  });

  it('keeps array order', () => {
    expect(canonicalJson([1, 2])).toBe('[1,2]');
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('sorts nested objects, including objects inside arrays', () => {
    expect(canonicalJson({ z: { y: 1, x: [{ d: 4, c: 3 }] }, a: null })).toBe('{"a":null,"z":{"x":[{"c":3,"d":4}],"y":1}}');
  });

  it('writes no whitespace and strings/numbers as JSON.stringify does', () => {
    expect(canonicalJson({ s: 'a "q"\n\u2028é', n: 1.5e-7, i: -0, big: 1e21 })).toBe(
      `{"big":${JSON.stringify(1e21)},"i":0,"n":${JSON.stringify(1.5e-7)},"s":${JSON.stringify('a "q"\n\u2028é')}}`,
    );
  });

  it('sorts keys by UTF-16 code unit, not by locale', () => {
    // 'B' (0x42) < 'a' (0x61) < 'é' (0xe9); a locale sort would put 'a' first.
    expect(canonicalJson({ a: 1, é: 2, B: 3 })).toBe('{"B":3,"a":1,"é":2}');
  });

  it('drops undefined members and writes undefined array items as null, as JSON would', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson([undefined, 1])).toBe('[null,1]');
  });

  it('renders scalars', () => {
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson('x')).toBe('"x"');
    expect(canonicalJson(3)).toBe('3');
  });

  it('writes values nested deeper than the call stack goes (arguments a model wrote 100,000 levels deep) as it writes any other', () => {
    const deep = JSON.parse(nested(100_000, '{"b":1,"a":2}')) as unknown;
    expect(canonicalJson(deep)).toBe(`{"a":${'['.repeat(100_000)}{"a":2,"b":1}${']'.repeat(100_000)},"z":1}`);
  });

  it('refuses a value that contains itself with a TypeError: it has no JSON', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = [cyclic];
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });
});
