import type { RunEvent } from '../core/events.js';

type WriteBatch = (events: RunEvent[], sync: boolean) => Promise<void>;

/**
 * Appends one run's events in order. Appends made in the same turn of the event loop, and those made
 * while a write is in flight, are grouped into one batch (group commit), so a fast producer costs one
 * LevelDB write per batch, not per event; a synced append starts its batch at once. Batches are
 * written one after another: when one is written, so is everything appended before it. Each `append`
 * returns a promise that settles when that event is in the store; `{ sync: true }` makes the batch
 * carrying it an fsync'd write (used for LLM responses, which must be durable before the loop acts).
 * The first write error is kept and re-thrown by every later call: nothing is silently dropped.
 */
export class EventWriter {
  private queue: { event: RunEvent; sync: boolean; done: Deferred }[] = [];
  private flushing: Promise<void> | undefined;
  private failure: unknown;
  private nextSeq: number;

  constructor(
    private readonly write: WriteBatch,
    firstSeq = 0,
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

  append(event: RunEvent, options: { sync?: boolean } = {}): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure as Error);
    if (event.seq !== this.nextSeq) {
      return Promise.reject(new Error(`event seq ${event.seq} appended out of order (expected ${this.nextSeq})`));
    }
    this.nextSeq++;
    const done = deferred();
    this.queue.push({ event, sync: options.sync ?? false, done });
    this.flushing ??= this.drain();
    return done.promise;
  }

  /** Wait until everything appended so far is written. */
  async close(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
    if (this.failure !== undefined) throw this.failure as Error;
  }

  private async drain(): Promise<void> {
    // Let what is appended in the same turn of the event loop join the first batch (a synced
    // append does not wait for that: only for the synchronous appends of the same tick).
    if (this.queue.some((item) => item.sync)) await Promise.resolve();
    else await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const sync = batch.some((item) => item.sync);
      try {
        await this.write(
          batch.map((item) => item.event),
          sync,
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
