import { describe, expect, it } from 'vitest';
import { abandon, drive, nextOf, ready, run, wait, Wait, whenReady, type Co } from './coroutine.js';

/** Drive a coroutine to the end by hand: its events, and what it returned. */
async function drain<E, R>(co: AsyncGenerator<E, R, void>): Promise<{ events: E[]; value: R }> {
  const events: E[] = [];
  for (;;) {
    const next = await co.next();
    if (next.done === true) return { events, value: next.value };
    events.push(next.value);
  }
}

describe('coroutines', () => {
  it('wait() hands back a plain value without waiting, and a promise\'s value after one wait', () => {
    function* part(): Co<string, number> {
      const a = yield* wait(2);
      const b = yield* wait(Promise.resolve(3));
      return a * b;
    }
    const co = part();
    const first = co.next();
    // The plain value needed no wait: the first thing yielded is the promise's Wait.
    expect(first.value).toBeInstanceOf(Wait);
    expect(co.next(3)).toEqual({ done: true, value: 6 });
  });

  it('run() gives the events in order and the return value, awaiting the waits in between', async () => {
    function* part(): Co<string, string> {
      yield 'a';
      const x = yield* wait(new Promise<string>((resolve) => setTimeout(() => resolve('late'), 1)));
      yield `b:${x}`;
      return 'done';
    }
    expect(await drain(run(part()))).toEqual({ events: ['a', 'b:late'], value: 'done' });
  });

  it('a rejected wait throws at the wait, where try/catch sees it', async () => {
    function* part(): Co<string, string> {
      try {
        yield* wait(Promise.reject(new Error('boom')));
        return 'not reached';
      } catch (error) {
        yield `caught ${(error as Error).message}`;
        return 'recovered';
      }
    }
    expect(await drain(run(part()))).toEqual({ events: ['caught boom'], value: 'recovered' });
  });

  it('an error a coroutine does not catch comes out of run(), after the events before it', async () => {
    function* part(): Co<string, void> {
      yield 'first';
      yield* wait(Promise.reject(new Error('unhandled')));
    }
    const gen = run(part());
    expect(await gen.next()).toEqual({ done: false, value: 'first' });
    await expect(gen.next()).rejects.toThrow('unhandled');
  });

  it('nextOf() steps a part by hand: waits pass through to the driver, errors are thrown into the part', async () => {
    const log: string[] = [];
    function* inner(): Co<number, string> {
      yield 1;
      try {
        yield* wait(Promise.reject(new Error('inner wait failed')));
      } catch (error) {
        log.push(`inner caught: ${(error as Error).message}`);
      }
      const v = yield* wait(Promise.resolve(5));
      yield v;
      return 'inner done';
    }
    function* outer(): Co<string, string> {
      const part = inner();
      for (let next = yield* nextOf(part); ; next = yield* nextOf(part)) {
        if (next.done === true) return `outer saw ${next.value}`;
        yield `item ${next.value}`;
      }
    }
    expect(await drain(run(outer()))).toEqual({ events: ['item 1', 'item 5'], value: 'outer saw inner done' });
    expect(log).toEqual(['inner caught: inner wait failed']);
  });

  it('ready() with nextOf(part, next): a part resumed by hand goes through nextOf only when it waits, to the same effect', async () => {
    const log: string[] = [];
    function* inner(): Co<number, string> {
      yield 1;
      try {
        yield* wait(Promise.reject(new Error('failed')));
      } catch (error) {
        log.push(`caught: ${(error as Error).message}`);
      }
      yield yield* wait(Promise.resolve(5));
      yield 6;
      return 'done';
    }
    let throughNextOf = 0;
    function* outer(): Co<string, string> {
      const part = inner();
      for (let resumed = part.next(); ; resumed = part.next()) {
        if (!ready(resumed)) throughNextOf++;
        const next = ready(resumed) ? resumed : yield* nextOf(part, resumed);
        if (next.done === true) return `outer saw ${next.value}`;
        yield `item ${next.value}`;
      }
    }
    expect(await drain(run(outer()))).toEqual({ events: ['item 1', 'item 5', 'item 6'], value: 'outer saw done' });
    expect(log).toEqual(['caught: failed']);
    // Only the resumption that met the waits went through nextOf; the events at hand did not.
    expect(throughNextOf).toBe(1);
  });

  it('ending run() early ends the coroutine: its finally blocks run, through yield* too', async () => {
    const cleaned: string[] = [];
    function* inner(): Co<string, void> {
      try {
        yield 'inner';
        yield 'never';
      } finally {
        cleaned.push('inner');
      }
    }
    function* outer(): Co<string, void> {
      try {
        yield* inner();
      } finally {
        cleaned.push('outer');
      }
    }
    const gen = run(outer());
    expect(await gen.next()).toEqual({ done: false, value: 'inner' });
    await gen.return(undefined);
    expect(cleaned).toEqual(['inner', 'outer']);
  });

  it('an error thrown into run() reaches the coroutine at the event it was given, where it may catch it', async () => {
    function* part(): Co<string, string> {
      try {
        yield 'waiting to be told';
        return 'not told';
      } catch (error) {
        yield `told: ${(error as Error).message}`;
        return 'handled';
      }
    }
    const gen = run(part());
    expect(await gen.next()).toEqual({ done: false, value: 'waiting to be told' });
    expect(await gen.throw(new Error('stop that'))).toEqual({ done: false, value: 'told: stop that' });
    expect(await gen.next()).toEqual({ done: true, value: 'handled' });
  });

  it('abandon() runs the finally blocks, and refuses a finally that yields instead of leaving it half-stopped', () => {
    const cleaned: string[] = [];
    function* tidy(): Co<string, void> {
      try {
        yield 'a';
      } finally {
        cleaned.push('tidy');
      }
    }
    const ok = tidy();
    ok.next();
    abandon(ok);
    expect(cleaned).toEqual(['tidy']);

    function* untidy(): Co<string, void> {
      try {
        yield 'a';
      } finally {
        yield* wait(Promise.resolve());
      }
    }
    const bad = untidy();
    bad.next();
    expect(() => abandon(bad)).toThrow(/finally blocks must not wait or yield/);
  });

  it('drive() hands each event to the callback, awaits a promise it returns before going on, and returns the result', async () => {
    const log: string[] = [];
    function* part(): Co<string, string> {
      yield 'a';
      log.push('resumed after a');
      const v = yield* wait(Promise.resolve('b'));
      yield v;
      return 'end';
    }
    const result = await drive(part(), (event) => {
      log.push(`got ${event}`);
      return event === 'a' ? new Promise<void>((resolve) => setTimeout(() => (log.push('a handled'), resolve()), 1)) : undefined;
    });
    expect(result).toBe('end');
    expect(log).toEqual(['got a', 'a handled', 'resumed after a', 'got b']);
  });

  it('drive(): a callback that fails ends the coroutine (its finally runs) and the error comes out', async () => {
    const cleaned: string[] = [];
    function* part(): Co<string, void> {
      try {
        yield 'a';
        yield 'b';
      } finally {
        cleaned.push('part');
      }
    }
    await expect(drive(part(), (event) => {
      if (event === 'a') throw new Error('display broke');
    })).rejects.toThrow('display broke');
    expect(cleaned).toEqual(['part']);
  });

  it('a thenable that is not a Promise is waited for too', async () => {
    function* part(): Co<never, number> {
      return yield* wait({ then: (resolve: (v: number) => void) => resolve(42) } as PromiseLike<number>);
    }
    expect(await drain(run(part()))).toEqual({ events: [], value: 42 });
  });
});

describe('whenReady', () => {
  it('answers at once for a value in hand, and with a promise for one still to come (or its failure)', async () => {
    const double = (n: number): number => n * 2;
    expect(whenReady(21, double)).toBe(42);
    const later = whenReady(Promise.resolve(21), double);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(42);
    await expect(whenReady(Promise.reject(new Error('no')), double)).rejects.toThrow('no');
  });
});
