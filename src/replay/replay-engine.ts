/**
 * The one engine that decides what a replayed model call gets — for `agentctl replay` and `ci` (the
 * built-in loop's tape model), the library's replaying fetch and `agentctl proxy --replay` alike:
 *
 * - **Content-matched** (`take`), for someone else's agent. A request is matched by its hash (model,
 *   messages, tools, every sampling and format parameter), in recorded order among equal requests,
 *   so concurrent calls each get their own answer whatever order they arrive in.
 * - **By position** (`takeAt`), for the built-in loop, which makes one call at a time and numbers
 *   them itself: call N gets the tape's call N, read from the tape as the replay reaches it (the
 *   comparator, not the engine, says where the requests differ).
 * - **Attempts replayed.** A recorded call that failed before it succeeded fails the same way again;
 *   the client's retry (the same request) gets the next attempt.
 * - **A request that differs** is a divergence naming the first differing field. `strict` refuses
 *   it (a caller with a live fallback sends it on live instead); otherwise it is served the next
 *   unserved call by position, and reported.
 * - **Patches** replace the answer of call N (0-based, in the order calls arrive); the recorded call
 *   is still used up, so later calls stay aligned, and divergences after a patch are expected.
 * - **Past the tape** the call is exhausted: the caller fails it the same way everywhere, or sends
 *   it on live.
 */
import { exhaustedMessage } from '../core/errors.js';
import type { LlmResponse } from '../core/llm.js';
import type { AssistantMessage } from '../core/messages.js';
import type { RunMeta } from '../core/run-meta.js';
import { inferFinishReason } from '../llm/stream-accumulator.js';
import type { CallTape, TapeAttempt, TapeCall } from './call-tape.js';
import { requestDifference, type RequestDifference, type RequestView } from './request-difference.js';

/** A request that matched no recorded call, against the one it was compared with. */
export interface RequestDivergence extends RequestDifference {
  /** The replay's call number (0-based). */
  iteration: number;
  /** The recorded call it was compared with (the next unserved one). */
  recordedIteration: number;
  recordedHash: string;
  replayedHash: string;
  /** True when an earlier patch explains it. */
  expected: boolean;
}

export interface ReplayedCall {
  /** The replay's call number (0-based, counting calls, not retries). */
  iteration: number;
  source: 'tape' | 'patch' | 'live';
  /** Whether the request matched a recorded one; null when there was none to compare with. */
  matched: boolean | null;
  /** Matched after an earlier request had diverged: the replay is back in step. */
  resynced: boolean;
}

/** What a replay has done so far: one shape for the library, the proxy and their reports. */
export interface ReplayState {
  /** The recorded run being replayed. */
  readonly run: RunMeta;
  readonly calls: readonly ReplayedCall[];
  readonly divergences: readonly RequestDivergence[];
  /** Calls sent on live once the tape ran out. */
  readonly liveCalls: number;
  /** Recorded calls not served yet. */
  readonly remaining: number;
  /** The call number at which the tape first had no answer, if it happened. */
  readonly exhaustedAt: number | null;
}

/** What a request gets. */
export type Served =
  | { kind: 'tape'; call: TapeCall; attempt: TapeAttempt; iteration: number }
  | { kind: 'patch'; response: LlmResponse; iteration: number }
  | { kind: 'mismatch'; divergence: RequestDivergence }
  | {
    kind: 'exhausted';
    iteration: number;
    message: string;
    /** The attempt the recording stopped during, when it did (its chunks are on the tape). */
    stoppedDuring?: TapeAttempt;
  };

export interface EngineOptions {
  /** Refuse a request that matches no recorded one (instead of serving by position). */
  strict?: boolean;
  patches?: ReadonlyMap<number, AssistantMessage>;
}

interface CallState {
  call: TapeCall;
  /** Attempts served so far. */
  served: number;
  /** The replay's call number, once started. */
  iteration: number | null;
}

/** Where an engine finds recorded calls: all of a run's, or (by position) call N when asked for it. */
type CallSource = { calls: TapeCall[] } | { callAt: (iteration: number) => TapeCall | undefined };

