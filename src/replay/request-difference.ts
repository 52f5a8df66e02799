/**
 * Where a replayed model request first departs from the recorded one: the one place divergence
 * reports (the replay comparator, the library replayer, the proxy) get "the first differing field"
 * from. Messages are compared first, message by message and field by field; then the model, the
 * endpoint, streaming, the tool names, and every other parameter by name.
 */
import type { LlmRequest } from '../core/llm.js';
import type { ChatMessage } from '../core/messages.js';
import { canonicalJson } from '../guardrails/canonical-json.js';
import { firstDifference } from '../core/first-difference.js';

/** What a tape keeps of a request (tool definitions only by name; their text is in the hash). */
export interface RequestView {
  model: string;
  messages: readonly ChatMessage[];
  stream: boolean;
  tools: readonly string[];
  endpoint?: string;
  params?: Record<string, unknown>;
}

export interface RequestDifference {
  /** Index of the first message that differs (or exists on one side only); null when all messages are equal. */
  messageIndex: number | null;
  /** e.g. `messages[3].content`, `messages[4]`, `model`, `tools`, `params.top_p`, `tools (definitions)`. */
  path: string;
  recorded: unknown;
  replayed: unknown;
}

export function requestDifference(recorded: RequestView, replayed: RequestView): RequestDifference {
  const count = Math.max(recorded.messages.length, replayed.messages.length);
  for (let index = 0; index < count; index++) {
    const a = recorded.messages[index];
    const b = replayed.messages[index];
    if (canonicalJson(a ?? null) === canonicalJson(b ?? null)) continue;
    const at = `messages[${index}]`;
    const found = a === undefined || b === undefined ? null : firstDifference(a, b, at);
    return { messageIndex: index, ...(found ?? { path: at, recorded: a, replayed: b }) };
  }
  const rest = firstDifference(
    { model: recorded.model, endpoint: recorded.endpoint ?? 'chat', stream: recorded.stream, tools: recorded.tools, params: recorded.params ?? {} },
    { model: replayed.model, endpoint: replayed.endpoint ?? 'chat', stream: replayed.stream, tools: replayed.tools, params: replayed.params ?? {} },
  );
  if (rest !== null) return { messageIndex: null, ...rest };
  // Same messages, names and parameters: what is left in the hash is the tools' definitions (and
  // for the built-in loop, max tokens and temperature).
  return { messageIndex: null, path: UNSEEN_DIFFERENCE, recorded: undefined, replayed: undefined };
}

/** The path of a difference only the hash shows. */
export const UNSEEN_DIFFERENCE = 'tools (definitions) or parameters';

/** A whole request seen as a tape keeps it. */
export function viewOf(request: LlmRequest): RequestView {
  const tools = (request.tools ?? []).map((t) => t.function.name);
  const view: RequestView = { model: request.model, messages: request.messages, stream: request.stream, tools };
  if (request.endpoint !== undefined) view.endpoint = request.endpoint;
  if (request.params !== undefined) view.params = request.params;
  return view;
}
