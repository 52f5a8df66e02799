/**
 * recordOpenAI: record any agent written directly on the `openai` SDK. It wraps a real client's
 * `chat.completions.create` and writes every call onto a new run in a TapeStore, in the same event
 * shapes the built-in loop writes, so `agentctl show/export/replay` and replayOpenAI read it:
 *
 *   run_start (at the first call) · per call: llm_request (delta + hash), llm_chunk… (streams),
 *   llm_response | llm_error · run_end (finish()).
 *
 * The response is written with sync before it (or a stream's end) reaches the agent, so a process
 * that dies keeps everything the agent acted on. Every event is redacted (the client's API key,
 * secret-named environment values, key-shaped strings, extra patterns), and the request hash is
 * taken over the redacted request: a replay only ever sees redacted text, and hashes what it is
 * sent the same way.
 *
 * `iteration` counts successful calls: a call that fails is recorded with the iteration of the call
 * that will replace it and the next `attempt`. Calls are assumed to be made one after another, as an
 * agent loop does; concurrent calls are recorded, but their deltas and iterations interleave.
 */
import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { Stream } from 'openai/streaming';
import { ulid } from 'ulid';
import { requestDelta, requestHash } from '../agent/request-delta.js';
import { EventStamper } from '../agent/run-events.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { RunEventInput, RunTotals } from '../core/events.js';
import type { LlmChunk, LlmResponse } from '../core/llm.js';
import type { ChatMessage } from '../core/messages.js';
import { runRedactor, type Redactor } from '../core/redact.js';
import type { RunMeta } from '../core/run-meta.js';
import type { TerminalState } from '../core/states.js';
import { RunRecorder } from '../tape/run-recorder.js';
import { TapeStore } from '../tape/tape-store.js';
import { chatClient, type ChatCompletionsClient, type RequestOptions } from './chat-client.js';
import { classify } from './openai-llm.js';
import { toLlmRequest } from './sdk-request.js';
import { responseFromCompletion } from './sdk-response.js';
import { StreamAccumulator } from './stream-accumulator.js';

export interface RecordOpenAIOptions {
  /** The store to record into, or its directory (opened here, created if missing, closed by finish()). */
  store: TapeStore | string;
  /** A name for the run (`agentctl replay <name>` finds it). */
  runName?: string;
  /** What the run is about, shown by `agentctl ls/show`. Default 'library run'. */
  task?: string;
  /** Extra redaction patterns (regular-expression source), on top of the API key and key-shaped strings. */
  redact?: string[];
  /** Measures event times and chunk offsets. Default: the system clock. */
  clock?: Clock;
}

export interface FinishOptions {
  /** Default COMPLETED. */
  state?: TerminalState;
  /** Default 'finished by the caller'. */
  reason?: string;
}

export interface OpenAIRecording {
  /** Use in place of the real client: `recording.client.chat.completions.create(…)`. */
  client: ChatCompletionsClient;
  /** The id of the run being recorded (the run itself is created at the first call). */
  runId: string;
  /** Write `run_end` with the totals, mark the run complete, and return its meta. Idempotent. */
  finish(options?: FinishOptions): Promise<RunMeta>;
}

/** Wrap `client` so every chat completion it makes is recorded onto a new run in `options.store`. */
export async function recordOpenAI(client: OpenAI, options: RecordOpenAIOptions): Promise<OpenAIRecording> {
  const owned = typeof options.store === 'string';
  const store = typeof options.store === 'string' ? await TapeStore.open(options.store, { create: true }) : options.store;
  let redact: Redactor;
  try {
    // The client's key, the secret-named environment values and the patterns: as `agentctl record` does.
    redact = runRedactor({ apiKey: client.apiKey, patterns: options.redact ?? [] });
  } catch (error) {
    if (owned) await store.close();
    throw error;
  }
  const recorder = new OpenAIRecorder(client, store, owned, redact, options);
  return {
    client: chatClient((body, requestOptions) => recorder.create(body, requestOptions)),
    runId: recorder.runId,
    finish: (end) => recorder.finish(end),
  };
}

