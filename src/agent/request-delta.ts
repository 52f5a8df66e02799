/**
 * Requests are stored as deltas: how many leading messages equal the previous request's, and the
 * messages after them. Appending turns keep the tape linear in run length; a trimmed context simply
 * has a shorter common prefix. The hash covers the whole request, so a rebuilt request is checkable.
 */
import { createHash } from 'node:crypto';
import type { LlmRequest } from '../core/llm.js';
import type { ChatMessage } from '../core/messages.js';
import { canonicalJson } from '../guardrails/canonical-json.js';

export interface RequestDelta {
  prefix: number;
  append: ChatMessage[];
}

/** The delta that turns `previous` into `next`. */
export function requestDelta(previous: readonly ChatMessage[], next: readonly ChatMessage[]): RequestDelta {
  let prefix = 0;
  const max = Math.min(previous.length, next.length);
  while (prefix < max && canonicalJson(previous[prefix]) === canonicalJson(next[prefix])) prefix++;
  return { prefix, append: next.slice(prefix) };
}

/** Rebuild a request's messages from the previous request's and a delta. */
export function applyDelta(previous: readonly ChatMessage[], delta: RequestDelta): ChatMessage[] {
  return [...previous.slice(0, delta.prefix), ...delta.append];
}

/** sha-256 of everything that decides the model's answer: model, messages, tools, parameters. */
export function requestHash(request: LlmRequest): string {
  return createHash('sha256')
    .update(
      canonicalJson({
        model: request.model,
        messages: request.messages,
        tools: request.tools ?? [],
        stream: request.stream,
        maxTokens: request.maxTokens ?? null,
        temperature: request.temperature ?? null,
      }),
    )
    .digest('hex');
}
