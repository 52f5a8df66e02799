import { describe, expect, it } from 'vitest';
import { ManualClock, type Clock } from '../core/clock.js';
import { RunDeadline, TimeLimitExceeded, outOfTimeReason } from './deadline.js';

function deadline(clock: ManualClock, limitMs: number, cancel?: AbortSignal): RunDeadline {
  const start = clock.now();
  return new RunDeadline(clock, limitMs, () => clock.now() - start, cancel);
}

describe('RunDeadline', () => {
  it('aborts its signal when the clock reaches the limit, and counts down until then', () => {
    const clock = new ManualClock(500);
    const d = deadline(clock, 1000);
    clock.advance(400);
    expect(d.remaining()).toBe(600);
    expect(d.interruption()).toBeNull();
    clock.advance(600);
    expect(d.signal.reason).toBeInstanceOf(TimeLimitExceeded);
    expect(d.interruption()).toBe('TIMED_OUT');
    expect(d.remaining()).toBe(0);
  });

  it('whichever comes first names the stop: a cancel before the deadline is a cancel', () => {
    const clock = new ManualClock();
    const cancel = new AbortController();
    const d = deadline(clock, 1000, cancel.signal);
    cancel.abort(new Error('ctrl-c'));
    clock.advance(5000);
    expect(d.interruption()).toBe('CANCELLED');
    expect((d.signal.reason as Error).message).toBe('ctrl-c');
  });

  it('reads the clock: past the limit is out of time even before (or without) a timer firing', () => {
    let now = 0;
    const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };
    const d = new RunDeadline(clock, 1000, () => now);
    now = 1000;
    expect(d.signal.aborted).toBe(false);
    expect(d.expired()).toBe(true);
    expect(d.interruption()).toBe('TIMED_OUT');
  });

  it('without a limit, never; dispose stops the timer', () => {
    const clock = new ManualClock();
    const none = deadline(clock, 0);
    const disposed = deadline(clock, 10);
    disposed.dispose();
    clock.advance(1e9);
    expect(none.remaining()).toBe(Infinity);
    expect(none.interruption()).toBeNull();
    expect(disposed.signal.aborted).toBe(false);
  });

  it('says why a retry was not waited for, from recorded values only', () => {
    expect(outOfTimeReason(3000, { kind: 'recoverable', message: 'x', retryAfterMs: 86_400_000 }, 120_000))
      .toBe('run time would exceed the limit of 3000 ms: the model server asked to wait 86400000 ms before a retry (Retry-After)');
    expect(outOfTimeReason(3000, { kind: 'recoverable', message: 'x' }, 800)).toBe("run time would exceed the limit of 3000 ms: the retry's back-off of 800 ms would outlast it");
  });
});
