/**
 * The `LlmClient` for any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM,
 * llama.cpp). The only module that imports `openai` (DESIGN.md fences). It makes exactly one HTTP
 * call per `complete()`: the SDK's own retries are off, because the provider runner owns retrying
 * (with seeded jitter, so a replay waits the same).
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { createRedactor, type Redactor } from '../core/redact.js';
import { LlmError } from '../core/llm-error.js';
import type { LlmCallOptions, LlmClient, LlmRequest, LlmResponse } from '../core/llm.js';
import { parseRetryAfter } from './retry-after.js';
import { toSdkParams } from './sdk-request.js';
import { responseFromCompletion } from './sdk-response.js';
import { StreamAccumulator } from './stream-accumulator.js';

export interface OpenAiLlmOptions {
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  baseURL: string;
  /** Sent as the bearer token; local servers accept a placeholder such as `not-needed`. Never logged. */
  apiKey: string;
  /** Time allowed until the server starts answering, and between two chunks of a stream. Default 600 000. */
  timeoutMs?: number;
  /** Measures chunk offsets. Default: the system clock. */
  clock?: Clock;
  /**
   * Wall-clock time in epoch milliseconds, only for reading `Retry-After: <HTTP date>`. Default
   * `Date.now`: this adapter is the I/O edge, so the real date is allowed here and nowhere else.
   */
  wallClock?: () => number;
}

const DEFAULT_TIMEOUT_MS = 600_000;

/** The message of a 200 answer with nothing to read: no choice, or a choice without a message. */
export const NO_USABLE_CHOICES = "the model's answer had no usable choices";

export class OpenAiLlm implements LlmClient {
  private readonly client: OpenAI;
  private readonly baseURL: string;
  /** Error text from the server can echo the key back: scrubbed before anyone sees it. */
  private readonly redact: Redactor;
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private readonly wallClock: () => number;

