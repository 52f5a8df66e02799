import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LlmRequest } from '../core/llm.js';
import type { ChatMessage } from '../core/messages.js';
import { createRedactor, REDACTED } from '../core/redact.js';
import { applyDelta, RequestHasher, requestDelta, requestHash } from './request-delta.js';

const system: ChatMessage = { role: 'system', content: 'sys' };
const task: ChatMessage = { role: 'user', content: 'task' };
const answer: ChatMessage = { role: 'assistant', content: 'done' };

const message: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.record({ role: fc.constant('system' as const), content: fc.string({ maxLength: 8 }) }),
  fc.record({ role: fc.constant('user' as const), content: fc.string({ maxLength: 8 }) }),
  fc.record(
    { role: fc.constant('user' as const), content: fc.string({ maxLength: 8 }), internal: fc.record({ reason: fc.constantFrom('max_tokens_recovery', 'compaction') }) },
  ),
  fc.record({ role: fc.constant('assistant' as const), content: fc.option(fc.string({ maxLength: 8 }), { nil: null }) }),
  fc.record({
    role: fc.constant('assistant' as const),
    content: fc.constant(null),
    tool_calls: fc.array(
      fc.record({
        id: fc.constantFrom('c1', 'c2'),
        type: fc.constant('function' as const),
        function: fc.record({ name: fc.constantFrom('read_file', 'exec_shell'), arguments: fc.constantFrom('{}', '{"path":"a"}') }),
      }),
      { minLength: 1, maxLength: 2 },
    ),
  }),
  fc.record({ role: fc.constant('tool' as const), tool_call_id: fc.constantFrom('c1', 'c2'), content: fc.string({ maxLength: 8 }) }),
);
const messages = fc.array(message, { maxLength: 10 });

describe('requestDelta / applyDelta', () => {
  it('an appended turn is stored as the shared prefix length and the new messages', () => {
    expect(requestDelta([system, task], [system, task, answer])).toEqual({ prefix: 2, append: [answer] });
    expect(requestDelta([], [system, task])).toEqual({ prefix: 0, append: [system, task] });
    expect(requestDelta([system, task], [system, task])).toEqual({ prefix: 2, append: [] });
  });

  it('a trimmed context has a shorter common prefix', () => {
    const before = [system, task, answer, { role: 'user', content: 'more' } as ChatMessage];
    const after = [system, task, { role: 'user', content: 'more' } as ChatMessage];
    expect(requestDelta(before, after)).toEqual({ prefix: 2, append: [{ role: 'user', content: 'more' }] });
  });

  it('compares messages by content, not by key order or identity', () => {
    const reordered = { content: 'task', role: 'user' } as ChatMessage;
    expect(requestDelta([system, task], [{ ...system }, reordered, answer]).prefix).toBe(2);
    // A changed internal tag is a different message (it is part of what the tape must rebuild).
    const tagged: ChatMessage = { role: 'user', content: 'task', internal: { reason: 'compaction' } };
    expect(requestDelta([system, task], [system, tagged]).prefix).toBe(1);
  });

  it('property: applyDelta(prev, requestDelta(prev, next)) equals next', () => {
    fc.assert(
      fc.property(messages, messages, (prev, next) => {
        const delta = requestDelta(prev, next);
        expect(applyDelta(prev, delta)).toEqual(next);
        expect(delta.prefix).toBeLessThanOrEqual(Math.min(prev.length, next.length));
        expect(delta.append).toHaveLength(next.length - delta.prefix);
      }),
      { numRuns: 500 },
    );
  });

  it('property: when next extends prev, the delta is exactly the extension', () => {
    fc.assert(
      fc.property(messages, messages, (prev, extra) => {
        expect(requestDelta(prev, [...prev, ...extra])).toEqual({ prefix: prev.length, append: extra });
      }),
    );
  });
});

