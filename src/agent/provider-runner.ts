/**
 * One model call with retries (docs/loop.md), as a coroutine of run events (core/coroutine.ts).
 *
 * `LlmClient.complete` reports stream chunks through a synchronous callback, while the loop consumes
 * a stream of events; a small queue joins the two, so chunks come out in order while the
 * call is still running. Recoverable errors are retried up to `maxRetries` times with exponential
 * back-off and jitter from the injected seeded `Random`, or after the server's `Retry-After` (capped
 * at `maxRetryAfterMs`); waits go through the injected `Clock`, so a replay (or a test on a
 * `ManualClock`) waits the same amounts without waiting at all. A wait longer than what is left of
 * the run's time limit is not begun. Given the same responses and seed, the events are identical.
 */
import type { Clock, Random } from '../core/clock.js';
import { LlmError } from '../core/llm-error.js';
import type { LlmCallOptions, LlmChunk, LlmClient, LlmRequest, LlmResponse } from '../core/llm.js';
import type { RunEventInput } from '../core/events.js';
import { isPromiseLike, run, wait, type Co } from '../core/coroutine.js';

/** What the provider runner yields: chunk, warning and error events, then one response event on success. */
export type ProviderEvent = Extract<RunEventInput, { type: 'llm_chunk' | 'llm_error' | 'llm_response' | 'warning' }>;

/**
 * How the call ended, once every event has been yielded. A fatal or final error becomes ERROR in the
 * loop; `outOfTimeWaitMs` says a retry was due but its wait would have outlasted the run's time limit
 * (TIMED_OUT).
 */
export type ProviderOutcome =
  | { ok: true; response: LlmResponse; attempts: number }
  | { ok: false; error: LlmError; attempts: number; outOfTimeWaitMs?: number };

/** What one provider call runs on. */
export interface ProviderRunnerOptions {
  client: LlmClient;
  clock: Clock;
  random: Random;
  /** Retries after the first attempt (`limits.maxRetries`); 0 means a single attempt. */
  maxRetries: number;
  /** Back-off before retry n (0-based) is about `baseDelayMs × 2^n`. Default 500. */
  baseDelayMs?: number;
  /** Upper bound of the exponential back-off. Default 30 000. */
  maxDelayMs?: number;
  /** Upper bound on a server's `Retry-After`, so one header cannot stall a run for hours. Default 120 000. */
  maxRetryAfterMs?: number;
  /**
   * Milliseconds left of the run's time limit. A retry whose wait would take longer is not waited
   * for: the call ends with `outOfTimeWaitMs`. Absent: no limit.
   */
  timeLeft?: () => number;
  /** Aborts the call in flight and any back-off wait; the generator then throws the signal's reason. */
  signal?: AbortSignal;
}

/** Where the call sits in the run: `iteration` is the LLM call's index (`--patch N`), `step` the loop step (default: iteration). */
export interface ProviderCallPosition {
  iteration: number;
  step?: number;
}

/** Defaults of `baseDelayMs`, `maxDelayMs` and `maxRetryAfterMs`. */
export const DEFAULT_BASE_DELAY_MS = 500;
export const DEFAULT_MAX_DELAY_MS = 30_000;
export const DEFAULT_MAX_RETRY_AFTER_MS = 120_000;

/**
 * Back-off before retry `attempt` (0-based): half of `min(maxDelayMs, baseDelayMs × 2^attempt)` plus a
 * random share of the other half ("equal jitter"), in whole milliseconds. Draws one number from `random`.
 */
export function backoffDelay(
  attempt: number,
  random: Random,
  baseDelayMs = DEFAULT_BASE_DELAY_MS,
  maxDelayMs = DEFAULT_MAX_DELAY_MS,
): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + random.next() * (ceiling / 2));
}

/**
 * Run one provider call. Yields, in order: `llm_chunk` (streams), `warning` (anomalies the client
 * reported), `llm_error` per failed attempt (with `retryInMs` when a retry follows), and
 * `llm_response` on success; returns the outcome. An error that is not an `LlmError` (a tape that ran
 * out, a bug) and an abort are thrown, after the events already produced have been yielded.
 */
export function runProviderCall(
  request: LlmRequest,
  position: ProviderCallPosition,
  options: ProviderRunnerOptions,
): AsyncGenerator<ProviderEvent, ProviderOutcome, void> {
  return run(providerCall(request, position, options));
}

