/**
 * The clock of a replay. While the replay follows its tape, time *is* the tape's: before the loop
 * goes on, the clock is set to the recorded time of the event it is about to produce, and sleeps
 * (retry back-off) and recorded durations add nothing — so elapsed-time checks (`timeoutMs`) see
 * what the recording saw, and replayed events carry the recorded `t`. Once the replay leaves the
 * tape (a divergence, the tape's end), time moves by sleeps and recorded durations instead.
 */
import type { Clock } from '../core/clock.js';

export class ReplayClock implements Clock {
  private current = 0;
  /** True while the next event the loop produces has a recorded counterpart. */
  following = false;

  now(): number {
    return this.current;
  }

  /** Move to a recorded time (never backwards). */
  follow(t: number): void {
    if (t > this.current) this.current = t;
  }

  /** A recorded duration (model call, tool): counts only when there is no recorded time to follow. */
  advance(ms: number): void {
    if (!this.following && ms > 0) this.current += ms;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    this.advance(ms);
    return Promise.resolve();
  }
}