describe('requestHash', () => {
  const request: LlmRequest = {
    model: 'm',
    messages: [system, task],
    tools: [{ type: 'function', function: { name: 'read_file', description: 'd', parameters: { type: 'object', properties: {} } } }],
    stream: false,
  };

  it('is a sha-256 hex digest, stable across calls', () => {
    expect(requestHash(request)).toMatch(/^[0-9a-f]{64}$/);
    expect(requestHash(request)).toBe(requestHash(structuredClone(request)));
  });

  it('does not depend on key order anywhere in the request', () => {
    const reordered = {
      stream: false,
      tools: [{ function: { parameters: { properties: {}, type: 'object' }, description: 'd', name: 'read_file' }, type: 'function' }],
      messages: [{ content: 'sys', role: 'system' }, { content: 'task', role: 'user' }],
      model: 'm',
    } as LlmRequest;
    expect(requestHash(reordered)).toBe(requestHash(request));
  });

  it('property: key order of every message never changes the hash', () => {
    fc.assert(
      fc.property(messages, (list) => {
        const reversed = list.map((m) => Object.fromEntries(Object.entries(m).reverse()) as unknown as ChatMessage);
        expect(requestHash({ ...request, messages: reversed })).toBe(requestHash({ ...request, messages: list }));
      }),
    );
  });

  it('changes with anything that decides the answer', () => {
    const base = requestHash(request);
    const variants: LlmRequest[] = [
      { ...request, model: 'other' },
      { ...request, messages: [system, { role: 'user', content: 'task!' }] },
      { ...request, messages: [task, system] },
      { ...request, tools: [] },
      { ...request, stream: true },
      { ...request, maxTokens: 100 },
      { ...request, temperature: 0 },
    ];
    const hashes = variants.map((v) => requestHash(v));
    expect(new Set([base, ...hashes]).size).toBe(variants.length + 1);
  });

  it('an absent tools list and an empty one are the same request', () => {
    const { tools: _tools, ...withoutTools } = request;
    expect(requestHash(withoutTools)).toBe(requestHash({ ...request, tools: [] }));
  });
});

describe('RequestHasher', () => {
  const message = fc.oneof(
    fc.record({ role: fc.constant('user' as const), content: fc.string({ maxLength: 12 }) }),
    fc.record({ role: fc.constant('assistant' as const), content: fc.option(fc.string({ maxLength: 12 }), { nil: null }) }),
  );
  it('property: hashing each request from its delta equals hashing it whole, through growth and trims', () => {
    const batchesArb = fc.array(fc.array(message, { maxLength: 6 }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(batchesArb, fc.array(fc.nat(), { minLength: 6, maxLength: 6 }), (batches, cuts) => {
        const hasher = new RequestHasher();
        let conversation: ChatMessage[] = [];
        let previous: ChatMessage[] = [];
        batches.forEach((batch, i) => {
          // Grow, and now and then trim from the front (a context strategy rewriting history).
          conversation = [...conversation, ...batch];
          const cut = (cuts[i] ?? 0) % 3 === 0 ? Math.min(conversation.length, 1) : 0;
          conversation = conversation.slice(cut);
          const request = { model: 'm', messages: conversation, stream: false };
          const delta = requestDelta(previous, conversation);
          expect(hasher.hash(request, delta)).toBe(requestHash(request));
          previous = conversation;
        });
      }),
    );
  });

  it('hashes the redacted request', () => {
    const redact = createRedactor({ secrets: ['hunter2hunter2'] });
    const secret = { model: 'm', messages: [{ role: 'user' as const, content: 'pw hunter2hunter2' }], stream: false };
    const redacted = { ...secret, messages: [{ role: 'user' as const, content: `pw ${REDACTED}` }] };
    expect(requestHash(secret, redact)).toBe(requestHash(redacted));
    expect(new RequestHasher(redact).hash(secret, { prefix: 0, append: secret.messages })).toBe(requestHash(redacted));
  });
});
