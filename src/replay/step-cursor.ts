/**
 * Reads a tape one step at a time, forward only: `group(step)` returns that step's recorded events
 * and forgets every earlier step, so a replay holds one step of the tape in memory however long
 * the tape is. Steps on a tape never decrease (the loop labels every event of an iteration with
 * its step), which is what makes a single forward pass enough.
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
  private current: StepGroup | null = null;
  private lookahead: RunEvent | null = null;
  /** A group read ahead because the tape skipped the step that was asked for. */
  private pending: StepGroup | null = null;
  private done = false;
  private lastStep = -1;

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

  /** The recorded events of `step`, or an empty group when the tape has none (it ended earlier). */
  async group(step: number): Promise<StepGroup> {
    if (this.current !== null && this.current.step === step) return this.current;
    if (this.current !== null && this.current.step > step) {
      throw new Error(`step ${step} was asked for after step ${this.current.step}: replay reads the tape forward only`);
    }
    for (;;) {
      const next = await this.readGroup();
      if (next === null) {
        this.current = { step, events: [] };
        return this.current;
      }
      if (next.step === step) {
        this.current = next;
        return next;
      }
      if (next.step > step) {
        // The tape skipped this step: keep the later group for when it is asked for.
        this.pending = next;
        this.current = { step, events: [] };
        return this.current;
      }
    }
  }

  /**
   * `group(step)` when no reading is needed for it: the step's group is the one in hand, or the next
   * one lies whole in the batch in hand, followed there by an event of a later step. Undefined, having
   * changed nothing, when the tape must be read (then `group`); a replay following its tape mostly
   * needs no reading.
   */
  groupInHand(step: number): StepGroup | undefined {
    if (this.current !== null && this.current.step === step) return this.current;
    if (this.pending !== null || (this.current !== null && this.current.step > step)) return undefined;
    const first = this.lookahead ?? this.batch[this.inBatch];
    if (first === undefined || first.step !== step) return undefined;
    let end = this.lookahead === null ? this.inBatch + 1 : this.inBatch;
    while (end < this.batch.length && (this.batch[end] as RunEvent).step === step) end++;
    // The group must end in the batch, at a later step: a tape that goes back is left to `group`,
    // which refuses it where a replay reading it would.
    if (end >= this.batch.length || (this.batch[end] as RunEvent).step < step) return undefined;
    // As readGroup takes it, from the batch: the group's events, then the next one as the lookahead.
    const group: StepGroup = { step, events: [] };
    for (let next = this.buffered(); next !== null && next.step === step; next = this.buffered()) {
      group.events.push(next);
      this.lookahead = null;
    }
    this.current = group;
    return group;
  }

  /** `peekBeyond()` when no reading is needed for it, as `{ next }`; undefined when the tape must be read. */
  peekBeyondInHand(): { next: RunEvent | undefined } | undefined {
    if (this.pending !== null) return { next: this.pending.events[0] };
    const next = this.buffered();
    if (next !== null) return { next };
    return this.done ? { next: undefined } : undefined;
  }

  /** Stop reading: the source is told so (a tape file closes), whether or not it was read to its end. */
  async close(): Promise<void> {
    this.done = true;
    await this.iterator.return?.();
  }

  /** The first event after the groups read so far, without moving on; undefined at the end. */
  async peekBeyond(): Promise<RunEvent | undefined> {
    if (this.pending !== null) return this.pending.events[0];
    return (await this.fill()) ?? undefined;
  }

  /** True when the tape has no events after step `step`. */
  async endsBy(step: number): Promise<boolean> {
    if (this.pending !== null) return this.pending.step <= step;
    const next = await this.fill();
    return next === null || next.step <= step;
  }

  private async readGroup(): Promise<StepGroup | null> {
    if (this.pending !== null) {
      const group = this.pending;
      this.pending = null;
      return group;
    }
    const first = await this.fill();
    if (first === null) return null;
    const group: StepGroup = { step: first.step, events: [first] };
    this.lookahead = null;
    for (;;) {
      const next = this.buffered() ?? (await this.fill());
      if (next === null || next.step !== group.step) return group;
      group.events.push(next);
      this.lookahead = null;
    }
  }

  /** The next unread event (kept as the lookahead), or null at the end of the tape. */
  private async fill(): Promise<RunEvent | null> {
    for (;;) {
      const next = this.buffered();
      if (next !== null || this.done) return next;
      const read = await this.iterator.next();
      if (read.done) this.done = true;
      else [this.batch, this.inBatch] = [read.value, 0];
    }
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
