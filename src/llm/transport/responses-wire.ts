/**
 * The OpenAI Responses API on the wire (`POST …/responses`), for recording and replaying at the
 * transport: a request body as our `LlmRequest`, a `Response` object (whole, or as the server-sent
 * events of a streamed one) as our `LlmResponse` and chunks, and back the other way (in
 * responses-reply.ts), the `Response` body and event sequence the `openai` SDK and the Agents SDK read.
 *
 * Our message shape is Chat Completions', so a request is folded into it much as sdk-request.ts folds
 * chat messages: `instructions` becomes a leading system message, `developer` becomes `system`,
 * content parts become text (a non-text part becomes a `[<type> <digest>]` placeholder),
 * consecutive `function_call` items become one assistant message with tool calls and
 * `function_call_output` items become tool messages. Input items our shape has no place for
 * (`reasoning`, `web_search_call`, `item_reference`, …) become a user message holding a
 * `[<type> <digest>]` placeholder, the digest taken over the whole item: the request still hashes
 * differently when such an item differs, though its content is not readable in our messages.
 * Non-function tools become a tool definition named by their type whose parameters are the tool
 * itself, for the same reason.
 *
 * The `openai` package is imported only in src/llm and src/library, so the shapes read and written
 * here are structural.
 */
import type { FinishReason, LlmChunk, LlmRequest, LlmResponse, ToolCallDelta, Usage } from '../../core/llm.js';
import type { ChatMessage, ToolCall, ToolDefinition } from '../../core/messages.js';
import { paramsOf } from './chat-wire.js';
import { replyBody, replyEvents } from './responses-reply.js';
import type { ModelWire, SseEvent, WireStream } from './wire.js';
import { isRecord, parseJson, placeholder, text, type Json } from './wire-json.js';

/**
 * Body fields that are part of `LlmRequest` itself and on the tape, or that label, route or cache a
 * call without changing its answer. (`temperature` and `max_output_tokens` are in `LlmRequest` but
 * not on the tape: they stay in `params`, so a divergence can name them.)
 */
const NOT_PARAMS = new Set([
  'model', 'input', 'instructions', 'tools', 'stream',
  'user', 'metadata', 'store', 'stream_options', 'service_tier', 'prompt_cache_key', 'prompt_cache_retention',
  'prompt_cache_options', 'safety_identifier', 'background',
]);

export const responsesWire: ModelWire = {
  endpoint: 'responses',

  replyId: (run, iteration) => `resp_replay_${run}_${iteration}`,

  request(body: Json): LlmRequest {
    const { model, input } = body;
    if (typeof model !== 'string' || (typeof input !== 'string' && !Array.isArray(input))) {
      throw new TypeError('not a Responses API request (no model or input)');
    }
    const messages: ChatMessage[] = typeof body.instructions === 'string' ? [{ role: 'system', content: body.instructions }] : [];
    messages.push(...(typeof input === 'string' ? [{ role: 'user' as const, content: input }] : inputMessages(input)));
    const request: LlmRequest = { model, messages, stream: body.stream === true, endpoint: 'responses' };
    if (Array.isArray(body.tools)) request.tools = body.tools.map(toolDefinition);
    if (typeof body.max_output_tokens === 'number') request.maxTokens = body.max_output_tokens;
    if (typeof body.temperature === 'number') request.temperature = body.temperature;
    const params = paramsOf(body, NOT_PARAMS);
    if (params !== undefined) request.params = params;
    return request;
  },

  response(body: unknown): LlmResponse {
    if (!isRecord(body) || !Array.isArray(body.output)) throw new TypeError('not a Responses API response (no output)');
    return responseOf(body, body.output);
  },

  stream: () => new ResponsesStream(),

  replyBody,

  replyEvents: (response, labels, _request, chunks) => replyEvents(response, labels, chunks),
};

// ---- requests ----

/** The input items as our messages, in order. */
function inputMessages(items: readonly unknown[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const item of items) {
    if (!isRecord(item)) {
      out.push({ role: 'user', content: placeholder(typeof item, item) });
      continue;
    }
    const type = itemType(item);
    if (type === 'message') out.push(messageOf(item));
    else if (type === 'function_call') addToolCall(out, toolCallOf(item));
    else if (type === 'function_call_output') out.push({ role: 'tool', tool_call_id: text(item.call_id), content: partsText(item.output) });
    else out.push({ role: 'user', content: placeholder(type, item) });
  }
  return out;
}