class OpenAIRecorder {
  readonly runId = ulid();
  private readonly clock: Clock;
  private started: Promise<RunRecorder> | undefined;
  private stamper: EventStamper | undefined;
  private finished: Promise<RunMeta> | undefined;
  /** Messages of the previous request, for deltas (redacted). */
  private sent: ChatMessage[] = [];
  private iteration = 0;
  private attempt = 0;
  private readonly totals: RunTotals = { steps: 0, llmCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };

  constructor(
    private readonly real: OpenAI,
    private readonly store: TapeStore,
    private readonly ownsStore: boolean,
    private readonly redact: Redactor,
    private readonly options: RecordOpenAIOptions,
  ) {
    this.clock = options.clock ?? systemClock;
  }

  async create(params: ChatCompletionCreateParamsBase, options?: RequestOptions): Promise<ChatCompletion | Stream<ChatCompletionChunk>> {
    if (this.finished !== undefined) throw new Error(`recordOpenAI: run ${this.runId} is finished; no more calls can be recorded`);
    const recorder = await this.start(params.model);
    const request = this.redact(toLlmRequest(params));
    const delta = requestDelta(this.sent, request.messages);
    this.sent = request.messages;
    const call = { iteration: this.iteration, attempt: this.attempt, started: this.clock.now() };
    await this.write(recorder, {
      type: 'llm_request',
      step: call.iteration,
      iteration: call.iteration,
      hash: requestHash(request),
      ...delta,
      model: request.model,
      stream: request.stream,
      tools: (request.tools ?? []).map((tool) => tool.function.name),
    });
    this.totals.llmCalls++;
    let result: ChatCompletion | Stream<ChatCompletionChunk>;
    try {
      result = await this.real.chat.completions.create(params, options);
    } catch (error) {
      await this.recordError(recorder, call, error, 'request');
      throw error;
    }
    if (!request.stream) {
      const completion = result as ChatCompletion;
      await this.recordResponse(recorder, call, responseFromCompletion(completion) ?? emptyResponse(completion));
      // The SDK's own object, unchanged.
      return completion;
    }
    const stream = result as Stream<ChatCompletionChunk>;
    return new Stream(() => this.recordStream(recorder, call, stream), stream.controller);
  }

  /** Pass the SDK's chunks through as they arrive, recording each; the end is recorded before the caller sees it. */
  private async *recordStream(recorder: RunRecorder, call: Call, stream: Stream<ChatCompletionChunk>): AsyncGenerator<ChatCompletionChunk> {
    const acc = new StreamAccumulator();
    const offset = (): number => this.clock.now() - call.started;
    let settled = false;
    try {
      for await (const chunk of stream) {
        const out = acc.add(chunk, offset());
        if (out !== undefined) await this.write(recorder, { type: 'llm_chunk', step: call.iteration, ...tag(call), chunk: out });
        yield chunk;
      }
      settled = true;
      if (stream.controller.signal.aborted) {
        // The SDK ends an aborted stream quietly; the call did not produce a response.
        const message = 'the model stream was aborted by the caller';
        await this.writeChunk(recorder, call, acc.terminal(offset(), message));
        await this.write(recorder, { type: 'llm_error', step: call.iteration, ...tag(call), kind: 'recoverable', message });
        this.attempt++;
        return;
      }
      const terminal = acc.terminal(offset());
      await this.writeChunk(recorder, call, terminal);
      if (!acc.hasFinishReason) {
        await this.write(recorder, {
          type: 'warning',
          step: call.iteration,
          message: `the model stream closed without a finish reason; assumed '${terminal.finishReason ?? 'stop'}'`,
        });
      }
      await this.recordResponse(recorder, call, acc.response());
    } catch (error) {
      if (settled) throw error;
      settled = true;
      const data = this.classify(error, 'stream');
      // The one terminal chunk goes out before the error reaches the caller (docs/loop.md, Streaming).
      await this.writeChunk(recorder, call, acc.terminal(offset(), data.message));
      await this.recordError(recorder, call, error, 'stream');
      throw error;
    } finally {
      if (!settled) {
        // The caller stopped reading (break/return): it acts on what it got, so that is the response.
        await this.writeChunk(recorder, call, acc.terminal(offset(), 'the caller stopped reading the stream'));
        await this.write(recorder, {
          type: 'warning',
          step: call.iteration,
          message: `the caller stopped reading the stream of iteration ${call.iteration}; recorded what had arrived as the response`,
        });
        await this.recordResponse(recorder, call, acc.response());
      }
    }
  }

