/**
 * The run's time limit (`limits.timeoutMs`) as a deadline on the injected clock: a signal that is
 * aborted when the clock reaches it — cutting short the model call, the back-off wait, the tools or
 * the wait for user input in flight — and the checks the loop makes between and after them.
 *
 * Elapsed time is read as the run's events are stamped (since the run started, to 0.01 ms), so a
 * replay, whose clock follows the recorded `t`s, comes to the same decisions at the same events.
 */
import type { Clock } from '../core/clock.js';
import type { LlmErrorData } from '../core/llm-error.js';

/** The reason the deadline's signal is aborted with. */
export class TimeLimitExceeded extends Error {
  constructor(readonly limitMs: number) {
    super(`run time exceeded the limit of ${limitMs} ms`);
    this.name = 'TimeLimitExceeded';
  }
}

/**
 * The run's signal and its deadline. The signal is aborted by whichever comes first: the caller's
 * cancel signal (with its reason) or the clock reaching the deadline (with a TimeLimitExceeded).
 */
export class RunDeadline {
  private readonly controller = new AbortController();
  private readonly cancelTimer: (() => void) | undefined;
  private readonly onCancel: () => void;

  /**
   * @param limitMs the run's time limit; 0 means none.
   * @param elapsed milliseconds since the run started, as its events are stamped.
   * @param cancel the caller's signal (Ctrl-C).
   */
  constructor(
    clock: Clock,
    readonly limitMs: number,
    private readonly elapsed: () => number,
    private readonly cancel?: AbortSignal,
  ) {
    this.onCancel = () => this.controller.abort(cancel?.reason);
    if (cancel?.aborted === true) this.onCancel();
    else cancel?.addEventListener('abort', this.onCancel, { once: true });
    if (limitMs > 0 && clock.timer !== undefined) {
      this.cancelTimer = clock.timer(limitMs - elapsed(), () => this.controller.abort(new TimeLimitExceeded(limitMs)));
    }
  }

  /** Aborted when the run is cancelled or reaches its deadline, with the reason of the first. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Milliseconds left before the deadline; Infinity without a limit. */
  remaining(): number {
    return this.limitMs > 0 ? Math.max(0, this.limitMs - this.elapsed()) : Infinity;
  }

  /** True once the run has used its time (the clock is read: a late timer does not matter). */
  expired(): boolean {
    return this.limitMs > 0 && (isTimeLimit(this.controller.signal.reason) || this.elapsed() >= this.limitMs);
  }

  /** Why the run must stop now, if it must: cancelled or out of time, whichever came first. */
  interruption(): 'CANCELLED' | 'TIMED_OUT' | null {
    if (this.controller.signal.aborted) return isTimeLimit(this.controller.signal.reason) ? 'TIMED_OUT' : 'CANCELLED';
    return this.expired() ? 'TIMED_OUT' : null;
  }

  /** Stop the timer and stop listening (the run is over). */
  dispose(): void {
    this.cancelTimer?.();
    this.cancel?.removeEventListener('abort', this.onCancel);
  }
}

/** True when `reason` (an abort reason, or what an aborted call threw) is the deadline's. */
export function isTimeLimit(reason: unknown): reason is TimeLimitExceeded {
  return reason instanceof TimeLimitExceeded;
}

/**
 * Why a run ends TIMED_OUT before a retry: the wait it needed would have outlasted the time limit.
 * Built from recorded values only (the error, the wait), so a replay gives the same text.
 */
export function outOfTimeReason(limitMs: number, error: LlmErrorData, waitMs: number): string {
  const why = error.retryAfterMs === undefined
    ? `the retry's back-off of ${waitMs} ms would outlast it`
    : `the model server asked to wait ${error.retryAfterMs} ms before a retry (Retry-After)`;
  return `run time would exceed the limit of ${limitMs} ms: ${why}`;
}