/** An item's type; the SDK lets a message (it has a role) and an item reference leave it out. */
function itemType(item: Json): string {
  if (typeof item.type === 'string') return item.type;
  return typeof item.role === 'string' ? 'message' : 'item_reference';
}

function messageOf(item: Json): ChatMessage {
  const content = partsText(item.content);
  switch (item.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content };
    case 'assistant':
      return { role: 'assistant', content };
    default:
      return { role: 'user', content };
  }
}

function toolCallOf(item: Json): ToolCall {
  return { id: text(item.call_id), type: 'function', function: { name: text(item.name), arguments: text(item.arguments) } };
}

/** A call joins the assistant message right before it (its text, or the calls before it), else starts one. */
function addToolCall(out: ChatMessage[], call: ToolCall): void {
  const last = out.at(-1);
  if (last?.role === 'assistant') (last.tool_calls ??= []).push(call);
  else out.push({ role: 'assistant', content: null, tool_calls: [call] });
}

/** Content as text: a string as is; parts joined by newlines, non-text parts as placeholders. */
function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : placeholder(typeof content, content);
  return content.map(partText).join('\n');
}

function partText(part: unknown): string {
  if (!isRecord(part)) return placeholder(typeof part, part);
  if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string') return part.text;
  if (part.type === 'refusal' && typeof part.refusal === 'string') return part.refusal;
  return placeholder(typeof part.type === 'string' ? part.type : 'part', part);
}

function toolDefinition(tool: unknown): ToolDefinition {
  if (isRecord(tool) && tool.type === 'function' && typeof tool.name === 'string') {
    const parameters = isRecord(tool.parameters) ? tool.parameters : {};
    return { type: 'function', function: { name: tool.name, description: text(tool.description), parameters } };
  }
  const name = isRecord(tool) && typeof tool.type === 'string' ? tool.type : 'tool';
  return { type: 'function', function: { name, description: '', parameters: isRecord(tool) ? tool : { value: tool } } };
}

// ---- responses ----

/** Our response for a `Response` object (`output`: its output items, already checked to be an array). */
function responseOf(body: Json, output: readonly unknown[]): LlmResponse {
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  for (const item of output) {
    if (!isRecord(item)) continue;
    if (item.type === 'message' && Array.isArray(item.content)) texts.push(...item.content.flatMap(outputText));
    else if (item.type === 'function_call') calls.push(toolCallOf(item));
  }
  const response: LlmResponse = {
    message: { role: 'assistant', content: texts.length > 0 ? texts.join('') : null },
    finishReason: finishReasonOf(body, calls.length > 0),
    usage: usageOf(body.usage),
  };
  if (calls.length > 0) response.message.tool_calls = calls;
  if (typeof body.model === 'string' && body.model !== '') response.model = body.model;
  return response;
}

/** The text of one output content part: `output_text` and `refusal` count. */
function outputText(part: unknown): string[] {
  if (!isRecord(part)) return [];
  if (part.type === 'output_text' && typeof part.text === 'string') return [part.text];
  if (part.type === 'refusal' && typeof part.refusal === 'string') return [part.refusal];
  return [];
}

function finishReasonOf(body: Json, hasCalls: boolean): FinishReason {
  if (hasCalls) return 'tool_calls';
  if (body.status !== 'incomplete') return 'stop';
  const reason = isRecord(body.incomplete_details) ? body.incomplete_details.reason : undefined;
  if (reason === 'max_output_tokens') return 'length';
  if (reason === 'content_filter') return 'content_filter';
  return 'stop';
}

function usageOf(usage: unknown): Usage {
  if (!isRecord(usage)) return { inputTokens: 0, outputTokens: 0 };
  return {
    inputTokens: typeof usage.input_tokens === 'number' ? usage.input_tokens : 0,
    outputTokens: typeof usage.output_tokens === 'number' ? usage.output_tokens : 0,
  };
}

// ---- streams ----

interface PartialCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

/**
 * Reads one streamed reply. Chunks carry text deltas and function-call fragments, the call's index
 * being its place among the response's function calls; the response itself is the one the final
 * `response.completed` (`.incomplete`, `.failed`) event carries, or — when none arrived — what the
 * deltas added up to.
 */
class ResponsesStream implements WireStream {
  private nextIndex = 0;
  private text: string | undefined;
  private readonly calls: PartialCall[] = [];
  /** Output index → index among the function calls. */
  private readonly callIndex = new Map<number, number>();
  private model: string | undefined;
  private final: { body: Json; output: readonly unknown[] } | undefined;
  private ended = false;
  private finishSeen = false;
  private terminated = false;

