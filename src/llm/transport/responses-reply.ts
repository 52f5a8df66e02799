/**
 * Replies of the Responses API, written from our `LlmResponse` (a patch, a run recorded by
 * `agentctl record`, or a transport recording without its raw events): the `Response` body and the
 * server-sent event sequence the `openai` SDK (`responses.create`, `responses.stream`) and the
 * Agents SDK's Responses model read. The shapes are structural (see responses-wire.ts).
 */
import type { FinishReason, LlmChunk, LlmResponse } from '../../core/llm.js';
import type { ToolCall } from '../../core/messages.js';
import { pieces, recordedArguments, recordedText } from './reply-pieces.js';
import type { ReplyLabels, SseEvent } from './wire.js';

type Json = Record<string, unknown>;

/** The `Response` object fields this module writes (the SDK adds `output_text` itself). */
interface ResponseBody {
  id: string;
  object: 'response';
  created_at: number;
  model: string;
  status: 'completed' | 'incomplete' | 'in_progress';
  error: null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: null;
  metadata: Record<string, string>;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  tool_choice: 'auto';
  tools: [];
  usage?: {
    input_tokens: number;
    output_tokens: number;
    total_tokens: number;
    input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
    output_tokens_details: { reasoning_tokens: number };
  };
}

type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

interface OutputTextPart {
  type: 'output_text';
  text: string;
  annotations: [];
}

interface MessageItem {
  id: string;
  type: 'message';
  role: 'assistant';
  status: ItemStatus;
  content: OutputTextPart[];
}

interface FunctionCallItem {
  id: string;
  type: 'function_call';
  status: ItemStatus;
  call_id: string;
  name: string;
  arguments: string;
}

type OutputItem = MessageItem | FunctionCallItem;

function incompleteReason(reason: FinishReason): 'max_output_tokens' | 'content_filter' | undefined {
  if (reason === 'length') return 'max_output_tokens';
  if (reason === 'content_filter') return 'content_filter';
  return undefined;
}

/** Item ids carry the response id's tail, so a replay labels them the same every time. */
function itemId(prefix: 'msg' | 'fc', labels: ReplyLabels, n?: number): string {
  const tail = labels.id.replace(/^resp_/, '');
  return n === undefined ? `${prefix}_${tail}` : `${prefix}_${tail}_${n}`;
}

function messageItem(labels: ReplyLabels, text: string, status: ItemStatus): MessageItem {
  return { id: itemId('msg', labels), type: 'message', role: 'assistant', status, content: [{ type: 'output_text', text, annotations: [] }] };
}

function callItem(labels: ReplyLabels, call: ToolCall, n: number): FunctionCallItem {
  const { name, arguments: args } = call.function;
  return { id: itemId('fc', labels, n), type: 'function_call', status: 'completed', call_id: call.id, name, arguments: args };
}

export function replyBody(response: LlmResponse, labels: ReplyLabels): ResponseBody {
  const reason = incompleteReason(response.finishReason);
  const status = reason === undefined ? 'completed' : 'incomplete';
  const { content, tool_calls: calls = [] } = response.message;
  const output: OutputItem[] = content !== null && content !== '' ? [messageItem(labels, content, status)] : [];
  output.push(...calls.map((call, n) => callItem(labels, call, n)));
  const { inputTokens, outputTokens } = response.usage;
  return {
    ...replyShell(response, labels, status),
    incomplete_details: reason === undefined ? null : { reason },
    output,
    usage: {
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

/** The fields every reply (and the `response.created` snapshot) shares, with no output yet. */
function replyShell(response: LlmResponse, labels: ReplyLabels, status: ResponseBody['status']): ResponseBody {
  return {
    id: labels.id,
    object: 'response',
    created_at: labels.created,
    model: response.model ?? labels.model,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    output: [],
    parallel_tool_calls: true,
    temperature: null,
    top_p: null,
    tool_choice: 'auto',
    tools: [],
  };
}

/** Numbers the events as they are added. */
class EventList {
  readonly events: SseEvent[] = [];

  add(type: string, fields: Json): void {
    const data = { type, sequence_number: this.events.length, ...fields };
    this.events.push({ event: type, data: JSON.stringify(data) });
  }
}

/**
 * The events of a streamed reply, item by item: the message (when there is text) at output index 0,
 * then one `function_call` item per call. A reply that stopped short (`length`, `content_filter`)
 * ends with `response.incomplete`, as the API sends it; any other with `response.completed`.
 */
export function replyEvents(response: LlmResponse, labels: ReplyLabels, chunks?: readonly LlmChunk[]): SseEvent[] {
  const body = replyBody(response, labels);
  const list = new EventList();
  const shell = replyShell(response, labels, 'in_progress');
  list.add('response.created', { response: shell });
  list.add('response.in_progress', { response: shell });
  let callIndex = 0;
  body.output.forEach((item, outputIndex) => {
    if (item.type === 'message') messageEvents(list, item, outputIndex, recordedText(chunks));
    else callEvents(list, item, outputIndex, recordedArguments(chunks, callIndex++));
  });
  list.add(body.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: body });
  return list.events;
}

function messageEvents(list: EventList, item: MessageItem, outputIndex: number, recorded: string[] | undefined): void {
  const text = item.content[0]?.text ?? '';
  const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
  list.add('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
  list.add('response.content_part.added', { ...at, part: { type: 'output_text', text: '', annotations: [] } });
  for (const delta of pieces(recorded, text)) list.add('response.output_text.delta', { ...at, delta, logprobs: [] });
  list.add('response.output_text.done', { ...at, text, logprobs: [] });
  list.add('response.content_part.done', { ...at, part: { type: 'output_text', text, annotations: [] } });
  list.add('response.output_item.done', { output_index: outputIndex, item });
}

function callEvents(list: EventList, item: FunctionCallItem, outputIndex: number, recorded: string[] | undefined): void {
  const at = { item_id: item.id, output_index: outputIndex };
  list.add('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
  for (const delta of pieces(recorded, item.arguments)) list.add('response.function_call_arguments.delta', { ...at, delta });
  list.add('response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments });
  list.add('response.output_item.done', { output_index: outputIndex, item });
}
