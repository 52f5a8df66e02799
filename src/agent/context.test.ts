import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolCall } from '../core/messages.js';
import { compact, estimateAll, estimateTokens, slidingWindow, trimContext } from './context.js';

const system: ChatMessage = { role: 'system', content: 'sys' };
const task: ChatMessage = { role: 'user', content: 'the task' };

function call(id: string, args = '{}'): ToolCall {
  return { id, type: 'function', function: { name: 'read_file', arguments: args } };
}

/** An assistant step with `n` tool calls and their results, each result `size` characters long. */
function toolStep(id: string, n: number, size: number): ChatMessage[] {
  const calls = Array.from({ length: n }, (_, i) => call(`${id}_${i}`));
  return [
    { role: 'assistant', content: null, tool_calls: calls },
    ...calls.map((c): ChatMessage => ({ role: 'tool', tool_call_id: c.id, content: 'x'.repeat(size) })),
  ];
}

const text = (role: 'user' | 'assistant', size: number): ChatMessage => ({ role, content: 'y'.repeat(size) });

/**
 * Problems with tool messages in `messages`: a tool message not in the block right after the
 * assistant message that called it, or an assistant call whose result is missing from that block.
 */
function toolPairing(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m?.role === 'tool') {
      problems.push(`message ${i}: tool result ${m.tool_call_id} without its call`);
      continue;
    }
    if (m?.role !== 'assistant' || m.tool_calls === undefined) continue;
    const wanted = new Set(m.tool_calls.map((c) => c.id));
    let j = i + 1;
    for (; messages[j]?.role === 'tool'; j++) {
      const result = messages[j] as Extract<ChatMessage, { role: 'tool' }>;
      if (!wanted.delete(result.tool_call_id)) problems.push(`message ${j}: tool result ${result.tool_call_id} without its call`);
    }
    for (const id of wanted) problems.push(`message ${i}: call ${id} without its result`);
    i = j - 1;
  }
  return problems;
}

describe('estimateTokens', () => {
  it('is about four characters a token plus a per-message overhead', () => {
    expect(estimateTokens({ role: 'user', content: '' })).toBe(4);
    expect(estimateTokens({ role: 'user', content: 'abcd' })).toBe(5);
    expect(estimateTokens({ role: 'user', content: 'abcde' })).toBe(6);
    expect(estimateTokens({ role: 'assistant', content: null })).toBe(4);
  });

  it('counts tool-call names and arguments of assistant messages', () => {
    const message: ChatMessage = { role: 'assistant', content: null, tool_calls: [call('c', '{"path":"a"}')] };
    expect(estimateTokens(message)).toBe(Math.ceil(('read_file'.length + '{"path":"a"}'.length) / 4) + 4);
    expect(estimateAll([message, task])).toBe(estimateTokens(message) + estimateTokens(task));
  });
});

describe('trimContext', () => {
  const long = [system, task, ...toolStep('a', 1, 400), ...toolStep('b', 1, 400), text('assistant', 10)];

  it('never trims with a window of 0', () => {
    expect(trimContext(long, { strategy: 'sliding_window', window: 0, keepLast: 2 })).toEqual({ messages: long, removed: 0 });
    expect(trimContext(long, { strategy: 'compact', window: 0, keepLast: 2 })).toEqual({ messages: long, removed: 0 });
  });

  it('dispatches on the strategy', () => {
    expect(trimContext(long, { strategy: 'sliding_window', window: 150, keepLast: 2 })).toEqual(slidingWindow(long, 150));
    expect(trimContext(long, { strategy: 'compact', window: 150, keepLast: 2 })).toEqual(compact(long, 150, 2));
  });
});

describe('slidingWindow', () => {
  it('leaves a conversation that fits alone', () => {
    const messages = [system, task, ...toolStep('a', 2, 10)];
    expect(slidingWindow(messages, 1000)).toEqual({ messages, removed: 0 });
  });

  it('drops the oldest steps after the system message and the task, a call together with its results', () => {
    const messages = [system, task, ...toolStep('a', 2, 400), ...toolStep('b', 1, 40), text('assistant', 8)];
    const { messages: kept, removed } = slidingWindow(messages, 60);
    expect(removed).toBe(3);
    expect(kept).toEqual([system, task, ...toolStep('b', 1, 40), text('assistant', 8)]);
    expect(estimateAll(kept)).toBeLessThanOrEqual(60);
  });

  it('keeps the first user message when there is no system message', () => {
    const messages = [task, text('assistant', 400), text('user', 400), text('assistant', 4)];
    expect(slidingWindow(messages, 30).messages).toEqual([task, text('assistant', 4)]);
  });

  it('never drops the newest message, even when it alone is over the window', () => {
    const messages = [system, task, text('assistant', 400), ...toolStep('z', 1, 2000)];
    const { messages: kept, removed } = slidingWindow(messages, 10);
    expect(kept).toEqual([system, task, ...toolStep('z', 1, 2000)]);
    expect(removed).toBe(1);
  });
});

