/** What the EventRedactor tests share: a redactor, chunk events, and every way to cut a text. */
import fc from 'fast-check';
import type { LlmChunkEvent } from '../events.js';
import { createRedactor } from '../redact.js';

export const redact = createRedactor({ secrets: ['hunter2-is-my-password'] });

export function chunkEvents(pieces: readonly string[], finished = true): LlmChunkEvent[] {
  return pieces.map((content, index) => ({
    seq: index, step: 0, t: 0, type: 'llm_chunk', iteration: 0, attempt: 0,
    chunk: { index, offsetMs: index, content, finished: finished && index === pieces.length - 1 },
  }));
}

/** Every way to cut `text` into up to 6 pieces. */
export const cuts = (text: string): fc.Arbitrary<string[]> =>
  fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), { maxLength: 5 }).map((points) => {
    const sorted = [...points].sort((a, b) => a - b);
    const out: string[] = [];
    let at = 0;
    for (const p of sorted) {
      out.push(text.slice(at, p));
      at = p;
    }
    out.push(text.slice(at));
    return out;
  });
