/**
 * A text's readings: JSON escapes decoded level after level, terminal colour codes dropped, each
 * character knowing where it was written — checked against JSON.parse and against the text itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { originalSpan, readings } from './text-readings.js';

/** The last reading's text, or the text itself. */
const read = (text: string): string => readings(text).at(-1)?.text ?? text;

describe('readings', () => {
  it('are none for a text with nothing to read: no backslash, no escape character', () => {
    expect(readings('plain text, "quoted" / slashed')).toEqual([]);
  });

  it('decode a JSON string\'s text as JSON.parse does, at every level of JSON text inside JSON text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (value) => {
      const once = JSON.stringify(value).slice(1, -1);
      const twice = JSON.stringify(once).slice(1, -1);
      // A value that holds a backslash reads on: its own escapes are read too (a level deeper).
      if (!value.includes('\\')) {
        expect(read(once)).toBe(value.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, ''));
        expect(read(twice)).toBe(value.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, ''));
      }
    }), { numRuns: 500 });
  });

  it('read the escapes JSON may write but JSON.stringify does not: \\/ and \\u for any character', () => {
    expect(read('https:\\/\\/hooks.example\\/x \\u0041\\u00e9 \\ud83d\\ude00')).toBe('https://hooks.example/x Aé \u{1f600}');
  });

  it('leave a backslash that starts no escape as it is, and read on after it', () => {
    expect(read('C:\\Users\\new \\q \\u12 end\\')).toBe('C:\\Users\new \\q \\u12 end\\');
  });

  it('drop terminal control sequences, written as they are or as JSON escapes', () => {
    expect(read('\x1b[32msk-green\x1b[0m and \x1b[1;31mred\x1b[m')).toBe('sk-green and red');
    expect(read('{"out":"\\u001b[32mok\\u001b[0m"}')).toBe('{"out":"ok"}');
  });

  it('map each character of a reading to the part of the original it was written as', () => {
    fc.assert(fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom('\x1b[32m', '\n', '"', '\\', '/', 'é')), { maxLength: 8 }), (parts) => {
      const value = parts.join('');
      const text = JSON.stringify(JSON.stringify(value));
      const views = readings(text);
      const last = views.at(-1);
      if (last === undefined) return;
      for (let i = 0; i < last.text.length; i++) {
        const [start, end] = originalSpan(last, i, i + 1);
        // What the original has there reads, on its own, as that one character.
        const piece = text.slice(start, end);
        expect(read(piece), `${i} in ${JSON.stringify(text)}`).toBe(last.text[i]);
        if (i > 0) expect(start).toBeGreaterThanOrEqual(originalSpan(last, i - 1, i)[1]);
      }
    }), { numRuns: 300 });
  });
});
