/**
 * replayOpenAI: a drop-in `chat.completions.create` served from a recorded run, for agents written
 * directly on the `openai` SDK. Call i (0-based, counting calls that got an answer) gets the i-th
 * recorded response — a `ChatCompletion`, or for `stream: true` an SDK `Stream` of chunks rebuilt
 * from the recorded ones (synthesized when the recording did not stream). No network is used.
 *
 * Each request is hashed the way the recorder hashed it (over the redacted request) and compared
 * with the recorded hash; a mismatch is reported in `replay.divergences` with the first differing
 * message, never thrown. `patches[i]` replaces response i (the tape entry is still consumed, so
 * later calls stay aligned; divergences after a patch are marked expected). When the tape runs
 * out: TapeExhaustedError ("tape exhausted at iteration K"), or the fallback client takes this and
 * every later call (`replay.liveCalls`).
 */
import { APIUserAbortError } from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { Stream } from 'openai/streaming';
import { applyDelta, requestHash } from '../agent/request-delta.js';
import { TapeExhaustedError, UsageError } from '../core/errors.js';
import type { LlmResponse } from '../core/llm.js';
import type { AssistantMessage, ChatMessage, ToolCall } from '../core/messages.js';
import { runRedactor, type Redactor } from '../core/redact.js';
import type { RunMeta } from '../core/run-meta.js';
import { openTapeFile } from '../tape/tape-file.js';
import { TapeStore } from '../tape/tape-store.js';
import { chatClient, type ChatCompletionsClient, type RequestOptions } from './chat-client.js';
import { readRecordedCalls, type RecordedCall } from './recorded-calls.js';
import { firstDifference, type RequestDifference } from './request-diff.js';
import { toLlmRequest } from './sdk-request.js';
import { chunksFromRecorded, chunksFromResponse, completionFromResponse, type CompletionLabels } from './sdk-response.js';
import { inferFinishReason } from './stream-accumulator.js';

/** A replacement response: its text, or an assistant message (text and/or tool calls). */
export type PatchResponse = string | { content?: string | null; tool_calls?: ToolCall[] };

export interface ReplayOpenAIOptions {
  /** A tape file (`.tape.jsonl`, `.tape.jsonl.gz`), or a run (id, id prefix or name) in a store or store directory. */
  tape: string | { store: TapeStore | string; run: string };
  /** Replace the response of call N (0-based). */
  patches?: Record<number, PatchResponse>;
  /** When the tape runs out: throw (default), or send this and every later call to this client. */
  fallback?: 'error' | ChatCompletionsClient;
  /** Extra redaction patterns the recording used, so requests hash the same. */
  redact?: string[];
}

export interface ReplayedCall {
  /** 0-based position of the call. */
  iteration: number;
  source: 'tape' | 'patch' | 'live';
  /** Whether the request hashed to the recorded one; null when the tape has no request for it. */
  matched: boolean | null;
  /** Matched after an earlier request had diverged: the replay is back in sync. */
  resynced: boolean;
}

/** A request that differs from the recorded one at the same position. */
export interface RequestDivergence extends RequestDifference {
  iteration: number;
  recordedHash: string;
  replayedHash: string;
  /** True when an earlier patch explains it. */
  expected: boolean;
}

/** What the replay has done so far. Live views: read them at any time. */
export interface ReplayState {
  /** The recorded run being replayed. */
  readonly run: RunMeta;
  readonly calls: readonly ReplayedCall[];
  readonly divergences: readonly RequestDivergence[];
  /** Calls sent to the fallback client. */
  readonly liveCalls: number;
  /** Recorded responses not served yet. */
  readonly remaining: number;
}

export interface ReplayedOpenAI extends ChatCompletionsClient {
  replay: ReplayState;
}

/** Load a recorded run and return a client that serves it. */
export async function replayOpenAI(options: ReplayOpenAIOptions): Promise<ReplayedOpenAI> {
  const patches = parsePatches(options.patches ?? {});
  // The same redactor as the recorder's (env secrets too), so the same request hashes the same.
  const redact = runRedactor({ patterns: options.redact ?? [] });
  const { run, calls } = await loadRun(options.tape);
  const replayer = new TapeReplayer(run, calls, patches, options.fallback ?? 'error', redact);
  return Object.assign(chatClient((body, requestOptions) => replayer.create(body, requestOptions)), { replay: replayer.state });
}

async function loadRun(tape: ReplayOpenAIOptions['tape']): Promise<{ run: RunMeta; calls: RecordedCall[] }> {
  if (typeof tape === 'string') {
    const file = await openTapeFile(tape);
    return { run: file.meta, calls: await readRecordedCalls(file.events()) };
  }
  const store = typeof tape.store === 'string' ? await TapeStore.open(tape.store, { create: false }) : tape.store;
  try {
    const run = await store.resolveRun(tape.run);
    return { run, calls: await readRecordedCalls(store.readEvents(run.id)) };
  } finally {
    if (typeof tape.store === 'string') await store.close();
  }
}

