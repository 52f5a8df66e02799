import { describe, expect, it } from 'vitest';
import { ReplayClock } from './replay-clock.js';

describe('ReplayClock', () => {
  it('fires timers when it follows the tape to or past them, at once', () => {
    const clock = new ReplayClock();
    const fired: number[] = [];
    clock.timer(1000, () => fired.push(clock.now()));
    clock.following = true;
    clock.follow(999.99);
    expect(fired).toEqual([]);
    clock.follow(1000.42);
    expect(fired).toEqual([1000]);
    expect(clock.now()).toBe(1000.42);
  });

  it('while following, sleeps and durations do not move it (a cut wait is still cut)', async () => {
    const clock = new ReplayClock();
    clock.following = true;
    const controller = new AbortController();
    clock.timer(10, () => controller.abort(new Error('deadline')));
    await clock.sleep(86_400_000, controller.signal);
    expect(clock.now()).toBe(0);
    clock.follow(10);
    await expect(clock.sleep(5, controller.signal)).rejects.toThrow('deadline');
  });

  it('off the tape, sleeps move it and fire the timers due on the way', async () => {
    const clock = new ReplayClock();
    const controller = new AbortController();
    clock.timer(3000, () => controller.abort(new Error('deadline')));
    await expect(clock.sleep(86_400_000, controller.signal)).rejects.toThrow('deadline');
  });

  it('at(t): resolves when the replay follows the tape to t; at once (moving there) off the tape', async () => {
    const clock = new ReplayClock();
    clock.following = true;
    let reached = false;
    const waiting = clock.at(3000.5).then(() => (reached = true));
    clock.follow(2000);
    await Promise.resolve();
    expect(reached).toBe(false);
    clock.follow(3000.5);
    await waiting;
    expect(reached).toBe(true);

    // Leaving the tape releases whoever still waits, the clock moving to their time.
    const later = clock.at(5000);
    clock.following = false;
    await later;
    expect(clock.now()).toBe(5000);
    await clock.at(6000);
    expect(clock.now()).toBe(6000);
  });
});
