/**
 * Context trimming (docs/loop.md). Token counts are estimates (about four characters a token), which is
 * enough to keep a request under a window without a tokenizer. Messages are dropped in units: an
 * assistant message with tool calls goes together with its tool results, because a tool result
 * without its call is an invalid request for OpenAI-compatible servers.
 */
import type { ChatMessage } from '../core/messages.js';

/** Estimated tokens of one message: content and tool-call text, plus a small per-message overhead. */
export function estimateTokens(message: ChatMessage): number {
  let chars = message.content?.length ?? 0;
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) chars += call.function.name.length + call.function.arguments.length;
  }
  return Math.ceil(chars / 4) + 4;
}

export function estimateAll(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateTokens(message);
  return total;
}

/** Index of the first user message: kept by `sliding_window` alongside the system message. */
function pinnedCount(messages: readonly ChatMessage[]): number {
  let i = 0;
  if (messages[0]?.role === 'system') i = 1;
  if (messages[i]?.role === 'user') i++;
  return i;
}

/** Length of the droppable unit starting at `i`: one message, or an assistant turn with its tool results. */
function unitLength(messages: readonly ChatMessage[], i: number): number {
  let n = 1;
  if (messages[i]?.role === 'assistant') while (messages[i + n]?.role === 'tool') n++;
  return n;
}

/**
 * `sliding_window`: drop the oldest messages after the pinned ones (system + first user message)
 * until the estimate fits `window`. The newest message is never dropped.
 */
export function slidingWindow(messages: readonly ChatMessage[], window: number): { messages: ChatMessage[]; removed: number } {
  const pinned = pinnedCount(messages);
  const kept = [...messages];
  let total = estimateAll(kept);
  let removed = 0;
  while (total > window && kept.length - pinned > 1) {
    const n = unitLength(kept, pinned);
    // The newest message (the one the model must answer) always stays.
    if (pinned + n >= kept.length) break;
    for (const gone of kept.splice(pinned, n)) total -= estimateTokens(gone);
    removed += n;
  }
  return { messages: kept, removed };
}

/** How many messages an earlier compaction marker stands for; undefined for any other message. */
function markerCount(message: ChatMessage): number | undefined {
  if (message.role !== 'user' || message.internal?.reason !== 'compaction') return undefined;
  const count = /^\[(\d+) earlier message/.exec(message.content)?.[1];
  return count === undefined ? 1 : Number(count);
}

/**
 * `compact`: keep the first message(s) (system and first user message) and the last `keepLast`,
 * and put one marker message where the others were, saying how many were removed. A marker left
 * by an earlier compaction is folded into the new one, so the count stays the conversation's total
 * and there is never more than one marker. `removed` counts the conversation messages dropped now.
 */
export function compact(
  messages: readonly ChatMessage[],
  window: number,
  keepLast: number,
): { messages: ChatMessage[]; removed: number } {
  if (estimateAll(messages) <= window) return { messages: [...messages], removed: 0 };
  const pinned = pinnedCount(messages);
  let tailStart = Math.max(pinned, messages.length - keepLast);
  // Never start the kept tail with a tool result whose assistant call was cut off.
  while (tailStart > pinned && messages[tailStart]?.role === 'tool') tailStart--;
  let removed = 0;
  let total = 0;
  for (const message of messages.slice(pinned, tailStart)) {
    const earlier = markerCount(message);
    if (earlier === undefined) removed++;
    total += earlier ?? 1;
  }
  // Nothing but an old marker in the way: dropping it would only lose the count.
  if (removed <= 0) return { messages: [...messages], removed: 0 };
  const marker: ChatMessage = {
    role: 'user',
    content: `[${total} earlier message${total === 1 ? ' was' : 's were'} removed to fit the context window]`,
    internal: { reason: 'compaction' },
  };
  return { messages: [...messages.slice(0, pinned), marker, ...messages.slice(tailStart)], removed };
}

/** Apply the configured strategy (docs/loop.md); a window of 0 never trims. */
export function trimContext(
  messages: readonly ChatMessage[],
  context: { strategy: 'sliding_window' | 'compact'; window: number; keepLast: number },
): { messages: ChatMessage[]; removed: number } {
  if (context.window <= 0) return { messages: [...messages], removed: 0 };
  return context.strategy === 'compact'
    ? compact(messages, context.window, context.keepLast)
    : slidingWindow(messages, context.window);
}
