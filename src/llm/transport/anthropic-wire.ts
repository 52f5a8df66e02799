/**
 * Anthropic's Messages API on the wire (`POST …/v1/messages`), for recording and replaying at the
 * transport: a request body as our `LlmRequest`, a `Message` (whole, or as the server-sent events of
 * a streamed one) as our `LlmResponse` and chunks, and back the other way (in anthropic-reply.ts),
 * the body and event sequence `@anthropic-ai/sdk` reads.
 *
 * Our message shape is Chat Completions', so a request is folded into it: `system` becomes a leading
 * system message; a message's text blocks become its text (joined by newlines); an assistant's
 * `tool_use` blocks become its tool calls (the input as canonical JSON, so the same input hashes the
 * same however a client orders its keys); a user's `tool_result` blocks become tool messages, in
 * their place among the user's other blocks (a result marked `is_error` reads `[error] …`). Blocks
 * our shape has no place for (images, documents, thinking, server tool results, …) become a
 * `[<type> <digest>]` placeholder in the text, the digest over the whole block, so the request
 * still hashes differently when one differs. A tool with no `input_schema` (a server tool such as
 * `web_search_20250305`) becomes a tool definition named by its type whose parameters are the tool
 * itself, for the same reason.
 *
 * The `@anthropic-ai/sdk` package is never imported here: the shapes read and written are structural.
 */
import type { FinishReason, LlmChunk, LlmRequest, LlmResponse, ToolCallDelta, Usage } from '../../core/llm.js';
import type { ChatMessage, ToolCall, ToolDefinition } from '../../core/messages.js';
import { canonicalJson } from '../../guardrails/canonical-json.js';
import { replyBody, replyEvents } from './anthropic-reply.js';
import { paramsOf } from './chat-wire.js';
import type { ModelWire, SseEvent, WireStream } from './wire.js';
import { isRecord, parseJson, placeholder, text, type Json } from './wire-json.js';

/**
 * Body fields that are part of `LlmRequest` itself and on the tape, or that label or route a call
 * without changing its answer. (`max_tokens` and `temperature` are in `LlmRequest` but not on the
 * tape: they stay in `params`, so a divergence can name them.)
 */
const NOT_PARAMS = new Set(['model', 'messages', 'system', 'tools', 'stream', 'metadata', 'service_tier']);

export const anthropicWire: ModelWire = {
  endpoint: 'messages',

  replyId: (run, iteration) => `msg_replay_${run}_${iteration}`,

  request(body: Json): LlmRequest {
    const { model, messages } = body;
    if (typeof model !== 'string' || !Array.isArray(messages)) throw new TypeError('not a Messages API request (no model or messages)');
    const folded: ChatMessage[] = body.system === undefined ? [] : [{ role: 'system', content: blocksText(body.system) }];
    for (const message of messages) folded.push(...messageOf(message));
    const request: LlmRequest = { model, messages: folded, stream: body.stream === true, endpoint: 'messages' };
    if (Array.isArray(body.tools)) request.tools = body.tools.map(toolDefinition);
    if (typeof body.max_tokens === 'number') request.maxTokens = body.max_tokens;
    if (typeof body.temperature === 'number') request.temperature = body.temperature;
    const params = paramsOf(body, NOT_PARAMS);
    if (params !== undefined) request.params = params;
    return request;
  },

  response(body: unknown): LlmResponse {
    if (!isRecord(body) || !Array.isArray(body.content)) throw new TypeError('not a Messages API response (no content)');
    return responseOf(body.content, body.stop_reason, usageOf(body.usage), body.model);
  },

  stream: () => new MessagesStream(),

  replyBody,

  replyEvents: (response, labels, _request, chunks) => replyEvents(response, labels, chunks),
};

// ---- requests ----

/** One API message as our messages: an assistant's as one, a user's split where its tool results are. */
function messageOf(message: unknown): ChatMessage[] {
  if (!isRecord(message)) return [{ role: 'user', content: placeholder(typeof message, message) }];
  if (message.role === 'assistant') return [assistantOf(message.content)];
  if (typeof message.content === 'string') return [{ role: 'user', content: message.content }];
  if (!Array.isArray(message.content)) return [{ role: 'user', content: blocksText(message.content) }];
  const out: ChatMessage[] = [];
  let texts: string[] = [];
  const flush = (): void => {
    if (texts.length > 0) out.push({ role: 'user', content: texts.join('\n') });
    texts = [];
  };
  for (const block of message.content) {
    if (isRecord(block) && block.type === 'tool_result') {
      flush();
      const content = blocksText(block.content);
      out.push({ role: 'tool', tool_call_id: text(block.tool_use_id), content: block.is_error === true ? `[error] ${content}` : content });
    } else {
      texts.push(blockText(block));
    }
  }
  flush();
  // A user message with no blocks at all still counts.
  return out.length > 0 ? out : [{ role: 'user', content: '' }];
}

