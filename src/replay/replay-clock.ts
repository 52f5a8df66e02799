/**
 * The clock of a replay. While the replay follows its tape, time *is* the tape's: before the loop
 * goes on, the clock is set to the recorded time of the event it is about to produce, and sleeps
 * (retry back-off) and recorded durations add nothing — so elapsed-time checks (`timeoutMs`) see
 * what the recording saw, and replayed events carry the recorded `t`. Once the replay leaves the
 * tape (a divergence, the tape's end), time moves by sleeps and recorded durations instead.
 *
 * Timers (the run's deadline) fire when the clock is moved to or past their time, never by waiting:
 * a recording that was stopped at its time limit is stopped again when the replay reaches the
 * recorded time of that stop, at once.
 */
import { ClockTimers, type Clock } from '../core/clock.js';

export class ReplayClock implements Clock {
  private current = 0;
  private readonly timers = new ClockTimers();
  private isFollowing = false;
  /** Recorded times that `at` callers wait for. */
  private readonly awaited: number[] = [];

  /** True while the next event the loop produces has a recorded counterpart. */
  get following(): boolean {
    return this.isFollowing;
  }

  /** Leaving the tape moves the clock to every recorded time still awaited (see `at`). */
  set following(value: boolean) {
    this.isFollowing = value;
    if (!value && this.awaited.length > 0) this.moveTo(Math.max(...this.awaited.splice(0)));
  }

  /**
   * Resolves once the clock reaches recorded time `t`: when the replay follows its tape there, or
   * at once when it does not follow the tape (then the clock moves to `t`). A call the recording was
   * stopped in waits here for the recorded time of the stop, without waiting in real time.
   */
  at(t: number): Promise<void> {
    if (this.current >= t || !this.isFollowing) {
      this.moveTo(t);
      return Promise.resolve();
    }
    this.awaited.push(t);
    return new Promise((resolve) => {
      this.timers.add(t, () => {
        const index = this.awaited.indexOf(t);
        if (index >= 0) this.awaited.splice(index, 1);
        resolve();
      });
    });
  }

  now(): number {
    return this.current;
  }

  /** Move to a recorded time (never backwards), firing the timers due by then. */
  follow(t: number): void {
    this.moveTo(t);
  }

  /** A recorded duration (model call, tool): counts only when there is no recorded time to follow. */
  advance(ms: number): void {
    if (!this.following && ms > 0) this.moveTo(this.current + ms);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    this.advance(ms);
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return Promise.resolve();
  }

  timer(ms: number, fire: () => void): () => void {
    return this.timers.add(this.current + Math.max(0, ms), fire);
  }

  private moveTo(target: number): void {
    for (let due = this.timers.nextDue(target); due !== undefined; due = this.timers.nextDue(target)) {
      if (due > this.current) this.current = due;
      this.timers.fireNext();
    }
    if (target > this.current) this.current = target;
  }
}
