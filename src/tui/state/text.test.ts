import { describe, expect, it } from 'vitest';
import { clipLine, wrap, wrapHanging } from './text.js';

describe('text in the UI', () => {
  it('shows control characters as escapes, as the line output does; line breaks and tabs are laid out', () => {
    expect(clipLine('title\u001b]0;pwned\u0007 clear\u001b[2J c1\u009b31m', 80)).toBe('title\\u001b]0;pwned\\u0007 clear\\u001b[2J c1\\u009b31m');
    expect(wrap('one\r\ntwo\rthree\tfour', 80)).toEqual(['one', 'two', 'three  four']);
  });
});

describe('a hanging indent', () => {
  it('indents every line after the first, and leaves a line that fits alone', () => {
    expect(wrapHanging('· continue  repetition/repeated_tool_step read_file', 43, 4)).toEqual(['· continue  repetition/repeated_tool_step', '    read_file']);
    expect(wrapHanging('tool (c1): {\n  "port": 8080\n}', 40, 2)).toEqual(['tool (c1): {', '    "port": 8080', '  }']);
    expect(wrapHanging('short', 40, 4)).toEqual(['short']);
  });

  it('is plain wrapping where there is no room for it', () => {
    expect(wrapHanging('one two three four', 9, 4)).toEqual(wrap('one two three four', 9));
  });
});