/** `runProviderCall` as a coroutine, for the loop. */
export function* providerCall(
  request: LlmRequest,
  position: ProviderCallPosition,
  options: ProviderRunnerOptions,
): Co<ProviderEvent, ProviderOutcome> {
  const { clock, random, signal } = options;
  if (!Number.isInteger(options.maxRetries) || options.maxRetries < 0) {
    throw new RangeError(`maxRetries must be a non-negative integer, got ${options.maxRetries}`);
  }
  const iteration = position.iteration;
  const step = position.step ?? iteration;
  for (let attempt = 0; ; attempt += 1) {
    throwIfAborted(signal);
    const started = clock.now();
    const settled = yield* attemptOnce(request, options, { step, iteration, attempt });
    if (settled.ok) {
      yield { type: 'llm_response', step, iteration, attempt, response: settled.response, durationMs: clock.now() - started };
      return { ok: true, response: settled.response, attempts: attempt + 1 };
    }
    // An abort surfaces as whatever the client threw; report it as the abort, not as a provider failure.
    throwIfAborted(signal);
    const error = settled.error;
    if (!(error instanceof LlmError)) throw error;
    const retry = error.kind === 'recoverable' && attempt < options.maxRetries;
    const event: Extract<ProviderEvent, { type: 'llm_error' }> = { type: 'llm_error', step, iteration, attempt, kind: error.kind, message: error.message };
    if (error.status !== undefined) event.status = error.status;
    // Kept so a replay can hand the runner the same error and it takes the same path (no jitter).
    if (error.retryAfterMs !== undefined) event.retryAfterMs = error.retryAfterMs;
    const delay = retry ? retryDelay(error, attempt, options, random) : undefined;
    // A wait the run's time limit would cut short is not begun: the run is out of time now.
    const outOfTime = delay !== undefined && options.timeLeft !== undefined && delay > options.timeLeft();
    if (delay !== undefined && !outOfTime) event.retryInMs = delay;
    yield event;
    if (outOfTime) return { ok: false, error, attempts: attempt + 1, outOfTimeWaitMs: delay };
    if (event.retryInMs === undefined) return { ok: false, error, attempts: attempt + 1 };
    yield* wait(clock.sleep(event.retryInMs, signal));
  }
}

function retryDelay(error: LlmError, attempt: number, options: ProviderRunnerOptions, random: Random): number {
  if (error.retryAfterMs !== undefined) {
    return Math.min(Math.max(0, Math.round(error.retryAfterMs)), options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS);
  }
  return backoffDelay(attempt, random, options.baseDelayMs, options.maxDelayMs);
}

type Settled = { ok: true; response: LlmResponse } | { ok: false; error: unknown };

/** One attempt: start the call, yield its chunk/warning events as they arrive, return how it settled. */
function* attemptOnce(
  request: LlmRequest,
  options: ProviderRunnerOptions,
  tag: { step: number; iteration: number; attempt: number },
): Co<ProviderEvent, Settled> {
  const queue: ProviderEvent[] = [];
  let settled: Settled | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  // The call's own signal, so that abandoning the generator also cancels the call in flight. It is
  // made when the client first reads it: a replay's tape never does, and a signal (with a listener
  // on the run's) per call is a measurable share of a long replay.
  let controller: AbortController | undefined;
  /** Set when the generator is left before the call settled: a signal read after that is aborted. */
  let abandoned: Error | undefined;
  const outer = options.signal;
  const onAbort = (): void => controller?.abort(outer?.reason);
  const ownSignal = (): AbortSignal => {
    if (controller === undefined) {
      controller = new AbortController();
      if (abandoned !== undefined) controller.abort(abandoned);
      else if (outer?.aborted === true) controller.abort(outer.reason);
      else outer?.addEventListener('abort', onAbort, { once: true });
    }
    return controller.signal;
  };

  const callOptions: LlmCallOptions = {
    get signal() {
      return ownSignal();
    },
    onChunk: (chunk: LlmChunk) => {
      queue.push({ type: 'llm_chunk', ...tag, chunk });
      notify();
    },
    onWarning: (message: string) => {
      queue.push({ type: 'warning', step: tag.step, message });
      notify();
    },
  };
  // A reply the client holds already (a replay's tape) is taken at once: there is nothing to wait for.
  let answer: LlmResponse | Promise<LlmResponse> | undefined;
  try {
    answer = options.client.complete(request, callOptions);
  } catch (error) {
    settled = { ok: false, error };
  }
  if (isPromiseLike(answer)) {
    answer.then(
      (response) => {
        settled = { ok: true, response };
        notify();
      },
      (error: unknown) => {
        settled = { ok: false, error };
        notify();
      },
    );
  } else if (answer !== undefined) {
    settled = { ok: true, response: answer };
  }

  try {
    for (;;) {
      let event = queue.shift();
      while (event !== undefined) {
        yield event;
        event = queue.shift();
      }
      if (settled !== undefined) return settled;
      yield* wait(new Promise<void>((resolve) => {
        wake = resolve;
      }));
    }
  } finally {
    if (controller !== undefined) outer?.removeEventListener('abort', onAbort);
    if (settled === undefined) {
      abandoned = new Error('the provider call was abandoned');
      controller?.abort(abandoned);
    }
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) {
    const reason: unknown = signal.reason;
    throw reason instanceof Error ? reason : new DOMException('the model call was aborted', 'AbortError');
  }
}

/** Run a provider call to the end, collecting its events: for tests and non-streaming consumers. */
export async function drainProviderCall(
  call: AsyncGenerator<ProviderEvent, ProviderOutcome, void>,
): Promise<{ events: ProviderEvent[]; outcome: ProviderOutcome }> {
  const events: ProviderEvent[] = [];
  for (;;) {
    const next = await call.next();
    if (next.done === true) return { events, outcome: next.value };
    events.push(next.value);
  }
}
