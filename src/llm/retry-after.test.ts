import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const headers = (h: Record<string, string>) => (name: string) => h[name];

describe('parseRetryAfter', () => {
  it('reads delta-seconds, including fractions', () => {
    expect(parseRetryAfter(headers({ 'retry-after': '3' }), NOW)).toBe(3000);
    expect(parseRetryAfter(headers({ 'retry-after': ' 0.5 ' }), NOW)).toBe(500);
    expect(parseRetryAfter(headers({ 'retry-after': '0' }), NOW)).toBe(0);
  });

  it('reads an HTTP date relative to the given wall-clock time; a past date means now', () => {
    expect(parseRetryAfter(headers({ 'retry-after': 'Sun, 01 Jun 2025 12:00:30 GMT' }), NOW)).toBe(30_000);
    expect(parseRetryAfter(headers({ 'retry-after': 'Sun, 01 Jun 2025 11:00:00 GMT' }), NOW)).toBe(0);
  });

  it('prefers retry-after-ms', () => {
    expect(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '9' }), NOW)).toBe(250);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(headers({}), NOW)).toBeUndefined();
    expect(parseRetryAfter(headers({ 'retry-after': '-5' }), NOW)).toBeUndefined();
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }), NOW)).toBeUndefined();
    expect(parseRetryAfter(headers({ 'retry-after-ms': 'abc', 'retry-after': '2' }), NOW)).toBe(2000);
    expect(parseRetryAfter(headers({ 'retry-after-ms': '' }), NOW)).toBeUndefined();
  });
});
