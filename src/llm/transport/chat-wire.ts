/**
 * Chat Completions on the wire (`POST …/chat/completions`), for recording and replaying at the
 * transport: the SDK shapes of sdk-request.ts and sdk-response.ts, with every parameter that
 * affects the answer kept in `params`.
 */
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import type { LlmRequest, LlmResponse } from '../../core/llm.js';
import { toLlmRequest } from '../sdk-request.js';
import { chunksFromRecorded, chunksFromResponse, completionFromResponse, responseFromCompletion } from '../sdk-response.js';
import { StreamAccumulator, type CompletionChunkLike } from '../stream-accumulator.js';
import type { ModelWire, SseEvent, WireStream } from './wire.js';

/**
 * Body fields that are part of `LlmRequest` itself and on the tape, or that label or route a call
 * without changing its answer. (`temperature` and the max tokens are in `LlmRequest` but not on the
 * tape: they stay in `params`, so a divergence can name them.)
 */
const NOT_PARAMS = new Set([
  'model', 'messages', 'tools', 'stream',
  'user', 'metadata', 'store', 'stream_options', 'service_tier', 'prompt_cache_key', 'safety_identifier',
]);

export const chatWire: ModelWire = {
  endpoint: 'chat',

  replyId: (run, iteration) => `chatcmpl-replay-${run}-${iteration}`,

  request(body: Record<string, unknown>): LlmRequest {
    if (typeof body.model !== 'string' || !Array.isArray(body.messages)) throw new TypeError('not a chat completion request (no model or messages)');
    const request = toLlmRequest(body as unknown as ChatCompletionCreateParamsBase);
    const params = paramsOf(body, NOT_PARAMS);
    if (params !== undefined) request.params = params;
    return request;
  },

  response(body: unknown): LlmResponse {
    const completion = body as ChatCompletion;
    if (completion === null || typeof completion !== 'object' || !Array.isArray(completion.choices)) {
      throw new TypeError('not a chat completion (no choices)');
    }
    return responseFromCompletion(completion) ?? emptyResponse(completion);
  },

  stream(): WireStream {
    const acc = new StreamAccumulator();
    let done = false;
    return {
      add(event: SseEvent, offsetMs: number) {
        if (event.data.trim() === '[DONE]') {
          done = true;
          return undefined;
        }
        let chunk: CompletionChunkLike;
        try {
          chunk = JSON.parse(event.data) as CompletionChunkLike;
        } catch {
          return undefined; // not JSON: nothing the answer is made of (the raw event is still kept)
        }
        return acc.add(chunk, offsetMs);
      },
      get done() {
        return done;
      },
      get hasFinishReason() {
        return acc.hasFinishReason;
      },
      terminal: (offsetMs, error) => acc.terminal(offsetMs, error),
      response: () => acc.response(),
    };
  },

  replyBody: (response, labels) => completionFromResponse(response, labels),

  replyEvents(response, labels, request, chunks) {
    const includeUsage = (request.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    const sdkChunks: ChatCompletionChunk[] = chunks === undefined
      ? chunksFromResponse(response, labels, includeUsage)
      : chunksFromRecorded(chunks, response, labels, includeUsage);
    return [...sdkChunks.map((chunk) => ({ data: JSON.stringify(chunk) })), { data: '[DONE]' }];
  },
};

/** The body's other fields, when there are any. */
export function paramsOf(body: Record<string, unknown>, exclude: ReadonlySet<string>): Record<string, unknown> | undefined {
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (!exclude.has(key) && value !== undefined) params[key] = value;
  }
  return Object.keys(params).length > 0 ? params : undefined;
}

/** A completion with no choice still counts as an answer the agent got: record it as empty. */
function emptyResponse(completion: ChatCompletion): LlmResponse {
  const response: LlmResponse = {
    message: { role: 'assistant', content: null },
    finishReason: 'unknown',
    usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
  };
  if (typeof completion.model === 'string' && completion.model !== '') response.model = completion.model;
  return response;
}
