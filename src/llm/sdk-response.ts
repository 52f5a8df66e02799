/**
 * Responses between the `openai` SDK's shape and ours: `ChatCompletion` ⇄ `LlmResponse`, and a
 * stream of `ChatCompletionChunk`s rebuilt from recorded `LlmChunk`s (or synthesized from a whole
 * response). The reverse direction for chunks — SDK chunks to `LlmChunk`s — is StreamAccumulator.
 */
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { FinishReason, LlmChunk, LlmResponse, Usage } from '../core/llm.js';
import type { AssistantMessage, ToolCall } from '../core/messages.js';
import { inferFinishReason, mapFinishReason, mapUsage } from './stream-accumulator.js';

/** Our response for an SDK completion; `undefined` when it has no choice to read. */
export function responseFromCompletion(completion: ChatCompletion): LlmResponse | undefined {
  const choice = completion.choices[0];
  if (choice === undefined) return undefined;
  const calls = (choice.message.tool_calls ?? []).flatMap((call): ToolCall[] =>
    call.type === 'function'
      ? [{ id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } }]
      : [],
  );
  const message: AssistantMessage = { role: 'assistant', content: choice.message.content ?? null };
  if (calls.length > 0) message.tool_calls = calls;
  const response: LlmResponse = {
    message,
    finishReason: mapFinishReason(choice.finish_reason) ?? inferFinishReason(message),
    usage: mapUsage(completion.usage),
  };
  if (completion.model !== '') response.model = completion.model;
  return response;
}

/** What a rebuilt completion or chunk is labelled with. Replays pass values derived from the tape, never the clock. */
export interface CompletionLabels {
  id: string;
  /** Unix seconds. */
  created: number;
  /** Used when the response does not name its model. */
  model: string;
}

type SdkFinishReason = ChatCompletion.Choice['finish_reason'];

/** Ours → the SDK's; `unknown` (a provider reason we did not know) becomes what the message suggests. */
export function sdkFinishReason(reason: FinishReason, message: AssistantMessage): SdkFinishReason {
  if (reason !== 'unknown') return reason;
  return message.tool_calls !== undefined && message.tool_calls.length > 0 ? 'tool_calls' : 'stop';
}

function sdkUsage(usage: Usage): CompletionUsage {
  const total = usage.inputTokens + usage.outputTokens;
  return { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: total };
}

/** A `ChatCompletion` carrying a recorded (or patched) response. */
export function completionFromResponse(response: LlmResponse, labels: CompletionLabels): ChatCompletion {
  const message: ChatCompletion.Choice['message'] = { role: 'assistant', content: response.message.content, refusal: null };
  if (response.message.tool_calls !== undefined && response.message.tool_calls.length > 0) {
    message.tool_calls = response.message.tool_calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments },
    }));
  }
  return {
    id: labels.id,
    object: 'chat.completion',
    created: labels.created,
    model: response.model ?? labels.model,
    choices: [{ index: 0, message, finish_reason: sdkFinishReason(response.finishReason, response.message), logprobs: null }],
    usage: sdkUsage(response.usage),
  };
}

type Delta = ChatCompletionChunk.Choice.Delta;

function chunkMaker(response: LlmResponse, labels: CompletionLabels) {
  const base = { id: labels.id, object: 'chat.completion.chunk' as const, created: labels.created, model: response.model ?? labels.model };
  return {
    choice: (delta: Delta, finish: SdkFinishReason | null = null): ChatCompletionChunk => ({
      ...base,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    }),
    usage: (): ChatCompletionChunk => ({ ...base, choices: [], usage: sdkUsage(response.usage) }),
  };
}

/**
 * The SDK chunks of a recorded stream, in the order a server sends them: a role-only opener, one
 * chunk per recorded chunk (the terminal one adds nothing: it only marks the end), then — when the
 * request asked for it with `stream_options.include_usage` — the usage trailer. A finish reason is
 * sent only where the recording had one, so a stream that arrived without one replays without one.
 */
export function chunksFromRecorded(
  chunks: readonly LlmChunk[],
  response: LlmResponse,
  labels: CompletionLabels,
  includeUsage: boolean,
): ChatCompletionChunk[] {
  const make = chunkMaker(response, labels);
  const out = [make.choice({ role: 'assistant', content: '' })];
  for (const chunk of chunks) {
    if (chunk.finished) continue;
    const delta: Delta = {};
    if (chunk.content !== undefined) delta.content = chunk.content;
    if (chunk.toolCalls !== undefined) {
      delta.tool_calls = chunk.toolCalls.map((call) => {
        const fn: { name?: string; arguments: string } = { arguments: call.arguments ?? '' };
        if (call.name !== undefined) fn.name = call.name;
        if (call.id === undefined) return { index: call.index, function: fn };
        return { index: call.index, id: call.id, type: 'function' as const, function: fn };
      });
    }
    const reason = chunk.finishReason === undefined ? null : sdkFinishReason(chunk.finishReason, response.message);
    out.push(make.choice(delta, reason));
  }
  if (includeUsage) out.push(make.usage());
  return out;
}

/** The SDK chunks of a whole response (recorded without streaming, or a patch), as one piece per part. */
export function chunksFromResponse(
  response: LlmResponse,
  labels: CompletionLabels,
  includeUsage: boolean,
): ChatCompletionChunk[] {
  const make = chunkMaker(response, labels);
  const out = [make.choice({ role: 'assistant', content: '' })];
  const { content, tool_calls: calls = [] } = response.message;
  if (content !== null && content !== '') out.push(make.choice({ content }));
  calls.forEach((call, index) => {
    out.push(make.choice({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } }],
    }));
  });
  out.push(make.choice({}, sdkFinishReason(response.finishReason, response.message)));
  if (includeUsage) out.push(make.usage());
  return out;
}
