/**
 * Turns a stream of chat-completion chunks into `LlmChunk`s and, at the end, one complete response.
 * Pure bookkeeping with no I/O and no dependency on the `openai` package: the adapter feeds it the
 * SDK's chunks (structurally typed below) and decides when the stream is over.
 */
import type { FinishReason, LlmChunk, LlmResponse, ToolCallDelta, Usage } from '../core/llm.js';
import type { AssistantMessage, ToolCall } from '../core/messages.js';

/** The part of an OpenAI `ChatCompletionChunk` this module reads. */
export interface CompletionChunkLike {
  model?: string | null;
  /** Required by the SDK's types, but a server may leave it out: read defensively. */
  choices?: Array<{
    delta?: {
      role?: string | null;
      content?: string | null;
      tool_calls?: Array<{
        index: number;
        id?: string | null;
        function?: { name?: string | null; arguments?: string | null } | null;
      }> | null;
    } | null;
    finish_reason?: string | null;
    /** Which answer this is when several were asked for (`n`); absent: the first. */
    index?: number | null;
  } | null> | null;
  usage?: { prompt_tokens?: number | null; completion_tokens?: number | null } | null;
}

/** Map a provider's finish reason onto ours; `null`/absent stays `undefined`. */
export function mapFinishReason(reason: string | null | undefined): FinishReason | undefined {
  switch (reason) {
    case null:
    case undefined:
      return undefined;
    case 'stop':
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return reason;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'unknown';
  }
}

/** What a response without a finish reason most likely meant: tool use if calls arrived, else end of turn. */
export function inferFinishReason(message: AssistantMessage): FinishReason {
  return message.tool_calls !== undefined && message.tool_calls.length > 0 ? 'tool_calls' : 'stop';
}

/** Token counts as ours; absent counts are 0. */
export function mapUsage(usage: CompletionChunkLike['usage']): Usage {
  return { inputTokens: usage?.prompt_tokens ?? 0, outputTokens: usage?.completion_tokens ?? 0 };
}

interface PartialCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

/** Accumulates one stream: `add` each provider chunk, then `terminal()` once, then `response()`. */
export class StreamAccumulator {
  private content = '';
  private sawChoice = false;
  private sawContent = false;
  private readonly calls = new Map<number, PartialCall>();
  private finishReason: FinishReason | undefined;
  private usage: Usage | undefined;
  private model: string | undefined;
  private nextIndex = 0;
  private done = false;

  /**
   * Take one provider chunk. Returns the `LlmChunk` to report, or `undefined` when the chunk adds
   * nothing to the message (a role-only opener, a usage-only trailer).
   */
  add(chunk: CompletionChunkLike, offsetMs: number): LlmChunk | undefined {
    if (typeof chunk.model === 'string' && chunk.model !== '') this.model = chunk.model;
    if (chunk.usage !== undefined && chunk.usage !== null) this.usage = mapUsage(chunk.usage);
    // The first choice is the answer (with `n` > 1 the others are other answers, not more of it).
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => (c?.index ?? 0) === 0) : undefined;
    if (typeof choice !== 'object' || choice === null) return undefined;
    // A choice with a delta (or at least a finish reason) is an answer, even an empty one.
    if ((typeof choice.delta === 'object' && choice.delta !== null) || typeof choice.finish_reason === 'string') this.sawChoice = true;

    const out: LlmChunk = { index: 0, offsetMs, finished: false };
    const text = choice.delta?.content;
    if (typeof text === 'string' && text !== '') {
      this.content += text;
      this.sawContent = true;
      out.content = text;
    }
    const deltas: ToolCallDelta[] = [];
    for (const fragment of choice.delta?.tool_calls ?? []) {
      const delta: ToolCallDelta = { index: fragment.index };
      const call = this.calls.get(fragment.index) ?? { id: undefined, name: '', arguments: '' };
      if (typeof fragment.id === 'string' && fragment.id !== '') {
        call.id ??= fragment.id;
        delta.id = fragment.id;
      }
      const name = fragment.function?.name;
      if (typeof name === 'string' && name !== '') {
        // Providers send the name whole, in the first fragment of a call.
        if (call.name === '') call.name = name;
        delta.name = name;
      }
      const args = fragment.function?.arguments;
      if (typeof args === 'string' && args !== '') {
        call.arguments += args;
        delta.arguments = args;
      }
      this.calls.set(fragment.index, call);
      deltas.push(delta);
    }
    if (deltas.length > 0) out.toolCalls = deltas;
    const reason = mapFinishReason(choice.finish_reason);
    if (reason !== undefined) {
      this.finishReason = reason;
      out.finishReason = reason;
    }
    if (out.content === undefined && out.toolCalls === undefined && out.finishReason === undefined) return undefined;
    out.index = this.nextIndex++;
    return out;
  }

  /**
   * True once a chunk carried a choice (a delta or a finish reason). A stream that ends without one
   * had no usable choices — like a whole response with none — and is no answer at all.
   */
  get hasChoices(): boolean {
    return this.sawChoice;
  }

  /** True once a provider chunk carried a finish reason. */
  get hasFinishReason(): boolean {
    return this.finishReason !== undefined;
  }

  /** The single terminal chunk of the stream. Call exactly once. */
  terminal(offsetMs: number, error?: string): LlmChunk {
    if (this.done) throw new Error('StreamAccumulator.terminal() called twice');
    this.done = true;
    const chunk: LlmChunk = { index: this.nextIndex++, offsetMs, finished: true };
    if (error !== undefined) chunk.error = error;
    else chunk.finishReason = this.finishReason ?? inferFinishReason(this.message());
    return chunk;
  }

  message(): AssistantMessage {
    const message: AssistantMessage = { role: 'assistant', content: this.sawContent ? this.content : null };
    if (this.calls.size > 0) {
      message.tool_calls = [...this.calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, call]): ToolCall => ({
          id: call.id ?? `call_${index}`,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        }));
    }
    return message;
  }

  /** The complete response; a missing finish reason is inferred from what arrived. */
  response(): LlmResponse {
    const message = this.message();
    const response: LlmResponse = {
      message,
      finishReason: this.finishReason ?? inferFinishReason(message),
      usage: this.usage ?? { inputTokens: 0, outputTokens: 0 },
    };
    if (this.model !== undefined) response.model = this.model;
    return response;
  }
}
