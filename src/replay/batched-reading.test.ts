/**
 * Replay reads its tape a batch at a time (tape-file `batches()`, the store's `readEventBatches`,
 * `StepCursor` over batches). On random tapes that must change nothing: a tape file's batches hold
 * its events in order, a cursor over any split into batches gives the steps a cursor over single
 * events gives, and a replay fed batches yields the same events and verdict as one fed events one by
 * one — also for tapes that fail their checks part-way.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { openTapeFile, writeTapeFile } from '../tape/tape-file.js';
import { tapeArbitrary } from '../tape/test-support/arbitraries.js';
import { replayRun, type ReplayOptions } from './replay-run.js';
import { StepCursor } from './step-cursor.js';
import type { TapeSource } from './tape-source.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-batched-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

/** `events` cut into batches at the given sizes (the rest in one last batch). */
function split(events: readonly RunEvent[], sizes: readonly number[]): RunEvent[][] {
  const out: RunEvent[][] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= events.length) break;
    out.push(events.slice(at, at + size));
    at += size;
  }
  if (at < events.length) out.push(events.slice(at));
  return out;
}

/** Every step's group, in order, then what the end looks like; an error as its message. */
async function walk(cursor: StepCursor, steps: readonly number[]): Promise<unknown[]> {
  const seen: unknown[] = [];
  try {
    for (const step of steps) {
      seen.push((await cursor.load(step)).events.map((e) => e.seq));
      seen.push(cursor.next()?.seq ?? null, cursor.endsBy(step));
    }
  } catch (error) {
    seen.push((error as Error).message);
  }
  return seen;
}

/** A replay's events (timing left out) and result, or the error it stopped with. */
async function replayOf(source: TapeSource, options: Partial<ReplayOptions> = {}): Promise<unknown> {
  const events: unknown[] = [];
  try {
    const run = replayRun({ ...options, source, tools: 'tape' });
    for (let next = await run.next(); ; next = await run.next()) {
      if (next.done) return { events, result: { ...next.value, totals: null } };
      const { t: _t, ...rest } = next.value as RunEvent & { durationMs?: number };
      delete rest.durationMs;
      events.push(rest);
    }
  } catch (error) {
    return { events, error: (error as Error).message };
  }
}

describe('reading a tape in batches', () => {
  it('a step cursor over any split into batches reads the steps a cursor over single events reads', async () => {
    await fc.assert(
      fc.asyncProperty(tapeArbitrary, fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 10 }), async ({ events }, sizes) => {
        const steps = [...new Set(events.map((e) => e.step)), 60];
        const single = await walk(new StepCursor(each(events)), steps);
        const batched = await walk(new StepCursor({ batches: each(split(events, sizes)) }), steps);
        expect(batched).toEqual(single);
      }),
      { numRuns: 300 },
    );
  });

  it('a tape file gives the same events, and a replay the same events and verdict, in batches as one by one', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(tapeArbitrary, async ({ meta, events }) => {
        const path = join(dir, `t${n++}.tape.jsonl`);
        await writeTapeFile(path, meta, each(events));
        const tape = await openTapeFile(path);
        const flat: RunEvent[] = [];
        for await (const batch of tape.batches()) flat.push(...batch);
        const single: RunEvent[] = [];
        for await (const event of tape.events()) single.push(event);
        expect(flat).toEqual(single);

        const oneByOne: TapeSource = { meta: tape.meta, label: path, events: () => tape.events() };
        const batched: TapeSource = { ...oneByOne, batches: () => tape.batches() };
        const replayed = await replayOf(oneByOne);
        expect(await replayOf(batched)).toEqual(replayed);
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe('a replay lets go of its tape when it ends', () => {
  it('closes its reading of the tape at the end, before the end (--strict), and when it fails', async () => {
    const path = join(dir, 'closing.tape.jsonl');
    const sample = fc.sample(tapeArbitrary.filter(({ events: list }) => list.length > 6), { numRuns: 1, seed: 7 })[0];
    if (sample === undefined) throw new Error('no sample tape');
    const { meta, events } = sample;
    await writeTapeFile(path, meta, each(events));
    const tape = await openTapeFile(path);
    let open = 0;
    /** The file's batches, counted open until their reader is closed (as a tape file's descriptor is). */
    async function* counted(): AsyncGenerator<readonly RunEvent[]> {
      open++;
      try {
        yield* tape.batches();
      } finally {
        open--;
      }
    }
    const source: TapeSource = { meta: tape.meta, label: path, events: () => tape.events(), batches: counted };
    for (const options of [{}, { strict: true, patches: new Map([[0, { role: 'assistant' as const, content: 'another answer' }]]) }]) {
      await replayOf({ ...source }, options);
      expect(open, JSON.stringify(options)).toBe(0);
    }
    // A source that fails part-way.
    async function* failing(): AsyncGenerator<readonly RunEvent[]> {
      open++;
      try {
        yield events.slice(0, 1);
        throw new Error('the disk went away');
      } finally {
        open--;
      }
    }
    expect(await replayOf({ ...source, batches: failing })).toHaveProperty('error');
    expect(open).toBe(0);
  });
});
