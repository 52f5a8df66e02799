/**
 * The fake model of a replay of the built-in loop: answers each request with what the tape recorded for that iteration
 * — the same chunks, the same errors on the same attempts, the same response — so the loop takes
 * exactly the path it took when it was recorded. A patch replaces an iteration's answer (the tape
 * entry is still consumed, keeping later iterations aligned). Past the end of the tape it either
 * fails with "tape exhausted" or hands the request to a fallback client (`--fallback live`).
 *
 * What each call gets — the recorded attempt, a patch, or nothing (the end of the tape) — is the
 * replay engine's (by position); this is the loop's side of it: the chunks, errors and answers as an
 * `LlmClient` gives them, paced or not, and what a recording that was stopped during a call does.
 * The replay loads each step of the tape before the loop asks for it, so an answer the tape holds is
 * given at once (no promise): only pacing (`--speed`), a call the recording's time limit cut short,
 * and the live fallback wait.
 */
import { exhaustedMessage } from '../core/errors.js';
import type { LlmChunkEvent, RunEvent, WarningEvent } from '../core/events.js';
import type { LlmCallOptions, LlmChunk, LlmClient, LlmRequest, LlmResponse } from '../core/llm.js';
import { LlmError } from '../core/llm-error.js';
import type { AssistantMessage } from '../core/messages.js';
import type { RunMeta } from '../core/run-meta.js';
import { callOf } from './call-tape.js';
import { ReplayEngine } from './replay-engine.js';

export interface TapeLlmOptions {
  /** The run replayed. */
  run: RunMeta;
  /** The recorded events of one iteration (step), which the replay has loaded. */
  recorded: (iteration: number) => readonly RunEvent[];
  /** Replacement answers by iteration (`--patch N=…`). */
  patches?: ReadonlyMap<number, AssistantMessage>;
  /** Where requests go once the tape runs out; absent → fail with "tape exhausted". */
  fallback?: LlmClient;
  /** Move the replay's clock by a recorded duration, so elapsed time matches the recording. */
  advance?: (ms: number) => void;
  /** Wait in real time between replayed chunks (`--speed`), or until `signal` aborts; absent → instant. */
  pace?: (ms: number, signal?: AbortSignal) => Promise<void>;
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
  private readonly engine: ReplayEngine;

  constructor(private readonly options: TapeLlmOptions) {
    const patches = options.patches === undefined ? {} : { patches: options.patches };
    this.engine = ReplayEngine.byPosition(options.run, (iteration) => callOf(options.recorded(iteration)), patches);
  }

  complete(request: LlmRequest, call: LlmCallOptions = {}): LlmResponse | Promise<LlmResponse> {
    const iteration = this.iteration;
    const served = this.engine.takeAt(iteration);
    if (served.kind === 'patch') {
      if (request.stream) for (const chunk of chunksOf(served.response)) call.onChunk?.(chunk);
      return this.answered(served.response);
    }
    if (served.kind !== 'tape') {
      const events = this.options.recorded(iteration);
      const chunks = served.kind === 'exhausted' ? (served.stoppedDuring?.chunks ?? []) : [];
      if (events.some((e) => e.type === 'state' && e.to === 'CANCELLED') && this.options.onCancelled !== undefined) {
        // The user stopped the recording while this call was under way: the same chunks, the same stop.
        for (const event of chunks) call.onChunk?.(event.chunk);
        this.options.onCancelled(iteration);
        throw new Error(`cancelled during iteration ${iteration} in the recording`);
      }
      const timedOut = events.find((e) => e.type === 'state' && e.to === 'TIMED_OUT');
      if (timedOut !== undefined && this.options.reach !== undefined) return this.cutAtDeadline(chunks, timedOut.t, request, call);
      return this.beyondTape(iteration, request, call);
    }

    const outcome = served.attempt.outcome as NonNullable<typeof served.attempt.outcome>;
    const settle = (): LlmResponse => {
      if (outcome.type === 'llm_error') {
        throw LlmError.fromData({
          kind: outcome.kind,
          message: outcome.message,
          ...(outcome.status === undefined ? {} : { status: outcome.status }),
          ...(outcome.retryAfterMs === undefined ? {} : { retryAfterMs: outcome.retryAfterMs }),
        });
      }
      this.options.advance?.(outcome.durationMs);
      return this.answered(outcome.response);
    };
    // Chunks and provider warnings of this attempt, in the order they were recorded.
    const paced = this.deliver(served.attempt.stream, call);
    return paced === undefined ? settle() : paced.then(settle);
  }

  /** Hand the caller an attempt's stream: at once, or at its recorded pace (`--speed`). */
  private deliver(stream: ReadonlyArray<LlmChunkEvent | WarningEvent>, call: LlmCallOptions): Promise<void> | undefined {
    const { pace } = this.options;
    if (pace === undefined) {
      for (const event of stream) give(event, call);
      return undefined;
    }
    return (async () => {
      let previousOffset = 0;
      for (const event of stream) {
        if (event.type === 'llm_chunk') {
          await pace(event.chunk.offsetMs - previousOffset, call.signal);
          // Cancelled (Ctrl-C) while it waited: the call ends now, as a live call would.
          call.signal?.throwIfAborted();
          previousOffset = event.chunk.offsetMs;
        }
        give(event, call);
      }
    })();
  }

  /**
   * The recording's time limit stopped this call: the same chunks, then, at the recorded time of the
   * stop, the same abort from the replay's deadline. A replay whose limit does not fall there (a
   * what-if) needs an answer the tape does not have.
   */
  private async cutAtDeadline(chunks: readonly LlmChunkEvent[], stopAt: number, request: LlmRequest, call: LlmCallOptions): Promise<LlmResponse> {
    await this.deliver(chunks, call);
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
    this.engine.wentLive(iteration);
    // Retries of a live call are the provider runner's; only a success moves the tape on.
    const response = await this.options.fallback.complete(request, call);
    return this.answered(response);
  }

  private answered(response: LlmResponse): LlmResponse {
    this.iteration++;
    return response;
  }
}

function give(event: LlmChunkEvent | WarningEvent, call: LlmCallOptions): void {
  if (event.type === 'warning') call.onWarning?.(event.message);
  else call.onChunk?.(event.chunk);
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