class TapeReplayer {
  private readonly calls: ReplayedCall[] = [];
  private readonly divergences: RequestDivergence[] = [];
  private liveCalls = 0;
  private next = 0;
  /** The recorded request messages, rebuilt call by call from the deltas. */
  private recordedSent: ChatMessage[] = [];
  private firstPatch = Infinity;
  private diverged = false;
  readonly state: ReplayState;

  constructor(
    run: RunMeta,
    private readonly tape: readonly RecordedCall[],
    private readonly patches: ReadonlyMap<number, LlmResponse>,
    private readonly fallback: 'error' | ChatCompletionsClient,
    private readonly redact: Redactor,
  ) {
    const live = (): number => this.liveCalls;
    const remaining = (): number => Math.max(0, this.tape.length - this.next);
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
    };
  }

  async create(params: ChatCompletionCreateParamsBase, options?: RequestOptions): Promise<ChatCompletion | Stream<ChatCompletionChunk>> {
    if (options?.signal?.aborted === true) throw new APIUserAbortError();
    const iteration = this.calls.length;
    const recorded = this.tape[this.next];
    const patch = this.patches.get(iteration);
    if (recorded === undefined && patch === undefined) {
      if (this.fallback === 'error') throw new TapeExhaustedError(iteration);
      this.liveCalls++;
      const result = await this.fallback.chat.completions.create(params, options);
      this.calls.push({ iteration, source: 'live', matched: null, resynced: false });
      return result;
    }
    let matched: boolean | null = null;
    let resynced = false;
    if (recorded !== undefined) {
      this.next++;
      matched = this.check(iteration, params, recorded);
      resynced = matched && this.diverged;
      this.diverged = !matched;
    }
    if (patch !== undefined) this.firstPatch = Math.min(this.firstPatch, iteration);
    this.calls.push({ iteration, source: patch === undefined ? 'tape' : 'patch', matched, resynced });
    const response = patch ?? (recorded as RecordedCall).response;
    const labels: CompletionLabels = { id: `chatcmpl-replay-${this.state.run.id}-${iteration}`, created: this.created(), model: params.model };
    if (params.stream !== true) return completionFromResponse(response, labels);
    const includeUsage = params.stream_options?.include_usage === true;
    const chunks = patch === undefined && recorded?.chunks !== undefined
      ? chunksFromRecorded(recorded.chunks, response, labels, includeUsage)
      : chunksFromResponse(response, labels, includeUsage);
    const controller = new AbortController();
    options?.signal?.addEventListener('abort', () => controller.abort(), { once: true });
    return new Stream(() => serve(chunks, controller.signal), controller);
  }

  /** Compare the request with the recorded one; a mismatch is reported, never thrown. */
  private check(iteration: number, params: ChatCompletionCreateParamsBase, recorded: RecordedCall): boolean {
    for (const delta of recorded.requests) this.recordedSent = applyDelta(this.recordedSent, delta);
    const last = recorded.requests.at(-1);
    if (last === undefined) return true; // nothing recorded to compare with
    const request = this.redact(toLlmRequest(params));
    const hash = requestHash(request);
    if (hash === last.hash) return true;
    const difference = firstDifference({ ...last, messages: this.recordedSent }, request);
    this.divergences.push({ iteration, recordedHash: last.hash, replayedHash: hash, expected: iteration > this.firstPatch, ...difference });
    return false;
  }

  /** Unix seconds of the recording: deterministic, unlike the clock. */
  private created(): number {
    const ms = Date.parse(this.state.run.createdAt);
    return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
  }
}

async function* serve(chunks: readonly ChatCompletionChunk[], signal: AbortSignal): AsyncGenerator<ChatCompletionChunk> {
  for (const chunk of chunks) {
    // Like the SDK: an aborted stream just ends.
    if (signal.aborted) return;
    yield chunk;
  }
}

function parsePatches(patches: Record<number, PatchResponse>): Map<number, LlmResponse> {
  const out = new Map<number, LlmResponse>();
  for (const [key, patch] of Object.entries(patches)) {
    if (!/^\d+$/.test(key)) throw new UsageError(`patch key '${key}' is not an iteration number (0, 1, 2, …)`);
    out.set(Number(key), patchResponse(patch as PatchResponse));
  }
  return out;
}

function patchResponse(patch: PatchResponse): LlmResponse {
  const message: AssistantMessage = typeof patch === 'string'
    ? { role: 'assistant', content: patch }
    : { role: 'assistant', content: patch.content ?? null };
  if (typeof patch !== 'string' && patch.tool_calls !== undefined && patch.tool_calls.length > 0) {
    message.tool_calls = patch.tool_calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments },
    }));
  }
  return { message, finishReason: inferFinishReason(message), usage: { inputTokens: 0, outputTokens: 0 } };
}
