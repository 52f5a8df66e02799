import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capOutput, OutputCollector } from './output-cap.js';

describe('capOutput', () => {
  it('leaves short text alone', () => {
    expect(capOutput('hello', 100)).toBe('hello');
    expect(capOutput('x'.repeat(100), 100)).toBe('x'.repeat(100));
  });

  it('keeps head and tail around a marker that says how much was dropped', () => {
    const text = `${'a'.repeat(100)}${'b'.repeat(100)}${'c'.repeat(100)}`;
    expect(capOutput(text, 100)).toBe(`${'a'.repeat(50)}\n[output truncated: 200 bytes omitted]\n${'c'.repeat(50)}`);
  });

  it('never splits a multi-byte character', () => {
    const text = '€'.repeat(100); // 3 bytes each
    const capped = capOutput(text, 100);
    expect(capped).not.toContain('\uFFFD');
    expect(capped).toMatch(/^€+\n\[output truncated: \d+ bytes omitted\]\n€+$/);
  });
});

describe('OutputCollector', () => {
  it('keeps everything under the cap', () => {
    const collector = new OutputCollector(100);
    collector.push(Buffer.from('hello '));
    collector.push(Buffer.from('world'));
    expect(collector.text()).toBe('hello world');
    expect(collector.totalBytes).toBe(11);
  });

  it('property: agrees with capOutput on any text pushed in any chunking', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 8, max: 200 }),
        (text, sizes, cap) => {
          const bytes = Buffer.from(text, 'utf8');
          const collector = new OutputCollector(cap);
          let at = 0;
          for (let i = 0; at < bytes.length; i++) {
            const size = sizes[i % sizes.length] ?? 1;
            collector.push(bytes.subarray(at, at + size));
            at += size;
          }
          const collected = collector.text();
          expect(collected).toBe(capOutput(text, cap));
          // A cut never leaves half a character (which decodes as U+FFFD). One the text itself
          // holds may be cut away with the rest, so only a text without one is held to an output without one.
          if (!text.includes('\uFFFD')) expect(collected).not.toContain('\uFFFD');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: text right at the cap, in one-byte chunks, is kept whole', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }), fc.integer({ min: -2, max: 2 }), (text, delta) => {
        const bytes = Buffer.from(text, 'utf8');
        const cap = Math.max(2, bytes.length + delta);
        const collector = new OutputCollector(cap);
        for (const byte of bytes) collector.push(Buffer.from([byte]));
        expect(collector.text()).toBe(capOutput(text, cap));
        if (bytes.length <= cap) expect(collector.text()).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