export class ReplayEngine {
  /** Content-matched: every call that can be served. By position: the call being served. */
  private readonly states: CallState[];
  private readonly callAt: ((iteration: number) => TapeCall | undefined) | undefined;
  private started = 0;
  private live = 0;
  private firstPatch = Infinity;
  private diverged = false;
  private exhaustedAt: number | null = null;
  private readonly calls: ReplayedCall[] = [];
  private readonly divergences: RequestDivergence[] = [];
  readonly state: ReplayState;

  /** An engine matching requests by content over a run's calls (`take`). */
  constructor(run: RunMeta, tape: CallTape, options?: EngineOptions);
  constructor(run: RunMeta, source: CallSource, options?: EngineOptions);
  constructor(
    run: RunMeta,
    source: CallTape | CallSource,
    private readonly options: EngineOptions = {},
  ) {
    this.callAt = 'callAt' in source ? source.callAt : undefined;
    // Only calls that got an answer, or failed, can be served; a call the recording stopped during is beyond it.
    this.states = 'calls' in source
      ? source.calls.filter((call) => call.attempts.some((a) => a.outcome !== undefined)).map((call) => ({ call, served: 0, iteration: null }))
      : [];
    const live = (): number => this.live;
    const remaining = (): number => this.states.filter((s) => s.iteration === null).length;
    const exhaustedAt = (): number | null => this.exhaustedAt;
    this.state = {
      run,
      calls: this.calls,
      divergences: this.divergences,
      get liveCalls() {
        return live();
      },
      get remaining() {
        return remaining();
      },
      get exhaustedAt() {
        return exhaustedAt();
      },
    };
  }

  /** An engine serving call N the tape's call N (`takeAt`); `callAt` reads it from the tape. */
  static byPosition(run: RunMeta, callAt: (iteration: number) => TapeCall | undefined, options: EngineOptions = {}): ReplayEngine {
    return new ReplayEngine(run, { callAt }, options);
  }

  /**
   * What call `iteration` of a loop that numbers its calls gets (by position): the next attempt of
   * that call when it was taken before and failed, else its first — or the patch for it.
   */
  takeAt(iteration: number): Served {
    const current = this.states[0];
    if (current !== undefined && current.iteration === iteration) {
      if (this.unfinished(current)) return this.serveAttempt(current);
      return this.exhausted(iteration);
    }
    const call = this.callAt?.(iteration);
    const state: CallState | undefined = call === undefined ? undefined : { call, served: 0, iteration: null };
    this.states.length = 0;
    if (state !== undefined) this.states.push(state);
    this.started = iteration;
    return this.begin(iteration, state, null);
  }

  /** Decide what a request (redacted, hashed) gets. */
  take(request: RequestView, hash: string): Served {
    // A retry of a call whose recorded attempts are not all served yet: its next attempt.
    const retry = this.states.find((s) => s.iteration !== null && s.call.request?.hash === hash && this.unfinished(s));
    if (retry !== undefined) return this.serveAttempt(retry);

    const iteration = this.started;
    const matched = this.states.find((s) => s.iteration === null && s.call.request?.hash === hash);
    // Unmatched: compared with (and, unless strict, served) the next recorded call of the same API —
    // an Anthropic request is no nearer to an OpenAI call recorded before it — else the next of any.
    const endpoint = request.endpoint ?? 'chat';
    const nearest = matched
      ?? this.states.find((s) => s.iteration === null && (s.call.request?.endpoint ?? 'chat') === endpoint)
      ?? this.states.find((s) => s.iteration === null);
    if (matched === undefined && nearest?.call.request !== undefined) {
      const divergence = this.diverge(iteration, nearest.call.request, request, hash);
      this.divergences.push(divergence);
      // Refused, and reported: nothing of the tape is used up.
      if (this.options.strict === true && this.options.patches?.has(iteration) !== true && !divergence.expected) return { kind: 'mismatch', divergence };
    }
    return this.begin(iteration, nearest, nearest?.call.request === undefined ? null : matched !== undefined);
  }

