/**
 * The fake model of a replay of the built-in loop: answers each request with what the tape recorded for that iteration
 * — the same chunks, the same errors on the same attempts, the same response — so the loop takes
 * exactly the path it took when it was recorded. A patch replaces an iteration's answer (the tape
 * entry is still consumed, keeping later iterations aligned). Past the end of the tape it either
 * fails with "tape exhausted" or hands the request to a fallback client (`--fallback live`).
 */
import { exhaustedMessage } from '../core/errors.js';
import type { LlmChunkEvent, RunEvent } from '../core/events.js';
import type { LlmCallOptions, LlmChunk, LlmClient, LlmRequest, LlmResponse } from '../core/llm.js';
import { LlmError } from '../core/llm-error.js';
import type { AssistantMessage } from '../core/messages.js';
import { attemptsOf, type TapeAttempt } from './call-tape.js';
import { patchedResponse } from './replay-engine.js';

export interface TapeLlmOptions {
  /** The recorded events of one iteration (step). */
  recorded: (iteration: number) => readonly RunEvent[] | Promise<readonly RunEvent[]>;
  /**
   * The recorded events of one iteration when they are in hand without reading the tape; undefined
   * otherwise. Without it nothing is answered at once (completeNow): `recorded` may start a read,
   * and the tape is read by one reader at a time, which complete() then is.
   */
  inHand?: (iteration: number) => readonly RunEvent[] | undefined;
  /** Replacement answers by iteration (`--patch N=…`). */
  patches?: ReadonlyMap<number, AssistantMessage>;
  /** Where requests go once the tape runs out; absent → fail with "tape exhausted". */
  fallback?: LlmClient;
  /** Move the replay's clock by a recorded duration, so elapsed time matches the recording. */
  advance?: (ms: number) => void;
  /** Wait in real time between replayed chunks (`--speed`); absent → instant. */
  pace?: (ms: number) => Promise<void>;
  onExhausted?: (iteration: number) => void;
  /** The recording was cancelled during this call: cancel the replay's run at the same point. */
  onCancelled?: (iteration: number) => void;
  /**
   * Resolves once the replay's clock reaches a recorded time (`t`). A call the recording's time
   * limit cut short waits for the recorded time of that stop; the replay's own deadline then aborts
   * it the same way. Absent: such a call is beyond the tape.
   */
  reach?: (t: number) => Promise<void>;
  onLive?: (iteration: number) => void;
}

/** An `LlmClient` that answers from a tape (see the module comment). */
export class TapeLlm implements LlmClient {
  private iteration = 0;
  private attempt = 0;

  constructor(private readonly options: TapeLlmOptions) {}

  /**
   * The recorded response of this attempt when the tape's events for it are in hand and nothing
   * about it waits or fails: no patch, no pacing (`--speed`), an answer rather than an error.
   * Anything else is complete()'s, which starts by asking here, so the two give the same answer.
   */
  completeNow(_request: LlmRequest, call: LlmCallOptions = {}): LlmResponse | undefined {
    if (this.options.pace !== undefined || this.options.patches?.has(this.iteration) === true) return undefined;
    const events = this.options.inHand?.(this.iteration);
    if (events === undefined) return undefined;
    const current = attemptsOf(events).find((a) => a.attempt === this.attempt);
    const outcome = current?.outcome;
    if (current === undefined || outcome?.type !== 'llm_response') return undefined;
    for (const event of current.stream) {
      if (event.type === 'warning') call.onWarning?.(event.message);
      else call.onChunk?.(event.chunk);
    }
    this.options.advance?.(outcome.durationMs);
    return this.answered(outcome.response);
  }

