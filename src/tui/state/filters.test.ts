import { describe, expect, it } from 'vitest';
import type { DetailLine } from './detail-lines.js';
import { matchingLine, matchRanges, searchPattern } from './filters.js';

const lines = (...texts: string[]): DetailLine[] => texts.map((text) => ({ text, tone: 'normal' }));
const pattern = (query: string): RegExp => searchPattern(query) as RegExp;

describe('search in the detail lines', () => {
  it('finds the first line that shows the match, whatever its case', () => {
    expect(matchingLine(lines('Step 3', 'Call read_file', '  ✗ block  loop_guard/identical_call_block', '    identical call 3 of 3: blocked'), pattern('BLOCKED'))).toBe(3);
    expect(matchingLine(lines('a', 'b'), pattern('c'))).toBe(-1);
  });

  it('finds a match that a wrap split between two lines, on the first of them', () => {
    expect(matchingLine(lines('x', '    arguments or use a different', '    tool.'), pattern('different tool'))).toBe(1);
  });

  it('gives every match in a line, for the highlight; regular-expression characters are plain text', () => {
    expect(matchRanges('Blocked: blocked, BLOCKED', pattern('blocked'))).toEqual([[0, 7], [9, 16], [18, 25]]);
    expect(matchRanges('a.b axb', pattern('a.b'))).toEqual([[0, 3]]);
    expect(matchRanges('nothing', pattern('x'))).toEqual([]);
  });
});
