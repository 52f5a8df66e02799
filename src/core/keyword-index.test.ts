/** The keyword index against the obvious search: every keyword found, in any case, overlapping or not, and the long base64 runs. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeywordIndex } from './keyword-index.js';

function scan(index: KeywordIndex, text: string): { found: number[]; runs: number[] } {
  const seen = new Uint8Array(index.size);
  const found = new Int32Array(index.size);
  const runs: number[] = [];
  const count = index.scan(text, seen, found, runs);
  return { found: [...found.subarray(0, count)].sort((a, b) => a - b), runs };
}

describe('KeywordIndex', () => {
  it('finds every keyword a text holds, in any case, each once, overlapping ones and ones inside others too', () => {
    const keywords = ['sk-', 'sk-ant-', 'ant', 'ey', 'key', 'xoxb-', 'a', '://', 'q~'];
    const index = new KeywordIndex(keywords);
    expect(scan(index, 'My KEY is SK-ANT-abc, see https://x and 1Q~z').found).toEqual([0, 1, 2, 3, 4, 6, 7, 8]);
    expect(scan(index, 'nothing here').found).toEqual([]);
    const piece = fc.oneof(fc.constantFrom(...keywords, ...keywords.map((k) => k.toUpperCase())), fc.string({ maxLength: 4 }));
    fc.assert(fc.property(fc.array(piece, { maxLength: 10 }).map((p) => p.join('')), (text) => {
      const expected = keywords.flatMap((k, i) => (text.toLowerCase().includes(k) ? [i] : []));
      expect(scan(index, text).found).toEqual(expected);
    }), { numRuns: 1000 });
  });

  it('notes where each run of base64 characters at least as long as asked starts', () => {
    const index = new KeywordIndex(['zz'], 5);
    expect(scan(index, 'ab+/9 abcd 12345678 x-abcde/f').runs).toEqual([0, 11, 22]);
    expect(scan(new KeywordIndex(['zz']), 'abcdefghij').runs).toEqual([]);
  });

  it('refuses a keyword that is not printable ASCII', () => {
    expect(() => new KeywordIndex(['ok', 'é'])).toThrow(/printable ASCII/);
    expect(() => new KeywordIndex([''])).toThrow(/printable ASCII/);
  });
});
