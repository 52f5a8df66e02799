import { describe, expect, it } from 'vitest';
import { callText } from './call-text.js';

describe('a tool call in a few words', () => {
  it('names the call with its most telling argument, bare: the command, the pattern, the path', () => {
    expect(callText('read_file', '{"path":"config/server.json"}')).toBe('read_file config/server.json');
    expect(callText('exec_shell', '{"command":"npm test"}')).toBe('exec_shell npm test');
    expect(callText('grep_files', '{"path":"src","pattern":"TODO|FIXME"}')).toBe('grep_files TODO|FIXME path=src');
    expect(callText('list_dir', '{}')).toBe('list_dir');
  });

  it('shows the other arguments as key=value, quoting text with spaces, on one line', () => {
    expect(callText('read_file', '{"path":"a.ts","offset":10,"limit":20}')).toBe('read_file a.ts offset=10 limit=20');
    expect(callText('edit_file', JSON.stringify({ path: 'src/calc.js', old: 'return a -\n  b;', new: '' }))).toBe('edit_file src/calc.js old="return a - b;" new=""');
    expect(callText('custom', '{"ids":[1,2],"deep":{"x":true}}')).toBe('custom ids=[1,2] deep={"x":true}');
  });

  it('shows arguments that are not a JSON object as they are, and cuts a long value', () => {
    expect(callText('read_file', '{"path": "a.ts"')).toBe('read_file {"path": "a.ts"');
    expect(callText('tool', '[1, 2]')).toBe('tool [1, 2]');
    const long = callText('write_file', JSON.stringify({ path: 'x', content: 'y'.repeat(500) }));
    expect(long).toBe(`write_file x content=${'y'.repeat(79)}…`);
  });

  it('shows the control characters of a tape as escapes, never raw', () => {
    const text = callText('read_\u009bfile', JSON.stringify({ path: 'a\u001b]0;pwned\u0007.txt', note: 'x\u009b31m' }));
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(text).toBe('read_\\u009bfile a\\u001b]0;pwned\\u0007.txt note=x\\u009b31m');
  });
});
