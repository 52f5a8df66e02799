/**
 * Reads a tape one step at a time, forward only: `load(step)` makes that step's recorded events the
 * cursor's and forgets every earlier step, so a replay holds one step of the tape in memory however
 * long the tape is. Steps on a tape never decrease (the loop labels every event of an iteration with
 * its step), which is what makes a single forward pass enough.
 *
 * A loaded step is whole, and the event after it is known (or that the tape ends there): everything
 * a replay asks of the tape about that step — its events, what comes next, whether the tape ends —
 * is then answered at once. Only `load` ever waits, and only when the batch in hand does not reach
 * past the step.
 */
import type { RunEvent } from '../core/events.js';
import { TapeFormatError } from '../core/errors.js';

export interface StepGroup {
  step: number;
  events: RunEvent[];
}

export class StepCursor {
  private readonly iterator: AsyncIterator<readonly RunEvent[]>;
  /** The rest of the batch being read, and where in it. */
  private batch: readonly RunEvent[] = [];
  private inBatch = 0;
  /** The loaded step. */
  private current: StepGroup | null = null;
  /** The step being gathered, when its events run past the batch in hand. */
  private gathering: StepGroup | null = null;
  /** The next unread event, already taken from its batch; null when none is (or the tape ended). */
  private lookahead: RunEvent | null = null;
  private done = false;
  private lastStep = -1;
  /** The read of the next batch, while one is under way. */
  private reading: Promise<void> | null = null;

  /**
   * `source`: the tape's events, one by one or (`{ batches }`) a batch at a time, which costs one
   * async step per batch instead of one per event. `read` may change each event as it is read
   * (replay gives the recorded config today's defaults).
   */
  constructor(
    source: AsyncIterable<RunEvent> | { batches: AsyncIterable<readonly RunEvent[]> },
    private readonly read: (event: RunEvent) => RunEvent = (event) => event,
  ) {
    const batches = Symbol.asyncIterator in source ? oneByOne(source) : source.batches;
    this.iterator = batches[Symbol.asyncIterator]();
  }

  /**
   * Load `step`: its recorded events (an empty group when the tape has none: it skipped the step or
   * ended earlier), at once when the batch in hand reaches past them, else once they are read.
   */
  load(step: number): StepGroup | Promise<StepGroup> {
    return this.advance(step) ?? this.readBatch().then(() => this.load(step));
  }

  /** The events of `step`, which must be the loaded one. */
  group(step: number): StepGroup {
    const current = this.current;
    if (current === null || current.step !== step) {
      throw new Error(`step ${step} was asked for while step ${current?.step ?? 'none'} is loaded: replay loads each step before using it`);
    }
    return current;
  }

  /** The tape's first event after the loaded step; undefined at the end of the tape. */
  next(): RunEvent | undefined {
    return this.lookahead ?? undefined;
  }

  /** True when the tape has no events after step `step` (at or after the loaded one). */
  endsBy(step: number): boolean {
    return this.lookahead === null || this.lookahead.step <= step;
  }

  /**
   * Read the rest of the source without keeping it: a source that checks what it reads (a tape
   * file) has then checked all of it, and throws for a bad line the replay did not need.
   */
  async drain(): Promise<void> {
    if (this.reading !== null) await this.reading;
    while (!this.done) {
      const read = await this.iterator.next();
      if (read.done) this.done = true;
    }
  }

  /** Stop reading: the source is told so (a tape file closes), whether or not it was read to its end. */
  async close(): Promise<void> {
    this.done = true;
    await this.iterator.return?.();
  }

  /**
   * Move on to `step` with the events in hand; undefined, keeping what it gathered, when the batch
   * runs out first (load reads the next one and asks again).
   */
  private advance(step: number): StepGroup | undefined {
    const current = this.current;
    if (current !== null && current.step === step) return current;
    if (current !== null && current.step > step) {
      throw new Error(`step ${step} was asked for after step ${current.step}: replay reads the tape forward only`);
    }
    for (;;) {
      const next = this.buffered();
      if (next === null && !this.done) return undefined;
      const gathering = this.gathering;
      if (gathering !== null) {
        if (next !== null && next.step === gathering.step) {
          gathering.events.push(next);
          this.lookahead = null;
          continue;
        }
        // The step ends here: the event after it (or the end of the tape) is known.
        this.gathering = null;
        if (gathering.step === step) return (this.current = gathering);
        continue;
      }
      if (next === null || next.step > step) return (this.current = { step, events: [] });
      // Events of the step asked for are gathered; those of earlier steps nobody asked for, passed over.
      this.lookahead = null;
      this.gathering = { step: next.step, events: [next] };
    }
  }

  /** The next batch, read once however many loads wait for it. */
  private readBatch(): Promise<void> {
    this.reading ??= this.iterator.next().then((read) => {
      this.reading = null;
      if (read.done) this.done = true;
      else [this.batch, this.inBatch] = [read.value, 0];
    });
    return this.reading;
  }

  /** The lookahead, else the next event of the batch in hand (becoming the lookahead); null when neither. */
  private buffered(): RunEvent | null {
    if (this.lookahead !== null || this.inBatch >= this.batch.length) return this.lookahead;
    const next = this.batch[this.inBatch++] as RunEvent;
    if (next.step < this.lastStep) {
      throw new TapeFormatError(`event ${next.seq} goes back from step ${this.lastStep} to ${next.step}`);
    }
    this.lastStep = next.step;
    this.lookahead = this.read(next);
    return this.lookahead;
  }
}

/** Events one by one, as batches of one. */
export async function* oneByOne(events: AsyncIterable<RunEvent>): AsyncGenerator<readonly RunEvent[]> {
  for await (const event of events) yield [event];
}