describe('compact', () => {
  it('leaves a conversation that fits alone', () => {
    const messages = [system, task, ...toolStep('a', 1, 10)];
    expect(compact(messages, 1000, 1)).toEqual({ messages, removed: 0 });
  });

  it('keeps the first messages and the last keepLast, with one marker for the rest', () => {
    const messages = [system, task, text('assistant', 400), text('user', 400), text('assistant', 400), text('user', 4)];
    const { messages: kept, removed } = compact(messages, 50, 2);
    expect(removed).toBe(2);
    expect(kept).toEqual([
      system,
      task,
      { role: 'user', content: '[2 earlier messages were removed to fit the context window]', internal: { reason: 'compaction' } },
      text('assistant', 400),
      text('user', 4),
    ]);
  });

  it('widens the kept tail to the assistant call when it would start at a tool result', () => {
    const messages = [system, task, text('assistant', 400), ...toolStep('a', 3, 10)];
    const { messages: kept, removed } = compact(messages, 20, 2);
    expect(removed).toBe(1);
    expect(kept.slice(3)).toEqual(toolStep('a', 3, 10));
    expect(kept[2]).toMatchObject({ content: '[1 earlier message was removed to fit the context window]' });
  });

  it('folds an earlier marker into the new one: one marker, counting every message removed so far', () => {
    const messages = [system, task, text('assistant', 400), text('user', 400), text('assistant', 400), text('user', 4)];
    const once = compact(messages, 50, 2).messages;
    const grown = [...once, text('assistant', 400), text('user', 400), text('assistant', 4)];
    const { messages: twice, removed } = compact(grown, 50, 2);
    // Removed now: the two kept before (assistant 400, user 4) and the new assistant 400; the marker is not a message.
    expect(removed).toBe(3);
    expect(twice.filter((m) => m.role === 'user' && m.internal?.reason === 'compaction')).toEqual([
      { role: 'user', content: '[5 earlier messages were removed to fit the context window]', internal: { reason: 'compaction' } },
    ]);
    expect(twice.slice(3)).toEqual([text('user', 400), text('assistant', 4)]);
  });

  it('does nothing when the only thing it could drop is an earlier marker', () => {
    const messages = [system, task, text('assistant', 400), text('user', 400), text('assistant', 400), text('user', 4)];
    const once = compact(messages, 50, 2).messages;
    expect(compact(once, 50, 2)).toEqual({ messages: once, removed: 0 });
  });
});

// Conversations the loop can produce: [system], the task, then steps of tool calls with their
// results, plain assistant answers, and further user messages.
const unit = fc.oneof(
  fc.record({ kind: fc.constant('tools' as const), n: fc.integer({ min: 1, max: 3 }), size: fc.integer({ min: 0, max: 300 }) }),
  fc.record({ kind: fc.constantFrom('assistant' as const, 'user' as const), size: fc.integer({ min: 0, max: 300 }) }),
);
const shape = fc.record({ withSystem: fc.boolean(), units: fc.array(unit, { maxLength: 12 }) });
const conversation = shape.map(({ withSystem, units }) => {
  const messages: ChatMessage[] = withSystem ? [system, task] : [task];
  units.forEach((u, i) => {
    if (u.kind === 'tools') messages.push(...toolStep(`s${i}`, u.n, u.size));
    else messages.push(text(u.kind, u.size));
  });
  return messages;
});

describe('trimming properties', () => {
  it('the output never has a tool result without its call (or a call without its results), and keeps system + task + newest', () => {
    fc.assert(
      fc.property(
        conversation,
        fc.constantFrom('sliding_window' as const, 'compact' as const),
        fc.integer({ min: 0, max: 1500 }),
        fc.integer({ min: 1, max: 10 }),
        (messages, strategy, window, keepLast) => {
          const pinned = messages[0]?.role === 'system' ? 2 : 1;
          const { messages: out, removed } = trimContext(messages, { strategy, window, keepLast });
          expect(toolPairing(out)).toEqual([]);
          expect(out.slice(0, pinned)).toEqual(messages.slice(0, pinned));
          expect(out.at(-1)).toEqual(messages.at(-1));
          // The rest is a suffix of the input (after a marker for compact): only a middle part is dropped.
          const marker = strategy === 'compact' && removed > 0 ? 1 : 0;
          const rest = out.slice(pinned + marker);
          expect(rest).toEqual(messages.slice(messages.length - rest.length));
          expect(out.length).toBe(messages.length - removed + marker);
          if (removed === 0) expect(out).toEqual(messages);
          if (window > 0 && strategy === 'sliding_window' && estimateAll(out) > window) {
            // Over the window only when nothing droppable is left: a single step after the pinned messages.
            expect(toolPairing(rest)).toEqual([]);
            expect(rest.slice(1).every((m) => m.role === 'tool')).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  const smallWindow = fc.integer({ min: 20, max: 400 });

  it('compacting again keeps exactly one marker whose count is the total removed', () => {
    fc.assert(
      fc.property(conversation, conversation, smallWindow, fc.integer({ min: 1, max: 6 }), (a, b, window, keepLast) => {
        const first = compact(a, window, keepLast);
        const grown = [...first.messages, ...b.slice(b[0]?.role === 'system' ? 2 : 1)];
        const second = compact(grown, window, keepLast);
        const markers = second.messages.filter((m) => m.role === 'user' && m.internal?.reason === 'compaction');
        expect(markers.length).toBeLessThanOrEqual(1);
        const total = first.removed + second.removed;
        if (total > 0) {
          expect(markers).toHaveLength(1);
          expect(markers[0]?.content).toMatch(new RegExp(`^\\[${total} earlier message`));
        }
        expect(toolPairing(second.messages)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
