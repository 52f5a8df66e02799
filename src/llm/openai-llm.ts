/**
 * The `LlmClient` for any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM,
 * llama.cpp). The only module that imports `openai` (README, "Development"). It makes exactly one HTTP
 * call per `complete()`: the SDK's own retries are off, because the provider runner owns retrying
 * (with seeded jitter, so a replay waits the same). A request that takes too long as a whole, a
 * stream that goes silent, and a 200 answer without a usable choice are recoverable `LlmError`s.
 */
import OpenAI from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { AgentConfig } from '../agent/config.js';
import { systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { createRedactor, type Redactor } from '../core/redact.js';
import { LlmError } from '../core/llm-error.js';
import type { LlmCallOptions, LlmClient, LlmRequest, LlmResponse } from '../core/llm.js';
import { CallTimeouts, MAX_TIMER_MS } from './call-timeouts.js';
import { classify } from './classify-error.js';
import { toSdkParams } from './sdk-request.js';
import { responseFromCompletion } from './sdk-response.js';
import { StreamAccumulator } from './stream-accumulator.js';

export { classify } from './classify-error.js';

export interface OpenAiLlmOptions {
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseURL: string;
  /** Sent as the bearer token; local servers accept a placeholder such as `not-needed`. Never logged. */
  apiKey: string;
  /**
   * How long one request may take as a whole — for a stream, until its last chunk — before it is
   * a recoverable error; 0 = no limit. Default 180 000 (`limits.requestTimeoutMs`).
   */
  requestTimeoutMs?: number;
  /**
   * How long a stream may send nothing (from its response headers on) before it is a recoverable
   * error; 0 = no limit. Default 60 000 (`limits.streamIdleTimeoutMs`).
   */
  streamIdleTimeoutMs?: number;
  /** @deprecated Both limits at once; `requestTimeoutMs` and `streamIdleTimeoutMs` win when given. */
  timeoutMs?: number;
  /** Measures chunk offsets. Default: the system clock. */
  clock?: Clock;
  /**
   * Wall-clock time in epoch milliseconds, only for reading `Retry-After: <HTTP date>`. Default
   * `Date.now`: this adapter is the I/O edge, so the real date is allowed here and nowhere else.
   */
  wallClock?: () => number;
}

/** Defaults of `limits.requestTimeoutMs` and `limits.streamIdleTimeoutMs`. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 180_000;
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 60_000;

/**
 * The client a run's config asks for: the endpoint, with the config's time limits. `record` (through
 * prepareRun) and a replay's `--fallback live` both build theirs here, so a live model call is bounded
 * by `limits.requestTimeoutMs` and `limits.streamIdleTimeoutMs` whichever command makes it.
 */
export function openAiLlmFor(config: Pick<AgentConfig, 'limits'>, endpoint: { baseURL: string; apiKey: string }, clock?: Clock): OpenAiLlm {
  const { requestTimeoutMs, streamIdleTimeoutMs } = config.limits;
  const { baseURL, apiKey } = endpoint;
  return new OpenAiLlm({ baseURL, apiKey, requestTimeoutMs, streamIdleTimeoutMs, ...(clock === undefined ? {} : { clock }) });
}

/** The message of a 200 answer with nothing to read: no choice, or a choice without a message. */
export const NO_USABLE_CHOICES = "the model's answer had no usable choices";

/** An `LlmClient` talking to an OpenAI-compatible server over HTTP. */
export class OpenAiLlm implements LlmClient {
  private readonly client: OpenAI;
  private readonly baseURL: string;
  /** Error text from the server can echo the key back: scrubbed before anyone sees it. */
  private readonly redact: Redactor;
  private readonly requestTimeoutMs: number;
  private readonly idleTimeoutMs: number;
  private readonly clock: Clock;
  private readonly wallClock: () => number;

  constructor(options: OpenAiLlmOptions) {
    this.baseURL = options.baseURL;
    this.redact = createRedactor({ secrets: [options.apiKey] });
    this.requestTimeoutMs = options.requestTimeoutMs ?? options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.idleTimeoutMs = options.streamIdleTimeoutMs ?? options.timeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
    this.clock = options.clock ?? systemClock;
    this.wallClock = options.wallClock ?? Date.now;
    this.client = new OpenAI({
      baseURL: options.baseURL,
      // The SDK refuses an empty key; local servers ignore it anyway.
      apiKey: options.apiKey === '' ? 'not-needed' : options.apiKey,
      maxRetries: 0,
      // Our own timers bound the request (CallTimeouts), with messages that name the setting.
      timeout: MAX_TIMER_MS,
      // Nothing from the SDK reaches the terminal; failures surface as LlmErrors.
      logLevel: 'off',
      organization: null,
      project: null,
    });
  }

  complete(request: LlmRequest, options: LlmCallOptions = {}): Promise<LlmResponse> {
    return request.stream ? this.streamed(request, options) : this.whole(request, options);
  }

  private async whole(request: LlmRequest, options: LlmCallOptions): Promise<LlmResponse> {
    const limits = new CallTimeouts(options.signal, this.requestTimeoutMs, 0);
    let completion: ChatCompletion;
    try {
      completion = await this.client.chat.completions.create({ ...toSdkParams(request), stream: false }, { signal: limits.signal });
    } catch (error) {
      throw limits.timeout() ?? this.failure(error, options.signal, 'request');
    } finally {
      limits.dispose();
    }
    // The SDK hands over whatever JSON (or text) a 200 carried.
    if (!hasUsableChoice(completion)) throw new LlmError({ kind: 'recoverable', message: NO_USABLE_CHOICES });
    const response = responseFromCompletion(completion);
    if (response === undefined) throw new LlmError({ kind: 'recoverable', message: NO_USABLE_CHOICES });
    return response;
  }

  private async streamed(request: LlmRequest, options: LlmCallOptions): Promise<LlmResponse> {
    const started = this.clock.now();
    const offset = (): number => this.clock.now() - started;
    const acc = new StreamAccumulator();
    // The SDK ends iteration silently on abort, so afterwards we look at why the signal was aborted.
    const limits = new CallTimeouts(options.signal, this.requestTimeoutMs, this.idleTimeoutMs);
    try {
      const stream = await this.client.chat.completions.create(
        { ...toSdkParams(request), stream: true, stream_options: { include_usage: true } },
        { signal: limits.signal },
      );
      limits.touch();
      for await (const chunk of stream) {
        limits.touch();
        const out = acc.add(chunk, offset());
        if (out !== undefined) deliver(options, out);
      }
      if (limits.signal.aborted) throw limits.signal.reason;
      if (!acc.hasChoices) throw new LlmError({ kind: 'recoverable', message: NO_USABLE_CHOICES });
    } catch (error) {
      if (error instanceof CallbackError) throw error.inner;
      const failure = limits.timeout() ?? this.failure(error, options.signal, 'stream');
      // The one terminal chunk goes out before the error reaches the retry logic (docs/loop.md, Streaming).
      options.onChunk?.(acc.terminal(offset(), failure.message));
      throw failure;
    } finally {
      limits.dispose();
    }
    const terminal = acc.terminal(offset());
    options.onChunk?.(terminal);
    if (!acc.hasFinishReason) {
      options.onWarning?.(`the model stream closed without a finish reason; assumed '${terminal.finishReason ?? 'stop'}'`);
    }
    return acc.response();
  }

  /** Turn anything the SDK threw into an LlmError (or the caller's abort reason). */
  private failure(error: unknown, signal: AbortSignal | undefined, phase: 'request' | 'stream'): Error {
    if (signal?.aborted === true) return abortReason(signal);
    if (error instanceof LlmError) return error;
    const data = classify(error, phase, this.baseURL, this.requestTimeoutMs, this.wallClock);
    return new LlmError({ ...data, message: this.redact(data.message) });
  }
}

/** True when a completion has a first choice with a message object to read. */
function hasUsableChoice(completion: unknown): completion is ChatCompletion {
  if (typeof completion !== 'object' || completion === null) return false;
  const choices = (completion as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return false;
  const choice: unknown = choices[0];
  if (typeof choice !== 'object' || choice === null) return false;
  const message = (choice as { message?: unknown }).message;
  if (typeof message !== 'object' || message === null) return false;
  const { content, tool_calls: calls } = message as { content?: unknown; tool_calls?: unknown };
  return (content === undefined || content === null || typeof content === 'string') && (calls === undefined || calls === null || Array.isArray(calls));
}

/** Thrown around an error raised by the caller's own callback, so it is never taken for a broken stream. */
class CallbackError extends Error {
  constructor(readonly inner: unknown) {
    super('onChunk callback failed');
  }
}

function deliver(options: LlmCallOptions, chunk: Parameters<NonNullable<LlmCallOptions['onChunk']>>[0]): void {
  try {
    options.onChunk?.(chunk);
  } catch (error) {
    throw new CallbackError(error);
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('the model call was aborted', 'AbortError');
}