function assistantOf(content: unknown): ChatMessage {
  if (!Array.isArray(content)) return { role: 'assistant', content: content === undefined ? null : blocksText(content) };
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  for (const block of content) {
    if (isRecord(block) && block.type === 'tool_use') calls.push(toolCallOf(block, canonicalJson(block.input ?? {})));
    else texts.push(blockText(block));
  }
  const message: ChatMessage = { role: 'assistant', content: texts.length > 0 ? texts.join('\n') : null };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function toolCallOf(block: Json, args: string): ToolCall {
  return { id: text(block.id), type: 'function', function: { name: text(block.name), arguments: args } };
}

/** Content as text: a string as is; blocks joined by newlines, non-text blocks as placeholders. */
function blocksText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return '';
  if (!Array.isArray(content)) return placeholder(typeof content, content);
  return content.map(blockText).join('\n');
}

function blockText(block: unknown): string {
  if (!isRecord(block)) return placeholder(typeof block, block);
  if (block.type === 'text' && typeof block.text === 'string') return block.text;
  return placeholder(typeof block.type === 'string' ? block.type : 'block', block);
}

function toolDefinition(tool: unknown): ToolDefinition {
  if (isRecord(tool) && typeof tool.name === 'string' && isRecord(tool.input_schema) && (tool.type === undefined || tool.type === 'custom')) {
    return { type: 'function', function: { name: tool.name, description: text(tool.description), parameters: tool.input_schema } };
  }
  const name = isRecord(tool) ? (typeof tool.type === 'string' ? tool.type : text(tool.name) || 'tool') : 'tool';
  return { type: 'function', function: { name, description: '', parameters: isRecord(tool) ? tool : { value: tool } } };
}

// ---- responses ----

/** Our response for a message's content blocks (text and tool use count; thinking is not part of our message). */
function responseOf(content: readonly unknown[], stopReason: unknown, usage: Usage, model: unknown): LlmResponse {
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'tool_use') calls.push(toolCallOf(block, JSON.stringify(block.input ?? {})));
  }
  const response: LlmResponse = {
    message: { role: 'assistant', content: texts.length > 0 ? texts.join('') : null },
    finishReason: finishReasonOf(stopReason, calls.length > 0),
    usage,
  };
  if (calls.length > 0) response.message.tool_calls = calls;
  if (typeof model === 'string' && model !== '') response.model = model;
  return response;
}

/**
 * `stop_reason` as ours: the turn ended (`end_turn`, `stop_sequence`, `pause_turn`), the model asked
 * for tools, ran out of tokens or context, or refused.
 */
export function finishReasonOf(stopReason: unknown, hasCalls: boolean): FinishReason {
  switch (stopReason) {
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    default:
      return hasCalls ? 'tool_calls' : 'unknown';
  }
}

const tokens = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);

/**
 * The API's usage as ours. Its `input_tokens` leaves out what was read from or written to the prompt
 * cache; our input tokens are the whole prompt, as Chat Completions counts it.
 */
function usageOf(usage: unknown): Usage {
  if (!isRecord(usage)) return { inputTokens: 0, outputTokens: 0 };
  return {
    inputTokens: tokens(usage.input_tokens) + tokens(usage.cache_creation_input_tokens) + tokens(usage.cache_read_input_tokens),
    outputTokens: tokens(usage.output_tokens),
  };
}

// ---- streams ----

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Reads one streamed reply: `message_start` (the model, the input usage), per content block a
 * `content_block_start`, its deltas (`text_delta`, `input_json_delta`; thinking and signature
 * deltas are not part of our message) and `content_block_stop`, then `message_delta` (the stop
 * reason, the output usage) and `message_stop`. An `error` event is the stream failing. Chunks
 * carry text deltas and tool-call fragments, a call's index being its place among the message's
 * tool calls.
 */
class MessagesStream implements WireStream {
  private nextIndex = 0;
  private text: string | undefined;
  private readonly calls: PartialCall[] = [];
  /** Content block index → index among the tool calls. */
  private readonly callIndex = new Map<number, number>();
  private model: string | undefined;
  private usage: Json = {};
  private stopReason: unknown;
  private ended = false;
  private failed: string | undefined;
  private terminated = false;

  get done(): boolean {
    return this.ended;
  }

