import type { RunEvent } from '../core/events.js';

/** Writes one batch; `waited` tells whether anyone waits for it (an append with `sync` or `soon`). */
type WriteBatch = (events: RunEvent[], sync: boolean, waited: boolean) => Promise<void>;

export interface EventWriterOptions {
  /**
   * What `close` waits for once every batch is written, for a `write` that resolves before its
   * batch is all the way in the store (TapeStore's journaled writer: see journal.ts).
   */
  settle?: () => Promise<void>;
  /**
   * Gather appends for this many ms before writing a batch, instead of a turn of the event loop: for
   * a writer nobody waits for (the LevelDB writes behind a journal), fewer and larger batches cost
   * the main thread and the disk less. `soon` appends and `close` end the wait at once.
   */
  gatherMs?: number;
}

/**
 * Appends one run's events in order. Appends made in the same turn of the event loop, and those made
 * while a write is in flight, are grouped into one batch (group commit), so a fast producer costs one
 * LevelDB write per batch, not per event; a synced append starts its batch at once. Batches are
 * written one after another: when one is written, so is everything appended before it. Each `append`
 * returns a promise that settles when that event is in the store; `{ sync: true }` makes the batch
 * carrying it an fsync'd write (used for LLM responses, which must be durable before the loop acts).
 * What "in the store" means is the `write` function's: TapeStore's journaled writer resolves once
 * the batch is in the run's journal, and its `settle` (awaited by `close`) once LevelDB has it too.
 * The first write error is kept and re-thrown by every later call: nothing is silently dropped.
 */
export class EventWriter {
  private queue: { event: RunEvent; sync: boolean; soon: boolean; done: Deferred }[] = [];
  private flushing: Promise<void> | undefined;
  private failure: unknown;
  private nextSeq: number;
  /** Ends the wait for the next turn of the event loop early (set while the first batch waits for it). */
  private hurry: (() => void) | undefined;

  constructor(
    private readonly write: WriteBatch,
    firstSeq = 0,
    private readonly options: EventWriterOptions = {},
  ) {
    this.nextSeq = firstSeq;
  }

  /** Number of events appended so far (the next expected seq). */
  get count(): number {
    return this.nextSeq;
  }

  /** Events appended but not yet written. */
  get pending(): number {
    return this.queue.length;
  }

  /** The write error that failed this writer, if one did (every later append is refused with it). */
  get error(): unknown {
    return this.failure;
  }

  /**
   * `sync`: the batch carrying this event is a synced write. `soon`: the caller waits for this
   * event, so its batch starts at once (after the appends of the same tick), as a synced one does,
   * instead of a turn of the event loop later.
   */
  append(event: RunEvent, options: { sync?: boolean; soon?: boolean } = {}): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure as Error);
    if (event.seq !== this.nextSeq) {
      return Promise.reject(new Error(`event seq ${event.seq} appended out of order (expected ${this.nextSeq})`));
    }
    this.nextSeq++;
    const done = deferred();
    const sync = options.sync ?? false;
    const soon = sync || (options.soon ?? false);
    this.queue.push({ event, sync, soon, done });
    if (soon) this.hurry?.();
    this.flushing ??= this.drain();
    return done.promise;
  }

  /** Wait until everything appended so far is written. */
  async close(): Promise<void> {
    this.hurry?.();
    while (this.flushing !== undefined) await this.flushing;
    if (this.failure !== undefined) throw this.failure as Error;
    await this.options.settle?.();
  }

  private async drain(): Promise<void> {
    // Let what is appended in the same turn of the event loop join the first batch (a synced or
    // awaited append does not wait for that: only for the synchronous appends of the same tick).
    if (this.queue.some((item) => item.soon)) await Promise.resolve();
    else {
      const gatherMs = this.options.gatherMs;
      await new Promise<void>((resolve) => {
        if (gatherMs === undefined) {
          const turn = setImmediate(resolve);
          this.hurry = () => {
            clearImmediate(turn);
            resolve();
          };
        } else {
          const timer = setTimeout(resolve, gatherMs);
          this.hurry = () => {
            clearTimeout(timer);
            resolve();
          };
        }
      });
      this.hurry = undefined;
    }
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const sync = batch.some((item) => item.sync);
      try {
        await this.write(
          batch.map((item) => item.event),
          sync,
          batch.some((item) => item.soon),
        );
        for (const item of batch) item.done.resolve();
      } catch (error) {
        this.failure ??= error;
        for (const item of [...batch, ...this.queue]) item.done.reject(error);
        this.queue = [];
      }
    }
    this.flushing = undefined;
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A caller that does not await an append learns of failures from close(); avoid unhandled rejections.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
