import { describe, expect, it } from 'vitest';
import { printable, printableJson, printableLine } from './terminal-text.js';

const SEQUENCES = 'a\u001b]0;title\u0007b\u001b[2Jc\u009b31md\u007fe\u0000';

describe('terminal text', () => {
  it('printableLine shows every control character as its escape, line breaks and tabs too', () => {
    expect(printableLine(SEQUENCES)).toBe('a\\u001b]0;title\\u0007b\\u001b[2Jc\\u009b31md\\u007fe\\u0000');
    expect(printableLine('one\ntwo\r\tthree')).toBe('one\\u000atwo\\u000d\\u0009three');
  });

  it('printable keeps newlines and tabs, and escapes the rest', () => {
    expect(printable('one\n\ttwo\r\u001b[Kthree\u009b')).toBe('one\n\ttwo\\u000d\\u001b[Kthree\\u009b');
  });

  it('leaves text without controls as it is, and does not escape an escape again', () => {
    const text = 'plain — “quoted” ✓ 日本 \\u001b';
    expect(printableLine(text)).toBe(text);
    expect(printableLine(printableLine(SEQUENCES))).toBe(printableLine(SEQUENCES));
  });

  it('printableJson holds no control raw and parses back to the same value', () => {
    const value = { text: SEQUENCES, separators: 'x\u2028y\u2029z', 'key\u0085': 1 };
    const json = printableJson(value);
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(json).toContain('c\\u009b31m');
    expect(JSON.parse(json)).toEqual(value);
  });
});
