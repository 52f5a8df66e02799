/** Time as the loop sees it. Injected so runs and replays are deterministic. */
export interface Clock {
  /** Milliseconds; only differences between readings are meaningful. */
  now(): number;
  /** Resolve after `ms`, or reject with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Call `fire` once this clock has moved `ms` past its current reading; returns a function that
   * cancels it. Unlike `sleep`, a timer never moves the clock: a manual or replay clock fires it when
   * something else moves the clock that far. The run's time limit is enforced with it (an abort at
   * the deadline); a clock without it gets the limit checked between steps and before retry waits only.
   */
  timer?(ms: number, fire: () => void): () => void;
}

/** A seeded source of numbers in [0, 1). */
export interface Random {
  next(): number;
}

/** The wall clock, for live runs. */
export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  timer: (ms, fire) => {
    // Node may run a timeout a little before performance.now() says it is due: fire only once it
    // is, so whoever reads the clock after the timer fired sees at least `ms` gone by.
    const due = performance.now() + Math.max(0, ms);
    let handle: ReturnType<typeof setTimeout>;
    const arm = (): void => {
      const left = due - performance.now();
      if (left <= 0) fire();
      else handle = setTimeout(arm, Math.min(Math.ceil(left), MAX_TIMEOUT_MS));
    };
    handle = setTimeout(arm, Math.min(Math.ceil(Math.max(0, ms)), MAX_TIMEOUT_MS));
    return () => clearTimeout(handle);
  },
};

/** setTimeout's largest delay; a larger one would fire at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * Timers on a clock that moves in jumps (manual, replay): each fires, in order of its due time,
 * when the clock is moved to or past it. Shared by ManualClock and the replay clock.
 */
export class ClockTimers {
  private readonly pending: Array<{ at: number; seq: number; fire: () => void }> = [];
  private seq = 0;

  /** Register `fire` for time `at`; returns the cancel function. */
  add(at: number, fire: () => void): () => void {
    const entry = { at, seq: this.seq++, fire };
    this.pending.push(entry);
    this.pending.sort((a, b) => a.at - b.at || a.seq - b.seq);
    return () => {
      const index = this.pending.indexOf(entry);
      if (index >= 0) this.pending.splice(index, 1);
    };
  }

  /** The due time of the earliest timer at or before `t`, if any. */
  nextDue(t: number): number | undefined {
    const first = this.pending[0];
    return first !== undefined && first.at <= t ? first.at : undefined;
  }

  /** Fire the earliest timer (call after `nextDue` said one is due). */
  fireNext(): void {
    this.pending.shift()?.fire();
  }
}

/** A clock that only moves when asked to: sleeping advances it instantly. For replays and tests. */
export class ManualClock implements Clock {
  private current: number;
  private readonly timers = new ClockTimers();
  constructor(start = 0) {
    this.current = start;
  }
  now(): number {
    return this.current;
  }
  /** Move forward by `ms`, firing the timers that fall due on the way (each at its own time). */
  advance(ms: number): void {
    if (ms < 0) this.current += ms;
    else this.moveTo(this.current + ms);
  }
  /**
   * Move forward by `ms` at once. A timer due on the way fires at its time; if that aborts `signal`,
   * the sleep ends there, rejected with the signal's reason (as a real sleep would have been cut).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    this.moveTo(this.current + ms, signal);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return Promise.resolve();
  }
  timer(ms: number, fire: () => void): () => void {
    return this.timers.add(this.current + Math.max(0, ms), fire);
  }
  private moveTo(target: number, signal?: AbortSignal): void {
    for (let due = this.timers.nextDue(target); due !== undefined; due = this.timers.nextDue(target)) {
      if (due > this.current) this.current = due;
      this.timers.fireNext();
      if (signal?.aborted) return;
    }
    if (target > this.current) this.current = target;
  }
}

/** mulberry32: small, fast, and the same sequence on every platform for a given seed. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return {
    next(): number {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}