  constructor(options: OpenAiLlmOptions) {
    this.baseURL = options.baseURL;
    this.redact = createRedactor({ secrets: [options.apiKey] });
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.clock = options.clock ?? systemClock;
    this.wallClock = options.wallClock ?? Date.now;
    this.client = new OpenAI({
      baseURL: options.baseURL,
      // The SDK refuses an empty key; local servers ignore it anyway.
      apiKey: options.apiKey === '' ? 'not-needed' : options.apiKey,
      maxRetries: 0,
      timeout: this.timeoutMs,
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
    let completion: ChatCompletion;
    try {
      completion = await this.client.chat.completions.create(
        { ...toSdkParams(request), stream: false },
        { signal: options.signal ?? null },
      );
    } catch (error) {
      throw this.failure(error, options.signal, 'request');
    }
    return this.fromCompletion(completion);
  }

  private fromCompletion(completion: ChatCompletion): LlmResponse {
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
    // Our own controller: the caller's signal aborts it, and so does the idle timer. The SDK ends
    // iteration silently on abort, so afterwards we look at `reason` to tell which one it was.
    const local = new AbortController();
    const onAbort = (): void => local.abort(options.signal?.reason);
    if (options.signal?.aborted === true) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const idleTimeout = new IdleTimeout();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => local.abort(idleTimeout), this.timeoutMs);
    };
    try {
      const stream = await this.client.chat.completions.create(
        { ...toSdkParams(request), stream: true, stream_options: { include_usage: true } },
        { signal: local.signal },
      );
      arm();
      for await (const chunk of stream) {
        arm();
        const out = acc.add(chunk, offset());
        if (out !== undefined) deliver(options, out);
      }
      if (local.signal.aborted) throw local.signal.reason;
      if (!acc.hasChoices) throw new LlmError({ kind: 'recoverable', message: NO_USABLE_CHOICES });
    } catch (error) {
      if (error instanceof CallbackError) throw error.inner;
      const failure = local.signal.reason === idleTimeout
        ? new LlmError({ kind: 'recoverable', message: `the model stream stalled: no data for ${this.timeoutMs} ms (timeout)` })
        : this.failure(error, options.signal, 'stream');
      // The one terminal chunk goes out before the error reaches the retry logic (SPEC §7, Streaming).
      options.onChunk?.(acc.terminal(offset(), failure.message));
      throw failure;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
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
    const data = classify(error, phase, this.baseURL, this.timeoutMs, this.wallClock);
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

class IdleTimeout extends Error {}

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

type Classified = ConstructorParameters<typeof LlmError>[0];

/**
 * SPEC §7.3: 429, 5xx, 408, connection errors, timeouts and broken streams are recoverable;
 * every other 4xx is fatal. Exported for tests.
 */
export function classify(error: unknown, phase: 'request' | 'stream', baseURL: string, timeoutMs: number, wallClock: () => number): Classified {
  if (error instanceof APIUserAbortError) return { kind: 'recoverable', message: 'the model call was aborted' };
  if (error instanceof APIConnectionTimeoutError) {
    return { kind: 'recoverable', message: `the model server at ${baseURL} did not answer within ${timeoutMs} ms (timeout)` };
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${describeCause(error.cause)}` : '';
    return {
      kind: 'recoverable',
      message: `could not reach the model server at ${baseURL}${cause} — is it running? Point agentctl at one with --base-url or OPENAI_BASE_URL`,
    };
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const said = serverMessage(error);
    const retryAfterMs = parseRetryAfter((name) => error.headers?.get(name), wallClock());
    const data: Classified = { kind: status === 408 || status === 429 || status >= 500 ? 'recoverable' : 'fatal', status, message: '' };
    if (retryAfterMs !== undefined) data.retryAfterMs = retryAfterMs;
    switch (status) {
      case 401:
        data.message = 'the model server refused the API key (401) — set OPENAI_API_KEY';
        break;
      case 403:
        data.message = `the model server denied access (403)${said} — check the API key's permissions`;
        break;
      case 404:
        data.message = `the model server has no such model or endpoint (404)${said} — check --model and --base-url`;
        break;
      case 429:
        data.message = `the model server is rate limiting requests (429)${said}`;
        break;
      default:
        data.message = `the model server answered ${status}${said}`;
    }
    return data;
  }
  if (error instanceof APIError) {
    // An `error` object inside an SSE stream: the server gave up mid-answer.
    return { kind: 'recoverable', message: `the model stream reported an error${serverMessage(error)}` };
  }
  const text = error instanceof Error ? describeCause(error) : String(error);
  if (phase === 'stream') return { kind: 'recoverable', message: `the model stream broke: ${text}` };
  return { kind: 'recoverable', message: `the model call failed: ${text}` };
}

/** What the server said, as `: text`, or '' — from the JSON error body, else the plain-text body. */
function serverMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  let text = typeof body?.message === 'string' ? body.message : '';
  if (text === '' && body === undefined && typeof error.status === 'number') {
    // The SDK puts a non-JSON body in the message, after the status.
    text = error.message.startsWith(`${error.status} `) ? error.message.slice(`${error.status} `.length) : '';
    if (/^status code \(no body\)$/.test(text)) text = '';
  }
  text = text.replace(/\s+/g, ' ').trim();
  // An HTML error page from a proxy is not worth printing in full.
  if (text.length > MAX_SERVER_MESSAGE) text = `${text.slice(0, MAX_SERVER_MESSAGE)}…`;
  return text === '' ? '' : `: ${text}`;
}

const MAX_SERVER_MESSAGE = 300;

function describeCause(error: Error): string {
  const code = (error as { code?: unknown }).code;
  const inner = error.cause instanceof Error ? ` (${describeCause(error.cause)})` : '';
  return `${error.message}${typeof code === 'string' && !error.message.includes(code) ? ` [${code}]` : ''}${inner}`;
}