  get done(): boolean {
    return this.ended;
  }

  get hasFinishReason(): boolean {
    return this.finishSeen;
  }

  add(event: SseEvent, offsetMs: number): LlmChunk | undefined {
    const data = parseJson(event.data);
    if (!isRecord(data)) return undefined;
    const type = typeof data.type === 'string' ? data.type : event.event;
    switch (type) {
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        return this.textDelta(data.delta, offsetMs);
      case 'response.output_item.added':
        return this.itemAdded(data, offsetMs);
      case 'response.function_call_arguments.delta':
        return this.argumentsDelta(data, offsetMs);
      case 'response.created':
      case 'response.in_progress':
        this.noteModel(data.response);
        return undefined;
      case 'response.completed':
      case 'response.incomplete':
        this.finishSeen = true;
        this.end(data.response);
        return undefined;
      case 'response.failed':
        this.end(data.response);
        return undefined;
      default:
        return undefined;
    }
  }

  terminal(offsetMs: number, error?: string): LlmChunk {
    if (this.terminated) throw new Error('ResponsesStream.terminal() called twice');
    this.terminated = true;
    const chunk: LlmChunk = { index: this.nextIndex++, offsetMs, finished: true };
    if (this.finishSeen && this.final !== undefined) chunk.finishReason = responseOf(this.final.body, this.final.output).finishReason;
    if (error !== undefined) chunk.error = error;
    return chunk;
  }

  response(): LlmResponse {
    if (this.final !== undefined) return responseOf(this.final.body, this.final.output);
    const calls = this.calls.map((call, index): ToolCall => ({
      id: call.id ?? `call_${index}`,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
    const response: LlmResponse = {
      message: { role: 'assistant', content: this.text ?? null },
      finishReason: calls.length > 0 ? 'tool_calls' : 'stop',
      usage: { inputTokens: 0, outputTokens: 0 },
    };
    if (calls.length > 0) response.message.tool_calls = calls;
    if (this.model !== undefined) response.model = this.model;
    return response;
  }

  private textDelta(delta: unknown, offsetMs: number): LlmChunk | undefined {
    if (typeof delta !== 'string' || delta === '') return undefined;
    this.text = (this.text ?? '') + delta;
    return this.chunk(offsetMs, { content: delta });
  }

  private itemAdded(data: Json, offsetMs: number): LlmChunk | undefined {
    const item = data.item;
    if (!isRecord(item) || item.type !== 'function_call' || typeof data.output_index !== 'number') return undefined;
    const { index, call } = this.callAt(data.output_index);
    const delta: ToolCallDelta = { index };
    if (typeof item.call_id === 'string' && item.call_id !== '') {
      call.id = item.call_id;
      delta.id = item.call_id;
    }
    if (typeof item.name === 'string' && item.name !== '') {
      call.name = item.name;
      delta.name = item.name;
    }
    if (typeof item.arguments === 'string' && item.arguments !== '') {
      call.arguments += item.arguments;
      delta.arguments = item.arguments;
    }
    return this.chunk(offsetMs, { toolCalls: [delta] });
  }

  private argumentsDelta(data: Json, offsetMs: number): LlmChunk | undefined {
    if (typeof data.delta !== 'string' || data.delta === '' || typeof data.output_index !== 'number') return undefined;
    const { index, call } = this.callAt(data.output_index);
    call.arguments += data.delta;
    return this.chunk(offsetMs, { toolCalls: [{ index, arguments: data.delta }] });
  }

  /** The function call at an output index, counted in when first seen. */
  private callAt(outputIndex: number): { index: number; call: PartialCall } {
    const known = this.callIndex.get(outputIndex);
    const index = known ?? this.calls.length;
    let call = this.calls[index];
    if (call === undefined) {
      call = { id: undefined, name: '', arguments: '' };
      this.calls.push(call);
      this.callIndex.set(outputIndex, index);
    }
    return { index, call };
  }

  private noteModel(response: unknown): void {
    if (isRecord(response) && typeof response.model === 'string' && response.model !== '') this.model = response.model;
  }

  private end(response: unknown): void {
    this.ended = true;
    if (isRecord(response) && Array.isArray(response.output)) this.final = { body: response, output: response.output };
  }

  private chunk(offsetMs: number, fields: Pick<LlmChunk, 'content' | 'toolCalls'>): LlmChunk {
    return { index: this.nextIndex++, offsetMs, ...fields, finished: false };
  }
}
