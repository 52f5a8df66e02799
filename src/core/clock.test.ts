import { describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from './clock.js';

describe('ManualClock timers', () => {
  it('fire in due order when the clock is moved to or past them, each at its own time, never by themselves', () => {
    const clock = new ManualClock(100);
    const fired: Array<[string, number]> = [];
    clock.timer(50, () => fired.push(['b', clock.now()]));
    clock.timer(20, () => fired.push(['a', clock.now()]));
    const cancel = clock.timer(30, () => fired.push(['cancelled', clock.now()]));
    cancel();
    clock.advance(19);
    expect(fired).toEqual([]);
    clock.advance(100);
    expect(fired).toEqual([['a', 120], ['b', 150]]);
    expect(clock.now()).toBe(219);
  });

  it('a sleep cut short by a timer that aborts its signal ends at the timer, rejected with the reason', async () => {
    const clock = new ManualClock(0);
    const controller = new AbortController();
    const reason = new Error('deadline');
    clock.timer(1000, () => controller.abort(reason));
    await expect(clock.sleep(86_400_000, controller.signal)).rejects.toBe(reason);
    expect(clock.now()).toBe(1000);
    // A timer that does not concern the sleep's signal does not cut it.
    clock.timer(10, () => undefined);
    await expect(clock.sleep(500)).resolves.toBeUndefined();
    expect(clock.now()).toBe(1500);
  });
});

describe('systemClock.timer', () => {
  it('fires once the clock has really moved that far, and can be cancelled', async () => {
    const start = systemClock.now();
    const fired = await new Promise<number>((resolve) => systemClock.timer?.(30, () => resolve(systemClock.now())));
    expect(fired - start).toBeGreaterThanOrEqual(30);
    let late = false;
    systemClock.timer?.(5, () => (late = true))();
    await systemClock.sleep(20);
    expect(late).toBe(false);
  });
});
