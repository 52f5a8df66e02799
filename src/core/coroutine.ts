/**
 * Coroutines: the loop's parts as plain (synchronous) generators that yield their events, and yield
 * a `Wait` where they would `await`. A driver awaits the promise and resumes the generator with its
 * value, or throws its error into it at that point, so `try`/`catch`/`finally` work as they would
 * around an `await`.
 *
 * Why: a replay runs each event through several parts (provider runner, tool pipeline, step, loop,
 * replay). As async generators, each part would cost every event a handful of promises and
 * microtasks — hundreds of promises per replayed step, most of a long replay's time beyond reading
 * the tape. As coroutines, a part hands an event to its caller with a plain function call, and only
 * a real wait (a model call, a tool run, a timer) goes through a promise.
 *
 * How to write one:
 * - `async function* f(): AsyncGenerator<E, R>` becomes `function* f(): Co<E, R>`;
 * - `await x` becomes `yield* wait(x)` (typed; a value that is not a promise costs no wait at all);
 * - delegation stays `yield* part(...)`; stepping through a part by hand, where `await part.next()`
 *   was, is `yield* nextOf(part)`, and then the caller ends the part in its own `finally`
 *   (`abandon(part)`): a caller stopped early does not stop a part it steps by hand; on a path every
 *   event takes, resume the part yourself and go through `nextOf` only when it waits (`ready`);
 * - a `finally` must not wait or yield: when a caller stops early, the part is ended with
 *   `abandon()`, which runs its `finally` synchronously (and throws if it yields).
 * `run(co)` turns a coroutine back into an async generator, for callers that want one: its
 * `next()`, `return()` and `throw()` reach the coroutine as they would an async generator.
 * `drive(co, onEvent)` runs it to the end with a callback per event, for callers that take each
 * event as it comes (the CLI's replay, `ci`): then no event costs a promise at all.
 */

/** What a coroutine yields to wait for a promise; never an event. */
export class Wait {
  constructor(readonly promise: PromiseLike<unknown>) {}
}

/** A coroutine: yields events (`E`) and waits, returns `R`. */
export type Co<E, R> = Generator<E | Wait, R, unknown>;

/** `const value = yield* wait(x)`: the coroutine form of `await x`. */
export function* wait<T>(value: T | PromiseLike<T>): Generator<Wait, T, unknown> {
  if (!isPromiseLike(value)) return value;
  return (yield new Wait(value)) as T;
}

/**
 * The coroutine form of `await part.next()`: resumes `part` until it yields an event or returns,
 * passing its waits on to the caller's driver. `resumed`: `part`'s result already in hand, when the
 * caller resumed it itself (see `ready`); else `part` is resumed here, on the first `next()`.
 */
export function* nextOf<E, R>(part: Co<E, R>, resumed?: IteratorResult<E | Wait, R>): Generator<Wait, IteratorResult<E, R>, unknown> {
  let next = resumed ?? part.next();
  while (next.done !== true && next.value instanceof Wait) {
    let value: unknown;
    try {
      value = yield next.value;
    } catch (error) {
      next = part.throw(error);
      continue;
    }
    next = part.next(value);
  }
  return next as IteratorResult<E, R>;
}

/**
 * Whether a part's result is an event or its end, not a wait. A caller stepping a part by hand on a
 * hot path resumes it itself and goes through `nextOf` only for a wait — `const next =
 * ready(resumed) ? resumed : yield* nextOf(part, resumed)` — so an event the part has at once costs
 * no generator; likewise `isPromiseLike(x) ? yield* wait(x) : x` for a value mostly at hand.
 */
export function ready<E, R>(next: IteratorResult<E | Wait, R>): next is IteratorResult<Exclude<E, Wait>, R> {
  return next.done === true || !(next.value instanceof Wait);
}

/**
 * End `co` early: its `finally` blocks run, now. One that yields (a wait, an event) breaks the rule
 * above; it is an error rather than a coroutine left half-stopped.
 */
export function abandon<E, R>(co: Co<E, R>): void {
  if (co.return(undefined as R).done !== true) throw new Error('a coroutine yielded while being stopped: its finally blocks must not wait or yield');
}

/**
 * Resume `co` with what its wait gave: the awaited value, or its error thrown in at the wait.
 * Used by drivers; `step` is `co`'s last result, a wait.
 */
export async function settle<E, R>(co: Co<E, R>, wanted: Wait): Promise<IteratorResult<E | Wait, R>> {
  let value: unknown;
  try {
    value = await wanted.promise;
  } catch (error) {
    return co.throw(error);
  }
  return co.next(value);
}

/**
 * Drive `co` as an async generator of its events. Ending it early (`return()`) ends `co` too; an
 * error thrown in (`throw()`) is thrown into `co` at the event it was given, where it may catch it.
 */
export async function* run<E, R>(co: Co<E, R>): AsyncGenerator<E, R, void> {
  let done = false;
  try {
    let next = co.next();
    for (;;) {
      if (next.done === true) {
        done = true;
        return next.value;
      }
      if (next.value instanceof Wait) {
        next = await settle(co, next.value);
        continue;
      }
      try {
        yield next.value;
      } catch (error) {
        next = co.throw(error);
        continue;
      }
      next = co.next();
    }
  } finally {
    // Left early (the caller's return(), or an error out of co): the coroutine's finally blocks run.
    if (!done) abandon(co);
  }
}

/**
 * Drive `co` to its end, handing each event to `onEvent` with a plain call: no promise per event
 * unless `onEvent` returns one, which is awaited before `co` goes on. An error out of `onEvent`
 * ends `co` (its finally blocks run) and is thrown from here.
 */
export async function drive<E, R>(co: Co<E, R>, onEvent: (event: E) => void | PromiseLike<void>): Promise<R> {
  let done = false;
  try {
    let next = co.next();
    for (;;) {
      if (next.done === true) {
        done = true;
        return next.value;
      }
      if (next.value instanceof Wait) {
        next = await settle(co, next.value);
        continue;
      }
      const handled = onEvent(next.value);
      if (handled !== undefined) await handled;
      next = co.next();
    }
  } finally {
    if (!done) abandon(co);
  }
}

/** `f(value)`: at once when `value` is in hand, else once it arrives (a promise of the answer). */
export function whenReady<T, R>(value: T | PromiseLike<T>, f: (value: T) => R): R | Promise<R> {
  return isPromiseLike(value) ? Promise.resolve(value).then(f) : f(value);
}

export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
