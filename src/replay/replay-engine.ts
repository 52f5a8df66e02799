/**
 * The one engine that decides what a replayed model call gets — for the library's replaying fetch
 * and for `agentctl proxy --replay` alike:
 *
 * - **Content-matched.** A request is matched by its hash (model, messages, tools, every sampling
 *   and format parameter), in recorded order among equal requests, so concurrent calls each get
 *   their own answer whatever order they arrive in.
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
  | { kind: 'exhausted'; iteration: number; message: string };

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

export class ReplayEngine {
  private readonly states: CallState[];
  private started = 0;
  private live = 0;
  private firstPatch = Infinity;
  private diverged = false;
  private exhaustedAt: number | null = null;
  private readonly calls: ReplayedCall[] = [];
  private readonly divergences: RequestDivergence[] = [];
  readonly state: ReplayState;

  constructor(
    run: RunMeta,
    tape: CallTape,
    private readonly options: EngineOptions = {},
  ) {
    // Only calls that got an answer, or failed, can be served; a call the recording stopped during is beyond it.
    this.states = tape.calls
      .filter((call) => call.attempts.some((a) => a.outcome !== undefined))
      .map((call) => ({ call, served: 0, iteration: null }));
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

  /** Decide what a request (redacted, hashed) gets. */
  take(request: RequestView, hash: string): Served {
    // A retry of a call whose recorded attempts are not all served yet: its next attempt.
    const retry = this.states.find((s) => s.iteration !== null && s.call.request?.hash === hash && this.unfinished(s));
    if (retry !== undefined) return this.serveAttempt(retry);

    const iteration = this.started;
    const matched = this.states.find((s) => s.iteration === null && s.call.request?.hash === hash);
    const nearest = matched ?? this.states.find((s) => s.iteration === null);
    const patch = this.options.patches?.get(iteration);
    let divergence: RequestDivergence | undefined;
    if (matched === undefined && nearest?.call.request !== undefined) {
      divergence = this.diverge(iteration, nearest.call.request, request, hash);
      if (this.options.strict === true && patch === undefined && !divergence.expected) {
        // Refused, and reported: nothing of the tape is used up.
        this.divergences.push(divergence);
        return { kind: 'mismatch', divergence };
      }
    }
    if (nearest === undefined && patch === undefined) {
      this.exhaustedAt ??= iteration;
      return { kind: 'exhausted', iteration, message: exhaustedMessage(iteration) };
    }
    this.started++;
    if (divergence !== undefined) this.divergences.push(divergence);
    const wasDiverged = this.diverged;
    this.diverged = matched === undefined && nearest?.call.request !== undefined;
    const record: ReplayedCall = {
      iteration,
      source: patch === undefined ? 'tape' : 'patch',
      matched: nearest?.call.request === undefined ? null : matched !== undefined,
      resynced: matched !== undefined && wasDiverged,
    };
    this.calls.push(record);
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
    const attempt = state.call.attempts[state.served] as TapeAttempt;
    state.served++;
    if (attempt.outcome === undefined) {
      // The recording stopped during this attempt: there is no answer to give.
      const iteration = state.iteration as number;
      this.exhaustedAt ??= iteration;
      return { kind: 'exhausted', iteration, message: exhaustedMessage(iteration) };
    }
    return { kind: 'tape', call: state.call, attempt, iteration: state.iteration as number };
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