  async complete(request: LlmRequest, call: LlmCallOptions = {}): Promise<LlmResponse> {
    const now = this.completeNow(request, call);
    if (now !== undefined) return now;
    const iteration = this.iteration;
    const attempt = this.attempt;
    const events = await this.options.recorded(iteration);
    const attempts = attemptsOf(events);
    const patch = this.options.patches?.get(iteration);
    if (patch !== undefined && attempt === 0) {
      const recorded = attempts.find((a) => a.outcome?.type === 'llm_response')?.outcome;
      const response = patchedResponse(patch, recorded?.type === 'llm_response' ? recorded.response : undefined);
      if (request.stream) for (const chunk of chunksOf(response)) call.onChunk?.(chunk);
      return this.answered(response);
    }

    const current = attempts.find((a) => a.attempt === attempt);
    const outcome = current?.outcome;
    if (outcome === undefined) {
      if (events.some((e) => e.type === 'state' && e.to === 'CANCELLED') && this.options.onCancelled !== undefined) {
        // The user stopped the recording while this call was under way: the same chunks, the same stop.
        for (const event of current?.chunks ?? []) call.onChunk?.(event.chunk);
        this.options.onCancelled(iteration);
        throw new Error(`cancelled during iteration ${iteration} in the recording`);
      }
      const timedOut = events.find((e) => e.type === 'state' && e.to === 'TIMED_OUT');
      if (timedOut !== undefined && this.options.reach !== undefined) return this.cutAtDeadline(current?.chunks ?? [], timedOut.t, request, call);
      return this.beyondTape(iteration, request, call);
    }

    // Chunks and provider warnings of this attempt, in the order they were recorded.
    let previousOffset = 0;
    for (const event of (current as TapeAttempt).stream) {
      if (event.type === 'warning') {
        call.onWarning?.(event.message);
      } else {
        if (this.options.pace !== undefined) await this.options.pace(event.chunk.offsetMs - previousOffset);
        previousOffset = event.chunk.offsetMs;
        call.onChunk?.(event.chunk);
      }
    }
    if (outcome.type === 'llm_error') {
      this.attempt++;
      throw LlmError.fromData({
        kind: outcome.kind,
        message: outcome.message,
        ...(outcome.status === undefined ? {} : { status: outcome.status }),
        ...(outcome.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.retryAfterMs }),
      });
    }
    this.options.advance?.(outcome.durationMs);
    return this.answered(outcome.response);
  }

  /**
   * The recording's time limit stopped this call: the same chunks, then, at the recorded time of the
   * stop, the same abort from the replay's deadline. A replay whose limit does not fall there (a
   * what-if) needs an answer the tape does not have.
   */
  private async cutAtDeadline(chunks: readonly LlmChunkEvent[], stopAt: number, request: LlmRequest, call: LlmCallOptions): Promise<LlmResponse> {
    let previousOffset = 0;
    for (const event of chunks) {
      if (this.options.pace !== undefined) await this.options.pace(event.chunk.offsetMs - previousOffset);
      previousOffset = event.chunk.offsetMs;
      call.onChunk?.(event.chunk);
    }
    await this.options.reach?.(stopAt);
    const signal = call.signal;
    if (signal?.aborted === true) throw signal.reason instanceof Error ? signal.reason : new Error('the model call was aborted');
    return this.beyondTape(this.iteration, request, call);
  }

  private async beyondTape(iteration: number, request: LlmRequest, call: LlmCallOptions): Promise<LlmResponse> {
    if (this.options.fallback === undefined) {
      this.options.onExhausted?.(iteration);
      throw new LlmError({ kind: 'fatal', message: exhaustedMessage(iteration) });
    }
    this.options.onLive?.(iteration);
    // Retries of a live call are the provider runner's; only a success moves the tape on.
    const response = await this.options.fallback.complete(request, call);
    return this.answered(response);
  }

  private answered(response: LlmResponse): LlmResponse {
    this.iteration++;
    this.attempt = 0;
    return response;
  }
}

/** The stream a patched response is delivered as: one chunk with everything, then the finish. */
function chunksOf(response: LlmResponse): LlmChunk[] {
  const body: LlmChunk = { index: 0, offsetMs: 0, finished: false };
  if (response.message.content !== null) body.content = response.message.content;
  const calls = response.message.tool_calls ?? [];
  if (calls.length > 0) {
    body.toolCalls = calls.map((c, index) => ({ index, id: c.id, name: c.function.name, arguments: c.function.arguments }));
  }
  return [body, { index: 1, offsetMs: 0, finishReason: response.finishReason, finished: true }];
}
