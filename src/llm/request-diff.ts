/**
 * Where a replayed request first departs from the recorded one, for divergence reports: the first
 * differing message and field, side by side, else the first differing request field.
 */
import type { LlmRequest } from '../core/llm.js';
import type { ChatMessage } from '../core/messages.js';
import { canonicalJson } from '../guardrails/canonical-json.js';

/** What the tape keeps of a request (tool definitions, max tokens and temperature only as part of the hash). */
export interface RecordedRequestView {
  model: string;
  messages: readonly ChatMessage[];
  stream: boolean;
  tools: readonly string[];
}

export interface RequestDifference {
  /** Index of the first message that differs (or exists on one side only); null when all messages are equal. */
  messageIndex: number | null;
  /** e.g. `messages[3].content`, `messages[4]`, `model`, `tools`, `parameters`. */
  path: string;
  recorded: unknown;
  replayed: unknown;
}

export function firstDifference(recorded: RecordedRequestView, replayed: LlmRequest): RequestDifference {
  const count = Math.max(recorded.messages.length, replayed.messages.length);
  for (let index = 0; index < count; index++) {
    const a = recorded.messages[index];
    const b = replayed.messages[index];
    if (canonicalJson(a ?? null) === canonicalJson(b ?? null)) continue;
    if (a === undefined || b === undefined) return { messageIndex: index, path: `messages[${index}]`, recorded: a, replayed: b };
    const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const field of fields) {
      const x = (a as unknown as Record<string, unknown>)[field];
      const y = (b as unknown as Record<string, unknown>)[field];
      if (canonicalJson(x ?? null) !== canonicalJson(y ?? null)) {
        return { messageIndex: index, path: `messages[${index}].${field}`, recorded: x, replayed: y };
      }
    }
  }
  if (recorded.model !== replayed.model) return { messageIndex: null, path: 'model', recorded: recorded.model, replayed: replayed.model };
  if (recorded.stream !== replayed.stream) return { messageIndex: null, path: 'stream', recorded: recorded.stream, replayed: replayed.stream };
  const names = (replayed.tools ?? []).map((tool) => tool.function.name);
  if (canonicalJson(recorded.tools) !== canonicalJson(names)) return { messageIndex: null, path: 'tools', recorded: recorded.tools, replayed: names };
  // Same messages, model and tool names: the rest of the hash is tool definitions, max tokens, temperature.
  return { messageIndex: null, path: 'parameters', recorded: undefined, replayed: undefined };
}
