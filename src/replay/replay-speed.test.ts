import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { replayRun } from './replay-run.js';
import { openTapeSource } from './tape-source.js';

const TAPE = fileURLToPath(new URL('../../tapes/stream-cut.tape.jsonl', import.meta.url));
const noStore = (): never => {
  throw new Error('a file');
};

async function replayWithSpeed(speed: number): Promise<number[]> {
  const waits: number[] = [];
  const replay = replayRun({ source: await openTapeSource(TAPE, noStore), speed, sleep: async (ms) => void waits.push(ms) });
  for await (const _event of replay) void _event;
  return waits;
}

describe('replay --speed', () => {
  it('waits the recorded gaps between chunks divided by the speed', async () => {
    const source = await openTapeSource(TAPE, noStore);
    const chunks: RunEvent[] = [];
    for await (const event of source.events()) if (event.type === 'llm_chunk') chunks.push(event);
    // The recorded gap before each chunk, from the start of its attempt's stream.
    const gaps: number[] = [];
    let previous: { iteration: number; attempt: number; offset: number } | null = null;
    for (const event of chunks) {
      if (event.type !== 'llm_chunk') continue;
      const same = previous !== null && previous.iteration === event.iteration && previous.attempt === event.attempt;
      gaps.push(event.chunk.offsetMs - (same ? (previous?.offset ?? 0) : 0));
      previous = { iteration: event.iteration, attempt: event.attempt, offset: event.chunk.offsetMs };
    }
    expect(gaps.some((g) => g > 0)).toBe(true);
    const twice = await replayWithSpeed(2);
    expect(twice).toHaveLength(gaps.length);
    twice.forEach((ms, i) => expect(ms).toBeCloseTo((gaps[i] ?? 0) / 2, 6));
    const half = await replayWithSpeed(0.5);
    half.forEach((ms, i) => expect(ms).toBeCloseTo((gaps[i] ?? 0) * 2, 6));
  });
});