  get hasFinishReason(): boolean {
    return this.stopReason !== undefined && this.stopReason !== null;
  }

  get error(): string | undefined {
    return this.failed;
  }

  add(event: SseEvent, offsetMs: number): LlmChunk | undefined {
    const data = parseJson(event.data);
    if (!isRecord(data)) return undefined;
    const type = typeof data.type === 'string' ? data.type : event.event;
    switch (type) {
      case 'message_start':
        if (isRecord(data.message)) {
          if (typeof data.message.model === 'string' && data.message.model !== '') this.model = data.message.model;
          this.noteUsage(data.message.usage);
        }
        return undefined;
      case 'content_block_start':
        return this.blockStart(data, offsetMs);
      case 'content_block_delta':
        return this.delta(data, offsetMs);
      case 'message_delta':
        if (isRecord(data.delta) && data.delta.stop_reason !== undefined && data.delta.stop_reason !== null) this.stopReason = data.delta.stop_reason;
        this.noteUsage(data.usage);
        return undefined;
      case 'message_stop':
        this.ended = true;
        return undefined;
      case 'error': {
        const error = isRecord(data.error) ? data.error : {};
        this.failed = [text(error.type), text(error.message)].filter((s) => s !== '').join(': ') || 'the stream carried an error event';
        this.ended = true;
        return undefined;
      }
      default:
        return undefined; // ping, content_block_stop, and events of kinds to come
    }
  }

  terminal(offsetMs: number, error?: string): LlmChunk {
    if (this.terminated) throw new Error('MessagesStream.terminal() called twice');
    this.terminated = true;
    const chunk: LlmChunk = { index: this.nextIndex++, offsetMs, finished: true };
    if (this.hasFinishReason) chunk.finishReason = finishReasonOf(this.stopReason, this.calls.length > 0);
    const broke = error ?? this.failed;
    if (broke !== undefined) chunk.error = broke;
    return chunk;
  }

  response(): LlmResponse {
    const calls = this.calls.map((call): ToolCall => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments === '' ? '{}' : call.arguments } }));
    const response: LlmResponse = {
      message: { role: 'assistant', content: this.text ?? null },
      finishReason: finishReasonOf(this.stopReason, calls.length > 0),
      usage: usageOf(this.usage),
    };
    if (calls.length > 0) response.message.tool_calls = calls;
    if (this.model !== undefined) response.model = this.model;
    return response;
  }

  /** Usage fields arrive in `message_start` and (cumulative, the later the truer) in `message_delta`. */
  private noteUsage(usage: unknown): void {
    if (!isRecord(usage)) return;
    for (const [key, value] of Object.entries(usage)) if (typeof value === 'number') this.usage[key] = value;
  }

  private blockStart(data: Json, offsetMs: number): LlmChunk | undefined {
    const block = data.content_block;
    if (!isRecord(block) || typeof data.index !== 'number') return undefined;
    if (block.type === 'text') return this.textDelta(block.text, offsetMs);
    if (block.type !== 'tool_use') return undefined;
    const index = this.calls.length;
    this.callIndex.set(data.index, index);
    const call: PartialCall = { id: text(block.id), name: text(block.name), arguments: '' };
    this.calls.push(call);
    const delta: ToolCallDelta = { index };
    if (call.id !== '') delta.id = call.id;
    if (call.name !== '') delta.name = call.name;
    return this.chunk(offsetMs, { toolCalls: [delta] });
  }

  private delta(data: Json, offsetMs: number): LlmChunk | undefined {
    const delta = data.delta;
    if (!isRecord(delta)) return undefined;
    if (delta.type === 'text_delta') return this.textDelta(delta.text, offsetMs);
    if (delta.type !== 'input_json_delta' || typeof data.index !== 'number') return undefined;
    const index = this.callIndex.get(data.index);
    const call = index === undefined ? undefined : this.calls[index];
    if (index === undefined || call === undefined || typeof delta.partial_json !== 'string' || delta.partial_json === '') return undefined;
    call.arguments += delta.partial_json;
    return this.chunk(offsetMs, { toolCalls: [{ index, arguments: delta.partial_json }] });
  }

  private textDelta(delta: unknown, offsetMs: number): LlmChunk | undefined {
    if (typeof delta !== 'string' || delta === '') return undefined;
    this.text = (this.text ?? '') + delta;
    return this.chunk(offsetMs, { content: delta });
  }

  private chunk(offsetMs: number, fields: Pick<LlmChunk, 'content' | 'toolCalls'>): LlmChunk {
    return { index: this.nextIndex++, offsetMs, ...fields, finished: false };
  }
}
