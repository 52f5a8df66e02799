/**
 * Each step's model request, built from the conversation: trimmed to the context window first, then
 * recorded as an `llm_request` event holding only what changed since the previous request (a delta)
 * and a hash of the whole, redacted request.
 */
import type { RunEventInput } from '../core/events.js';
import type { LlmRequest } from '../core/llm.js';
import type { ChatMessage, ToolDefinition } from '../core/messages.js';
import type { Redactor } from '../core/redact.js';
import type { AgentConfig } from './config.js';
import { trimContext } from './context.js';
import { RequestHasher, requestDelta, type RecordedRequest, type RequestDelta } from './request-delta.js';

/** Builds the requests of one run, in order; it remembers what the previous request sent. */
export class RequestBuilder {
  private readonly hasher: RequestHasher;
  private readonly toolNames: string[];
  /** How many messages the previous request had; the conversation only grows between trims. */
  private sentLength = 0;
  /** Set when trimming rewrote the conversation: then the delta is found by comparison. */
  private rewritten: ChatMessage[] | null = null;

  /**
   * `definitions`: the same list every step (tools do not change within a run). `recorded`: in a
   * replay, the request the tape holds for a step when it is in hand (RequestHasher.hash).
   */
  constructor(
    private readonly config: AgentConfig,
    private readonly definitions: ToolDefinition[],
    redact?: Redactor,
    private readonly recorded?: (step: number) => RecordedRequest | undefined,
  ) {
    this.hasher = new RequestHasher(redact);
    this.toolNames = definitions.map((d) => d.function.name);
  }

  /** Trim `messages` in place to the context window; returns the warning to record, or null. */
  trim(messages: ChatMessage[]): string | null {
    const { context } = this.config;
    if (context.window <= 0) return null;
    const trimmed = trimContext(messages, context);
    if (trimmed.removed === 0) return null;
    this.rewritten ??= messages.slice(0, this.sentLength);
    messages.splice(0, messages.length, ...trimmed.messages);
    return `context: ${context.strategy} removed ${trimmed.removed} message(s) to fit a window of ${context.window} tokens`;
  }

  /**
   * The request for `step`, and its event. The request holds the conversation itself, not a copy (a
   * copy per step costs the square of the run's length): clients read it during the call and must
   * not keep it.
   */
  build(messages: ChatMessage[], step: number): { request: LlmRequest; event: RunEventInput } {
    const { config } = this;
    const request: LlmRequest = { model: config.model, messages, tools: this.definitions, stream: config.stream };
    if (config.maxTokens > 0) request.maxTokens = config.maxTokens;
    if (config.temperature !== undefined) request.temperature = config.temperature;
    const delta: RequestDelta = this.rewritten === null
      ? { prefix: this.sentLength, append: messages.slice(this.sentLength) }
      : requestDelta(this.rewritten, messages);
    this.rewritten = null;
    this.sentLength = messages.length;
    const event: RunEventInput = {
      type: 'llm_request', step, iteration: step, hash: this.hasher.hash(request, delta, this.recorded?.(step)), ...delta,
      model: config.model, stream: config.stream, tools: this.toolNames,
    };
    return { request, event };
  }
}
