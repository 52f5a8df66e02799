/**
 * The time limits of one model request, at the I/O edge (real time: they bound waiting on a socket,
 * and what they decide is recorded as an `llm_error`, so a replay never needs them): the whole
 * request (`limits.requestTimeoutMs`) and, for streams, the silence between two pieces of data
 * (`limits.streamIdleTimeoutMs`). Either aborts the request's own signal, which the caller's signal
 * (Ctrl-C, the run's deadline) aborts too; afterwards `timeout()` says whether a limit did it.
 */
import { LlmError } from '../core/llm-error.js';

/** setTimeout's largest delay; a larger one would fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

class Timeout extends Error {
  constructor(readonly error: LlmError) {
    super(error.message);
  }
}

/** One request's signal and timers; `dispose()` when the request is over. */
export class CallTimeouts {
  private readonly controller = new AbortController();
  private readonly requestTimer: ReturnType<typeof setTimeout> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly onIdle: () => void;
  private readonly onAbort: () => void;

  /**
   * @param caller the caller's signal; its abort aborts this request, with its reason.
   * @param requestMs the whole request's limit; 0 = none.
   * @param idleMs the longest silence of a stream (`touch()` starts and restarts it); 0 = none.
   */
  constructor(
    private readonly caller: AbortSignal | undefined,
    requestMs: number,
    private readonly idleMs: number,
  ) {
    this.onAbort = () => this.controller.abort(caller?.reason);
    if (caller?.aborted === true) this.onAbort();
    else caller?.addEventListener('abort', this.onAbort, { once: true });
    const idle = new LlmError({
      kind: 'recoverable',
      message: `the model stream stalled: no data for ${idleMs} ms (stream idle timeout, limits.streamIdleTimeoutMs)`,
    });
    this.onIdle = () => this.controller.abort(new Timeout(idle));
    if (requestMs > 0) {
      const error = new LlmError({ kind: 'recoverable', message: `the model request timed out: no complete answer within ${requestMs} ms (limits.requestTimeoutMs)` });
      this.requestTimer = setTimeout(() => this.controller.abort(new Timeout(error)), Math.min(requestMs, MAX_TIMER_MS));
    }
  }

  /** Aborted by the caller or by a time limit. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Data arrived: the stream's silence starts over. */
  touch(): void {
    if (this.idleMs <= 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(this.onIdle, Math.min(this.idleMs, MAX_TIMER_MS));
  }

  /** The recoverable error of the limit that aborted the request, if one did (and not the caller). */
  timeout(): LlmError | undefined {
    if (this.caller?.aborted === true) return undefined;
    const reason: unknown = this.controller.signal.reason;
    return reason instanceof Timeout ? reason.error : undefined;
  }

  dispose(): void {
    clearTimeout(this.requestTimer);
    clearTimeout(this.idleTimer);
    this.caller?.removeEventListener('abort', this.onAbort);
  }
}
