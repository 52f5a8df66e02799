/**
 * The fake model of a replay: answers each request with what the tape recorded for that iteration
 * — the same chunks, the same errors on the same attempts, the same response — so the loop takes
 * exactly the path it took when it was recorded. A patch replaces an iteration's answer (the tape
 * entry is still consumed, keeping later iterations aligned). Past the end of the tape it either
 * fails with "tape exhausted" or hands the request to a fallback client (`--fallback live`).
 */
import type { RunEvent } from '../core/events.js';
import type { LlmCallOptions, LlmChunk, LlmClient, LlmRequest, LlmResponse } from '../core/llm.js';
import { LlmError } from '../core/llm-error.js';
import type { AssistantMessage } from '../core/messages.js';

export interface TapeLlmOptions {
  /** The recorded events of one iteration (step). */
  recorded: (iteration: number) => Promise<readonly RunEvent[]>;
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

  async complete(request: LlmRequest, call: LlmCallOptions = {}): Promise<LlmResponse> {
    const iteration = this.iteration;
    const attempt = this.attempt;
    const events = await this.options.recorded(iteration);
    const patch = this.options.patches?.get(iteration);
    if (patch !== undefined && attempt === 0) {
      const recorded = events.find((e) => e.type === 'llm_response');
      const response = patchedResponse(patch, recorded?.type === 'llm_response' ? recorded.response : undefined);
      if (request.stream) for (const chunk of chunksOf(response)) call.onChunk?.(chunk);
      return this.answered(response);
    }

    const outcome = events.find(
      (e): e is Extract<RunEvent, { type: 'llm_response' | 'llm_error' }> =>
        (e.type === 'llm_response' || e.type === 'llm_error') && e.attempt === attempt,
    );
    if (outcome === undefined) {
      if (events.some((e) => e.type === 'state' && e.to === 'CANCELLED') && this.options.onCancelled !== undefined) {
        // The user stopped the recording while this call was under way: the same chunks, the same stop.
        for (const event of events) if (event.type === 'llm_chunk' && event.attempt === attempt) call.onChunk?.(event.chunk);
        this.options.onCancelled(iteration);
        throw new Error(`cancelled during iteration ${iteration} in the recording`);
      }
      const timedOut = events.find((e) => e.type === 'state' && e.to === 'TIMED_OUT');
      if (timedOut !== undefined && this.options.reach !== undefined) return this.cutAtDeadline(events, attempt, timedOut.t, request, call);
      return this.beyondTape(iteration, request, call);
    }

    // Chunks and provider warnings of this attempt, in the order they were recorded.
    let previousOffset = 0;
    for (const event of attemptWindow(events, outcome)) {
      if (event.type === 'warning') {
        call.onWarning?.(event.message);
      } else if (event.type === 'llm_chunk' && event.attempt === attempt) {
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
  private async cutAtDeadline(
    events: readonly RunEvent[],
    attempt: number,
    stopAt: number,
    request: LlmRequest,
    call: LlmCallOptions,
  ): Promise<LlmResponse> {
    let previousOffset = 0;
    for (const event of events) {
      if (event.type !== 'llm_chunk' || event.attempt !== attempt) continue;
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
      throw new LlmError({ kind: 'fatal', message: `tape exhausted at iteration ${iteration}` });
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

/** A patch as a full response: usage is the recorded one, so budgets stay comparable. */
function patchedResponse(message: AssistantMessage, recorded: LlmResponse | undefined): LlmResponse {
  const calls = message.tool_calls ?? [];
  return {
    message,
    finishReason: calls.length > 0 ? 'tool_calls' : 'stop',
    usage: recorded?.usage ?? { inputTokens: 0, outputTokens: 0 },
  };
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

/** The events between the previous attempt's outcome (or the request) and this attempt's outcome. */
function attemptWindow(events: readonly RunEvent[], outcome: RunEvent): RunEvent[] {
  const end = events.indexOf(outcome);
  let start = end;
  while (start > 0) {
    const before = events[start - 1];
    if (before === undefined || before.type === 'llm_request' || before.type === 'llm_error' || before.type === 'llm_response') break;
    start--;
  }
  return events.slice(start, end);
}
