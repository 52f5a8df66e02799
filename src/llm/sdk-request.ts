/**
 * Requests between the `openai` SDK's shape and ours (`LlmRequest`). `toSdkParams` is what
 * OpenAiLlm sends; `toLlmRequest` is how recordOpenAI/replayOpenAI see a request an agent built
 * with the SDK, so it can be stored as a delta and hashed.
 *
 * Our message shape is deliberately narrower than the SDK's, so `toLlmRequest` folds what it does
 * not model into it: content-part arrays become text (a non-text part becomes a short placeholder
 * carrying a digest of the part, so two different images still hash differently), `developer`
 * becomes `system`, custom tools and tool calls become function ones, and the deprecated
 * `function` role / `function_call` become tool messages / tool calls. Parameters that
 * `LlmRequest` has no field for (`top_p`, `seed`, `tool_choice`, `response_format`, …) are not
 * part of the request hash.
 */
import { createHash } from 'node:crypto';
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { LlmRequest } from '../core/llm.js';
import type { AssistantMessage, ChatMessage, ToolCall, ToolDefinition } from '../core/messages.js';
import { canonicalJson } from '../guardrails/canonical-json.js';

/** Our request as SDK parameters (without `stream`, which the caller sets). */
export function toSdkParams(request: LlmRequest): ChatCompletionCreateParamsBase {
  const params: ChatCompletionCreateParamsBase = {
    model: request.model,
    messages: request.messages.map(toSdkMessage),
  };
  if (request.tools !== undefined && request.tools.length > 0) {
    params.tools = request.tools.map((tool): ChatCompletionTool => ({ type: 'function', function: { ...tool.function } }));
  }
  if (request.maxTokens !== undefined) params.max_tokens = request.maxTokens;
  if (request.temperature !== undefined) params.temperature = request.temperature;
  return params;
}

export function toSdkMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      // `internal` is ours: the provider sees a plain user message.
      return { role: 'user', content: message.content };
    case 'assistant': {
      const out: ChatCompletionMessageParam = { role: 'assistant', content: message.content };
      if (message.tool_calls !== undefined && message.tool_calls.length > 0) {
        out.tool_calls = message.tool_calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.function.name, arguments: call.function.arguments },
        }));
      }
      return out;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
  }
}

/** An SDK request as ours: what recordOpenAI stores and what both sides hash. */
export function toLlmRequest(params: ChatCompletionCreateParamsBase): LlmRequest {
  const request: LlmRequest = {
    model: params.model,
    messages: params.messages.map(fromSdkMessage),
    stream: params.stream === true,
  };
  if (params.tools !== undefined && params.tools !== null) request.tools = params.tools.map(fromSdkTool);
  const maxTokens = params.max_completion_tokens ?? params.max_tokens;
  if (typeof maxTokens === 'number') request.maxTokens = maxTokens;
  if (typeof params.temperature === 'number') request.temperature = params.temperature;
  return request;
}

export function fromSdkMessage(message: ChatCompletionMessageParam): ChatMessage {
  switch (message.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: partsText(message.content) };
    case 'user':
      return { role: 'user', content: partsText(message.content) };
    case 'assistant': {
      const out: AssistantMessage = {
        role: 'assistant',
        content: message.content === undefined || message.content === null ? null : partsText(message.content),
      };
      const calls: ToolCall[] = (message.tool_calls ?? []).map((call) =>
        call.type === 'function'
          ? { id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } }
          : { id: call.id, type: 'function', function: { name: call.custom.name, arguments: call.custom.input } },
      );
      if (message.function_call !== undefined && message.function_call !== null) {
        calls.push({ id: 'function_call', type: 'function', function: { ...message.function_call } });
      }
      if (calls.length > 0) out.tool_calls = calls;
      return out;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: partsText(message.content) };
    case 'function':
      return { role: 'tool', tool_call_id: `function:${message.name}`, content: message.content ?? '' };
  }
}

function fromSdkTool(tool: ChatCompletionTool): ToolDefinition {
  if (tool.type === 'function') {
    return {
      type: 'function',
      function: { name: tool.function.name, description: tool.function.description ?? '', parameters: tool.function.parameters ?? {} },
    };
  }
  const format = tool.custom.format === undefined ? {} : { format: tool.custom.format as unknown };
  return { type: 'function', function: { name: tool.custom.name, description: tool.custom.description ?? '', parameters: format } };
}

/** Text of a message's content: a string as is; parts joined by newlines, non-text parts as placeholders. */
function partsText(content: string | ReadonlyArray<{ type: string; text?: string; refusal?: string }>): string {
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type === 'text' && typeof part.text === 'string') return part.text;
      if (part.type === 'refusal' && typeof part.refusal === 'string') return part.refusal;
      const digest = createHash('sha256').update(canonicalJson(part)).digest('hex').slice(0, 16);
      return `[${part.type} ${digest}]`;
    })
    .join('\n');
}
