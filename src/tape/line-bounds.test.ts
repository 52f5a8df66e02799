import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { eventLines, lineProblem } from './line-bounds.js';
import { TAPE_LIMITS, type TapeLimits } from './tape-limits.js';

const limits: TapeLimits = { ...TAPE_LIMITS, maxLineBytes: 100, maxDepth: 4, maxEvents: 5 };
const warning = (seq: number, message = `event ${seq}`): RunEvent => ({ type: 'warning', seq, step: 0, t: seq, message });
const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);

describe('lineProblem: the bounds a tape reader holds a line to', () => {
  it('counts bytes of UTF-8, not characters', () => {
    expect(lineProblem('"' + 'a'.repeat(98) + '"', limits)).toBeUndefined();
    expect(lineProblem('"' + 'a'.repeat(99) + '"', limits)).toBe('is 101 bytes as a tape line, more than a tape line may be (100)');
    // 34 characters, 98 bytes (a euro sign is three bytes in UTF-8); then 35 characters, 101 bytes.
    expect(lineProblem('"' + '€'.repeat(32) + '"', limits)).toBeUndefined();
    expect(lineProblem('"' + '€'.repeat(33) + '"', limits)).toBe('is 101 bytes as a tape line, more than a tape line may be (100)');
  });

  it('bounds nesting as the reader does', () => {
    expect(lineProblem(JSON.stringify(nested(4)), limits)).toBeUndefined();
    expect(lineProblem(JSON.stringify(nested(5)), limits)).toBe('nests more than 4 levels deep, more than a tape line may');
    // Brackets inside strings are text, not nesting.
    expect(lineProblem(JSON.stringify({ a: '[[[[[[[[' }), limits)).toBeUndefined();
  });
});

describe('eventLines', () => {
  it('gives each event\'s JSON, stopping before the first a tape could not hold', () => {
    const events = [warning(0), warning(1), warning(2, 'x'.repeat(200)), warning(3)];
    const { lines, refused } = eventLines(events, limits);
    expect(lines).toEqual([JSON.stringify(events[0]), JSON.stringify(events[1])]);
    expect(refused).toEqual({ event: events[2], problem: expect.stringMatching(/^is \d+ bytes as a tape line/) });
    expect(eventLines(events.slice(0, 2), limits)).toEqual({ lines });
  });

  it('refuses an event past the most a tape may hold', () => {
    expect(eventLines([warning(4), warning(5)], limits).refused).toEqual({ event: warning(5), problem: 'is past the most events a tape may hold (5)' });
  });
});
