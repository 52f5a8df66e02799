/**
 * Replies of Anthropic's Messages API, written from our `LlmResponse` (a patch, a run recorded by
 * `agentctl record`, or a transport recording without its raw events): the `Message` body and the
 * server-sent event sequence `@anthropic-ai/sdk` reads (`messages.create`, `messages.stream`). The
 * shapes are structural (see anthropic-wire.ts).
 */
import type { FinishReason, LlmChunk, LlmResponse } from '../../core/llm.js';
import type { ToolCall } from '../../core/messages.js';
import { pieces, recordedArguments, recordedText } from './reply-pieces.js';
import type { ReplyLabels, SseEvent } from './wire.js';
import { isRecord, parseJson } from './wire-json.js';

type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal';

interface TextBlock {
  type: 'text';
  text: string;
  citations: null;
}

interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

type ContentBlock = TextBlock | ToolUseBlock;

interface MessageUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

interface MessageBody {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: null;
  usage: MessageUsage;
}

function stopReasonOf(reason: FinishReason, hasCalls: boolean): StopReason {
  if (reason === 'length') return 'max_tokens';
  if (reason === 'content_filter') return 'refusal';
  if (reason === 'tool_calls' || (reason === 'unknown' && hasCalls)) return 'tool_use';
  return 'end_turn';
}

/** A call's arguments as the block's input: the object they are, or `{}` when they are not one. */
function inputOf(call: ToolCall): unknown {
  const value = call.function.arguments === '' ? {} : parseJson(call.function.arguments);
  return isRecord(value) ? value : {};
}

function usageOf(response: LlmResponse, outputTokens: number): MessageUsage {
  return { input_tokens: response.usage.inputTokens, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

export function replyBody(response: LlmResponse, labels: ReplyLabels): MessageBody {
  const { content, tool_calls: calls = [] } = response.message;
  const blocks: ContentBlock[] = content !== null && content !== '' ? [{ type: 'text', text: content, citations: null }] : [];
  blocks.push(...calls.map((call): ToolUseBlock => ({ type: 'tool_use', id: call.id, name: call.function.name, input: inputOf(call) })));
  return {
    ...shell(response, labels),
    content: blocks,
    stop_reason: stopReasonOf(response.finishReason, calls.length > 0),
    usage: usageOf(response, response.usage.outputTokens),
  };
}

/** The message as `message_start` carries it: no content, no stop reason yet. */
function shell(response: LlmResponse, labels: ReplyLabels): MessageBody {
  return {
    id: labels.id,
    type: 'message',
    role: 'assistant',
    model: response.model ?? labels.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: usageOf(response, 0),
  };
}

function event(type: string, fields: Record<string, unknown>): SseEvent {
  return { event: type, data: JSON.stringify({ type, ...fields }) };
}

/**
 * The events of a streamed reply, block by block: the text (when there is any) at index 0, then one
 * `tool_use` block per call, its input streamed as `input_json_delta`s of its arguments; then
 * `message_delta` with the stop reason and output tokens, and `message_stop`.
 */
export function replyEvents(response: LlmResponse, labels: ReplyLabels, chunks?: readonly LlmChunk[]): SseEvent[] {
  const body = replyBody(response, labels);
  const calls = response.message.tool_calls ?? [];
  const events: SseEvent[] = [event('message_start', { message: shell(response, labels) })];
  let callIndex = 0;
  body.content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(event('content_block_start', { index, content_block: { type: 'text', text: '', citations: null } }));
      for (const text of pieces(recordedText(chunks), block.text)) events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    } else {
      const args = calls[callIndex]?.function.arguments ?? '';
      // Arguments that are not an object were served as `{}`: stream what the body says.
      const json = isRecord(parseJson(args)) ? args : JSON.stringify(block.input);
      events.push(event('content_block_start', { index, content_block: { ...block, input: {} } }));
      for (const partial of pieces(recordedArguments(chunks, callIndex), json)) {
        events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } }));
      }
      callIndex++;
    }
    events.push(event('content_block_stop', { index }));
  });
  events.push(event('message_delta', { delta: { stop_reason: body.stop_reason, stop_sequence: null }, usage: { output_tokens: response.usage.outputTokens } }));
  events.push(event('message_stop', {}));
  return events;
}