  async finish(end: FinishOptions = {}): Promise<RunMeta> {
    this.finished ??= (async () => {
      try {
        const recorder = await this.start('unknown');
        const totals = { ...this.totals };
        const state = end.state ?? 'COMPLETED';
        await this.write(recorder, {
          type: 'run_end',
          step: Math.max(0, this.iteration - 1),
          state,
          reason: end.reason ?? 'finished by the caller',
          totals,
        });
        return await recorder.finish({ finalState: state, totals });
      } finally {
        if (this.ownsStore) await this.store.close();
      }
    })();
    return this.finished;
  }

  /** Create the run at the first call, when its model is known. */
  private start(model: string): Promise<RunRecorder> {
    this.started ??= (async () => {
      const recorder = await RunRecorder.start(
        this.store,
        {
          id: this.runId,
          kind: 'record',
          task: this.options.task ?? 'library run',
          model,
          baseUrl: recordableUrl(this.real.baseURL),
          config: {},
          seed: 0,
          ...(this.options.runName === undefined ? {} : { name: this.options.runName }),
        },
        this.redact,
      );
      this.stamper = new EventStamper(this.clock);
      await this.write(recorder, { type: 'run_start', step: 0, task: recorder.meta.task, model: recorder.meta.model, seed: 0, config: {} });
      return recorder;
    })();
    return this.started;
  }

  /** Stamp and write in one go: seq order is write order. Resolves as durably as the event type requires. */
  private write(recorder: RunRecorder, event: RunEventInput): Promise<void> {
    if (this.stamper === undefined) throw new Error('recordOpenAI: event before run_start');
    return recorder.write(this.stamper.stamp(event));
  }

  private writeChunk(recorder: RunRecorder, call: Call, chunk: LlmChunk): Promise<void> {
    return this.write(recorder, { type: 'llm_chunk', step: call.iteration, ...tag(call), chunk });
  }

  private async recordResponse(recorder: RunRecorder, call: Call, response: LlmResponse): Promise<void> {
    await this.write(recorder, {
      type: 'llm_response',
      step: call.iteration,
      ...tag(call),
      response,
      durationMs: this.clock.now() - call.started,
    });
    this.iteration++;
    this.attempt = 0;
    this.totals.steps++;
    this.totals.toolCalls += response.message.tool_calls?.length ?? 0;
    this.totals.inputTokens += response.usage.inputTokens;
    this.totals.outputTokens += response.usage.outputTokens;
  }

  private async recordError(recorder: RunRecorder, call: Call, error: unknown, phase: 'request' | 'stream'): Promise<void> {
    const data = this.classify(error, phase);
    const event: Extract<RunEventInput, { type: 'llm_error' }> = { type: 'llm_error', step: call.iteration, ...tag(call), kind: data.kind, message: data.message };
    if (data.status !== undefined) event.status = data.status;
    if (data.retryAfterMs !== undefined) event.retryAfterMs = data.retryAfterMs;
    await this.write(recorder, event);
    this.attempt++;
  }

  private classify(error: unknown, phase: 'request' | 'stream'): ReturnType<typeof classify> {
    return classify(error, phase, recordableUrl(this.real.baseURL), this.real.timeout, Date.now);
  }
}

interface Call {
  iteration: number;
  attempt: number;
  started: number;
}

const tag = (call: Call): { iteration: number; attempt: number } => ({ iteration: call.iteration, attempt: call.attempt });

/** A completion with no choice still counts as an answer the agent got: record it as empty. */
function emptyResponse(completion: ChatCompletion): LlmResponse {
  const response: LlmResponse = {
    message: { role: 'assistant', content: null },
    finishReason: 'unknown',
    usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
  };
  if (completion.model !== '') response.model = completion.model;
  return response;
}

/** The base URL as it may be recorded: no credentials, no query. */
function recordableUrl(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    url.username = '';
    url.password = '';
    url.search = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return '';
  }
}
