import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { StepCursor } from './step-cursor.js';

const at = (seq: number, step: number): RunEvent => ({ type: 'warning', seq, step, t: 0, message: `${seq}` });
async function* each(events: RunEvent[]): AsyncGenerator<RunEvent> {
  yield* events;
}
const seqs = (events: readonly RunEvent[]): number[] => events.map((e) => e.seq);

describe('StepCursor', () => {
  it('groups events by step, reading forward only', async () => {
    const cursor = new StepCursor(each([at(0, 0), at(1, 0), at(2, 1), at(3, 3), at(4, 3)]));
    expect(seqs((await cursor.group(0)).events)).toEqual([0, 1]);
    expect(seqs((await cursor.group(0)).events)).toEqual([0, 1]);
    expect(seqs((await cursor.group(1)).events)).toEqual([2]);
    expect((await cursor.group(2)).events).toEqual([]);
    expect(await cursor.endsBy(2)).toBe(false);
    expect(seqs((await cursor.group(3)).events)).toEqual([3, 4]);
    expect(await cursor.endsBy(3)).toBe(true);
    expect((await cursor.group(9)).events).toEqual([]);
    await expect(cursor.group(1)).rejects.toThrow(/forward only/);
  });

  it('skips steps nobody asks for and refuses a tape whose steps go back', async () => {
    const skipping = new StepCursor(each([at(0, 0), at(1, 1), at(2, 2)]));
    expect(seqs((await skipping.group(2)).events)).toEqual([2]);
    const backwards = new StepCursor(each([at(0, 1), at(1, 0)]));
    await expect(backwards.group(1)).rejects.toMatchObject({ exitCode: 9 });
  });
});
