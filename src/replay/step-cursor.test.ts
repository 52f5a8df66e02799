import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { StepCursor } from './step-cursor.js';

const at = (seq: number, step: number): RunEvent => ({ type: 'warning', seq, step, t: 0, message: `${seq}` });
async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
const seqs = (events: readonly RunEvent[]): number[] => events.map((e) => e.seq);

describe('StepCursor', () => {
  it('loads one step at a time, reading forward only, with what follows it known', async () => {
    const cursor = new StepCursor(each([at(0, 0), at(1, 0), at(2, 1), at(3, 3), at(4, 3)]));
    expect(seqs((await cursor.load(0)).events)).toEqual([0, 1]);
    expect(seqs(cursor.group(0).events)).toEqual([0, 1]);
    expect(cursor.next()?.seq).toBe(2);
    expect(seqs((await cursor.load(1)).events)).toEqual([2]);
    expect((await cursor.load(2)).events).toEqual([]);
    expect(cursor.endsBy(2)).toBe(false);
    expect(cursor.next()?.seq).toBe(3);
    expect(seqs((await cursor.load(3)).events)).toEqual([3, 4]);
    expect(cursor.endsBy(3)).toBe(true);
    expect(cursor.next()).toBeUndefined();
    expect((await cursor.load(9)).events).toEqual([]);
    expect(() => cursor.load(1)).toThrow(/forward only/);
    expect(() => cursor.group(3)).toThrow(/step 9 is loaded/);
  });

  it('skips steps nobody asks for and refuses a tape whose steps go back', async () => {
    const skipping = new StepCursor(each([at(0, 0), at(1, 1), at(2, 2)]));
    expect(seqs((await skipping.load(2)).events)).toEqual([2]);
    const backwards = new StepCursor(each([at(0, 1), at(1, 0)]));
    await expect(backwards.load(1)).rejects.toMatchObject({ exitCode: 9 });
  });

  it('loads a step at once when the batch in hand reaches past it, and reads only when it does not', async () => {
    const cursor = new StepCursor({ batches: each([[at(0, 0), at(1, 0), at(2, 1)], [at(3, 1), at(4, 2)]]) });
    // Nothing read yet: a promise; a second load meanwhile waits for the same read.
    const zero = cursor.load(0);
    expect(zero).toBeInstanceOf(Promise);
    const again = cursor.load(0);
    expect(seqs((await zero).events)).toEqual([0, 1]);
    expect(await again).toBe(await zero);
    // Step 1 runs past the first batch: read on.
    const one = cursor.load(1);
    expect(one).toBeInstanceOf(Promise);
    expect(seqs((await one).events)).toEqual([2, 3]);
    // Step 2 is the last event of the last batch: whether the tape goes on is known only from the source.
    const two = cursor.load(2);
    expect(two).toBeInstanceOf(Promise);
    expect(seqs((await two).events)).toEqual([4]);
    expect(cursor.endsBy(2)).toBe(true);
    // Past the end: at once.
    expect(cursor.load(3)).toEqual({ step: 3, events: [] });
  });
});
