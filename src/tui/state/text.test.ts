import { describe, expect, it } from 'vitest';
import { clipLine, wrap } from './text.js';

describe('text in the UI', () => {
  it('shows control characters as escapes, as the line output does; line breaks and tabs are laid out', () => {
    expect(clipLine('title\u001b]0;pwned\u0007 clear\u001b[2J c1\u009b31m', 80)).toBe('title\\u001b]0;pwned\\u0007 clear\\u001b[2J c1\\u009b31m');
    expect(wrap('one\r\ntwo\rthree\tfour', 80)).toEqual(['one', 'two', 'three  four']);
  });
});
