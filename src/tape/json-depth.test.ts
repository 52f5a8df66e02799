import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './json-depth.js';

describe('nestsDeeperThan', () => {
  it('counts objects and arrays', () => {
    expect(nestsDeeperThan(JSON.stringify({ a: [[[[1]]]] }), 4)).toBe(true);
    expect(nestsDeeperThan(JSON.stringify({ a: [[[1]]] }), 4)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify([{}, {}, [{}]]), 2)).toBe(true);
    expect(nestsDeeperThan('[1,2,3]', 1)).toBe(false);
  });

  it('counts brackets outside strings only, escaped quotes included', () => {
    expect(nestsDeeperThan(JSON.stringify({ a: '[[[[[[[[[[', b: 'say "[[[[[[[[[[" \\ {{{{{{' }), 1)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ a: 'ends in a backslash \\', b: [[[1]]] }), 3)).toBe(true);
  });

  it('is fast on long strings and on deep text', () => {
    const long = JSON.stringify({ text: 'x'.repeat(20_000_000) });
    const started = performance.now();
    expect(nestsDeeperThan(long, 64)).toBe(false);
    expect(nestsDeeperThan('['.repeat(10_000_000), 64)).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('gives up quietly on text that is not JSON (JSON.parse reports it)', () => {
    expect(nestsDeeperThan('{"open', 64)).toBe(false);
  });
});