  /** Start call `iteration` on the recorded call `nearest` (if any): its patch, its first attempt, or the end of the tape. */
  private begin(iteration: number, nearest: CallState | undefined, matched: boolean | null): Served {
    const patch = this.options.patches?.get(iteration);
    if (nearest === undefined && patch === undefined) return this.exhausted(iteration);
    this.started++;
    const wasDiverged = this.diverged;
    this.diverged = matched === false;
    this.calls.push({ iteration, source: patch === undefined ? 'tape' : 'patch', matched, resynced: matched === true && wasDiverged });
    if (nearest !== undefined) nearest.iteration = iteration;
    if (patch !== undefined) {
      this.firstPatch = Math.min(this.firstPatch, iteration);
      // The recorded call is used up whole: a patched answer has no attempts to retry.
      if (nearest !== undefined) nearest.served = nearest.call.attempts.length;
      return { kind: 'patch', iteration, response: patchedResponse(patch, nearest === undefined ? undefined : finalResponse(nearest.call)) };
    }
    return this.serveAttempt(nearest as CallState);
  }

  /**
   * A call the caller sent on live: the tape was exhausted, or (strict, with a live fallback) it has
   * no match for the request — then `divergence` is the mismatch, reported like any other.
   */
  wentLive(iteration: number, divergence?: RequestDivergence): void {
    this.live++;
    this.started = Math.max(this.started, iteration + 1);
    if (divergence !== undefined) {
      if (!this.divergences.includes(divergence)) this.divergences.push(divergence);
      this.diverged = true;
    }
    this.calls.push({ iteration, source: 'live', matched: divergence === undefined ? null : false, resynced: false });
  }

  private serveAttempt(state: CallState): Served {
    const attempt = state.call.attempts[state.served];
    state.served++;
    // The recording stopped during this attempt (or before its first chunk): there is no answer to give.
    if (attempt?.outcome === undefined) return this.exhausted(state.iteration as number, attempt);
    return { kind: 'tape', call: state.call, attempt, iteration: state.iteration as number };
  }

  private exhausted(iteration: number, stoppedDuring?: TapeAttempt): Served {
    this.exhaustedAt ??= iteration;
    const served: Served = { kind: 'exhausted', iteration, message: exhaustedMessage(iteration) };
    if (stoppedDuring !== undefined) served.stoppedDuring = stoppedDuring;
    return served;
  }

  /** Started, with attempts left to serve, and not answered yet. */
  private unfinished(state: CallState): boolean {
    const last = state.call.attempts[state.served - 1];
    return state.served < state.call.attempts.length && last?.outcome?.type !== 'llm_response';
  }

  private diverge(iteration: number, recorded: RequestView & { hash: string }, replayed: RequestView, hash: string): RequestDivergence {
    const recordedIteration = this.states.find((s) => s.call.request === recorded)?.call.iteration ?? iteration;
    return {
      iteration,
      recordedIteration,
      recordedHash: recorded.hash,
      replayedHash: hash,
      expected: iteration > this.firstPatch,
      ...requestDifference(recorded, replayed),
    };
  }
}

/** The answer a call finally got, if it got one. */
function finalResponse(call: TapeCall): LlmResponse | undefined {
  for (const attempt of call.attempts) if (attempt.outcome?.type === 'llm_response') return attempt.outcome.response;
  return undefined;
}

/** A patch as a full response: usage is the recorded one, so budgets stay comparable. */
export function patchedResponse(message: AssistantMessage, recorded: LlmResponse | undefined): LlmResponse {
  return { message, finishReason: inferFinishReason(message), usage: recorded?.usage ?? { inputTokens: 0, outputTokens: 0 } };
}

/** How a divergence reads in a report or an HTTP error. */
export function describeDivergence(d: RequestDivergence): string {
  const show = (value: unknown): string => {
    const text = value === undefined ? '(absent)' : JSON.stringify(value);
    return text.length > 120 ? `${text.slice(0, 117)}...` : text;
  };
  return `request ${d.iteration} differs from recorded call ${d.recordedIteration} at ${d.path}: recorded ${show(d.recorded)}, replayed ${show(d.replayed)}`;
}
