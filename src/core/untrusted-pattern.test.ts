/**
 * How untrusted patterns compile and match. That they match in linear time is shown end to end
 * (test/untrusted-patterns.test.ts), in child processes with a bound: run here, a backtracking
 * engine would block this test's process for good instead of failing it.
 */
import { describe, expect, it } from 'vitest';
import { createRedactor } from './redact.js';
import { compileUntrustedPattern, untrustedPatternError } from './untrusted-pattern.js';

describe('compileUntrustedPattern', () => {
  it('tests anywhere in the text, anchors only where the pattern says', () => {
    const pattern = compileUntrustedPattern('^(\\w+\\s?)*$');
    expect(pattern.test('just words here')).toBe(true);
    expect(pattern.test('words, and a comma')).toBe(false);
    expect(compileUntrustedPattern('b+').test('abbbc')).toBe(true);
  });

  it('gives the UTF-16 spans of every non-empty match, left to right', () => {
    const pattern = compileUntrustedPattern('sk-[a-z]+|x*');
    expect(pattern.spans('😀 sk-abc é sk-def')).toEqual([[3, 9], [12, 18]]);
    expect(compileUntrustedPattern('ab', { ignoreCase: true }).spans('xAB aB')).toEqual([[1, 3], [4, 6]]);
    expect(compileUntrustedPattern('(?i)ab').spans('xAB')).toEqual([[1, 3]]);
  });

  it('refuses what RE2 does not have (lookaround, backreferences) and bad syntax, with RE2\'s reason', () => {
    expect(untrustedPatternError('a(?=b)')).toMatch(/^invalid or unsupported Perl syntax/);
    expect(untrustedPatternError('(a)\\1')).toMatch(/^invalid escape sequence/);
    expect(untrustedPatternError('(')).toMatch(/^missing closing \)/);
    expect(untrustedPatternError('(?i)token-\\d+')).toBeUndefined();
    expect(() => compileUntrustedPattern('(')).toThrow(SyntaxError);
  });
});

describe('the redactor with user patterns', () => {
  it('redacts what they match', () => {
    const redact = createRedactor({ patterns: ['^(\\w+\\s?)*$', 'code-\\d+'] });
    expect(redact.text('only words here')).toBe('[REDACTED]');
    expect(redact({ a: ['the code-123 is set.', 'words, then a comma'] })).toEqual({ a: ['the [REDACTED] is set.', 'words, then a comma'] });
  });

  it('names a bad pattern', () => {
    expect(() => createRedactor({ patterns: ['(?<=x)y'] })).toThrow(/^bad redact pattern '\(\?<=x\)y': /);
  });
});
