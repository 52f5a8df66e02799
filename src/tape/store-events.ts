/**
 * How a store keeps a run's events, and reads them back: under `runId!seq` in the `events` sublevel,
 * seq zero-padded so that keys sort in seq order, each value one event as JSON.
 */
import type { AbstractSublevel } from 'abstract-level';
import type { Level } from 'level';
import { TapeFormatError } from '../core/errors.js';
import type { RunEvent } from '../core/events.js';
import { storeFailure, type StorePlace } from './store-failure.js';
import { count } from '../core/plural.js';

export type EventsSublevel = AbstractSublevel<Level<string, unknown>, string | Buffer | Uint8Array, string, unknown>;

const SEQ_WIDTH = 10;
/** How many bytes of events one read may hold: a batch of a few hundred bytes an event, and then some. */
const BATCH_BYTES = 1 << 20;

/** `runId!seq` with seq zero-padded, so lexicographic order is numeric order. */
export const eventKey = (runId: string, seq: number): string => `${runId}!${String(seq).padStart(SEQ_WIDTH, '0')}`;

/** Every key of a run's events. */
export const runRange = (runId: string): { gte: string; lte: string } => ({
  gte: `${runId}!`,
  lte: `${runId}!${'9'.repeat(SEQ_WIDTH)}`,
});

/**
 * A run's events in order, `size` at a time; the next batch is read from the database while the
 * caller works on this one. A value that is not an event is bad data in the store at `place` (exit 9),
 * and a failed read is the agentctl error it is (store-failure.ts). `expected` is the number of events
 * a finished run's metadata says it has: fewer or more in the store is a damaged store (exit 9) — a
 * damaged key, which no checksum covers, moves events out of their run's range, and a run must never be
 * shown, exported or replayed as if what is left were all of it.
 */
export async function* readStoredBatches(
  events: EventsSublevel,
  runId: string,
  size: number,
  place: StorePlace,
  expected?: number,
): AsyncGenerator<RunEvent[]> {
  // Values only: the keys (run and seq) are not needed to read a run, and not fetching them saves
  // making a string and an entry for each event. LevelDB's reads stop at highWaterMarkBytes, 16 KiB
  // unless told: some 60 events a read, each a trip to libuv's pool, where a batch wants `size`.
  const options = { ...runRange(runId), highWaterMarkBytes: BATCH_BYTES }; // classic-level's own option
  const iterator = events.values(options);
  let next = iterator.nextv(size);
  let read = 0;
  try {
    for (;;) {
      let values: unknown[];
      try {
        values = await next;
      } catch (error) {
        throw storeFailure(place, error, 'read');
      }
      if (values.length === 0) {
        if (expected !== undefined && read !== expected) {
          throw new TapeFormatError(`run ${runId} has ${count(read, 'event')} in the store where its metadata says ${expected}: the store is damaged`, { file: place.dir });
        }
        return;
      }
      next = iterator.nextv(size);
      for (const value of values) checkStored(runId, read++, value, place.dir);
      yield values as RunEvent[];
    }
  } finally {
    // A read still under way (the caller stopped early, or an event was bad) ends before the iterator closes.
    await next.catch(() => undefined);
    await iterator.close();
  }
}

/** How many events a run has (counts keys, does not decode values). */
export async function countStoredEvents(events: EventsSublevel, runId: string): Promise<number> {
  let n = 0;
  for await (const _key of events.keys(runRange(runId))) n++;
  return n;
}

/** A stored value must at least look like an event (the `index`th of run `runId`, from 0). */
function checkStored(runId: string, index: number, value: unknown, dir: string): void {
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
    throw new TapeFormatError(`event ${index} of run ${runId} is not a run event`, { file: dir });
  }
}
