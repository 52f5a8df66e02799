import { describe, expect, it } from 'vitest';
import { SseReader, sseEvents } from './sse.js';

/** Events with every kind of line ending, a comment, a named event and one with no closing blank line. */
const TEXT = 'data: one\n\n: keep-alive\r\n\r\nevent: two\r\ndata: {"a":1}\r\n\r\ndata: three\r\rdata: x\ndata: y\n\ndata: last';

describe('SseReader', () => {
  it('finds the same events however the text is split, an event end split across pieces included', () => {
    const whole = sseEvents(TEXT);
    expect(whole.map((e) => e.data)).toEqual(['one', '', '{"a":1}', 'three', 'x\ny', 'last']);
    for (let first = 0; first <= TEXT.length; first++) {
      for (const size of [1, 2, 3, 5]) {
        const reader = new SseReader();
        const events = reader.push(TEXT.slice(0, first));
        for (let at = first; at < TEXT.length; at += size) events.push(...reader.push(TEXT.slice(at, at + size)));
        const rest = reader.rest();
        if (rest !== undefined) events.push(rest);
        expect(events, `split at ${first}, then every ${size}`).toEqual(whole);
      }
    }
  });

  it('says how much of an unfinished event it holds', () => {
    const reader = new SseReader();
    expect(reader.push('data: done\n\ndata: part')).toHaveLength(1);
    expect(reader.pending).toBe('data: part'.length);
    reader.push('ial');
    expect(reader.pending).toBe('data: partial'.length);
    expect(reader.push('\n\n').map((e) => e.data)).toEqual(['partial']);
    expect(reader.pending).toBe(0);
  });
});
