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

describe('RequestHasher given the recorded requests (replay)', () => {
  const tools = [{ type: 'function' as const, function: { name: 'read_file', description: 'd', parameters: { type: 'object', properties: {} } } }];
  const first = [system, task];
  const second = [...first, answer];
  const requestOf = (messages: ChatMessage[], extra: Partial<LlmRequest> = {}): LlmRequest => ({ model: 'm', messages, tools, stream: false, ...extra });
  /** A recorded request whose hash is a marker: taking it, rather than hashing, is visible. */
  const recorded = (prefix: number, append: ChatMessage[], hash = 'RECORDED') => ({ prefix, append, hash, model: 'm', stream: false, tools: ['read_file'] });

  it('takes the recorded hash for the recorded request once an earlier request had the recorded hash', () => {
    const hasher = new RequestHasher();
    const firstHash = requestHash(requestOf(first));
    expect(hasher.hash(requestOf(first), { prefix: 0, append: first }, recorded(0, first, firstHash))).toBe(firstHash);
    expect(hasher.hash(requestOf(second), { prefix: 2, append: [answer] }, recorded(2, [{ content: 'done', role: 'assistant' }]))).toBe('RECORDED');
  });

  it('hashes in full whatever it cannot show to be the recorded request', () => {
    const firstHash = requestHash(requestOf(first));
    const anchored = (redact?: Parameters<typeof createRedactor>[0]): RequestHasher => {
      const hasher = new RequestHasher(redact === undefined ? undefined : createRedactor(redact));
      hasher.hash(requestOf(first), { prefix: 0, append: first }, recorded(0, first, firstHash));
      return hasher;
    };
    const full = (request: LlmRequest, redact?: Parameters<typeof createRedactor>[0]): string =>
      requestHash(request, redact === undefined ? undefined : createRedactor(redact));
    const delta = { prefix: 2, append: [answer] };
    const cases: Array<[string, RequestHasher, LlmRequest, ReturnType<typeof recorded>, string]> = [
      ['another message', anchored(), requestOf(second), recorded(2, [{ role: 'assistant', content: 'other' }]), full(requestOf(second))],
      ['another prefix', anchored(), requestOf(second), recorded(1, [answer]), full(requestOf(second))],
      ['another model', anchored(), requestOf(second, { model: 'n' }), { ...recorded(2, [answer]), model: 'n' }, full(requestOf(second, { model: 'n' }))],
      ['another token limit', anchored(), requestOf(second, { maxTokens: 9 }), recorded(2, [answer]), full(requestOf(second, { maxTokens: 9 }))],
      ['another tools list', anchored(), requestOf(second, { tools: [...tools] }), recorded(2, [answer]), full(requestOf(second))],
      ['other recorded tool names', anchored(), requestOf(second), { ...recorded(2, [answer]), tools: ['list_dir'] }, full(requestOf(second))],
      ['a user pattern (it might match within a digest)', anchored({ patterns: ['zzz'] }), requestOf(second), recorded(2, [answer]), full(requestOf(second), { patterns: ['zzz'] })],
    ];
    for (const [name, hasher, request, tape, expected] of cases) expect(hasher.hash(request, delta, tape), name).toBe(expected);

    // A message the redactor changes: the recorded hash was taken over the redacted text, not this one.
    const secret: ChatMessage = { role: 'assistant', content: 'pw hunter2hunter2' };
    const withSecret = requestOf([...first, secret]);
    expect(anchored({ secrets: ['hunter2hunter2'] }).hash(withSecret, { prefix: 2, append: [secret] }, recorded(2, [secret])))
      .toBe(full(withSecret, { secrets: ['hunter2hunter2'] }));

    // A redactor made elsewhere, which does not say it keeps digests as they are.
    const { keepsHex: _keepsHex, ...elsewhere } = createRedactor();
    const foreign = Object.assign(<T>(value: T): T => value, elsewhere);
    const foreignHasher = new RequestHasher(foreign);
    foreignHasher.hash(requestOf(first), { prefix: 0, append: first }, recorded(0, first, firstHash));
    expect(foreignHasher.hash(requestOf(second), delta, recorded(2, [answer]))).toBe(full(requestOf(second)));

    // No request yet had the recorded hash: nothing vouches for the settings.
    const unanchored = new RequestHasher();
    unanchored.hash(requestOf(first), { prefix: 0, append: first }, recorded(0, first, 'not its hash'));
    expect(unanchored.hash(requestOf(second), delta, recorded(2, [answer]))).toBe(full(requestOf(second)));
    // A request not in hand breaks the chain of requests known to be the recorded ones.
    const gap = anchored();
    gap.hash(requestOf(second), delta);
    expect(gap.hash(requestOf([...second, task]), { prefix: 3, append: [task] }, recorded(3, [task]))).toBe(full(requestOf([...second, task])));
  });

  /** A run's requests, each as its conversation and the delta from the one before; some messages hold a secret. */
  const said = fc.oneof(fc.string({ maxLength: 8 }), fc.constant('pw hunter2hunter2'));
  const step = fc.record({
    add: fc.array(fc.oneof(
      fc.record({ role: fc.constant('user' as const), content: said }),
      fc.record({ role: fc.constant('assistant' as const), content: fc.option(said, { nil: null }) }),
      message,
    ), { maxLength: 3 }),
    trim: fc.boolean(),
  });
  /** The replay's redactor: none, the built-in rules, a secret, a pattern of the user's (which might match within a digest). */
  const redactors = {
    none: undefined,
    builtins: createRedactor(),
    secret: createRedactor({ secrets: ['hunter2hunter2'] }),
    pattern: createRedactor({ patterns: ['a{2}'] }),
  };
  const change = fc.record({
    message: fc.boolean(),
    setting: fc.constantFrom('none', 'none', 'none', 'model', 'maxTokens', 'tools-copy'),
    inHand: fc.boolean(),
  });

  it('property: a replay gets the same hashes with the recorded requests as hashing each in full', () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 8 }), fc.array(change, { minLength: 8, maxLength: 8 }), fc.constantFrom('none', 'builtins', 'secret', 'pattern' as const), (steps, changes, which) => {
        // The recording: its conversation and true hashes, as a tape holds them.
        const tape: Array<ReturnType<typeof recorded> & { messages: ChatMessage[] }> = [];
        const recordingHasher = new RequestHasher();
        let conversation: ChatMessage[] = [];
        for (const { add, trim } of steps) {
          const next = [...(trim ? conversation.slice(1) : conversation), ...add];
          const delta = requestDelta(conversation, next);
          tape.push({ ...recorded(delta.prefix, delta.append, recordingHasher.hash(requestOf(next), delta)), messages: next });
          conversation = next;
        }
        // The replay: the recorded conversation, with a message or a setting changed here and there.
        const redact = redactors[which];
        const full = new RequestHasher(redact);
        const fast = new RequestHasher(redact);
        let previous: ChatMessage[] = [];
        tape.forEach((entry, i) => {
          const c = changes[i] ?? { message: false, setting: 'none', inHand: true };
          const messages = c.message && entry.messages.length > 0
            ? [...entry.messages.slice(0, -1), { role: 'user' as const, content: 'changed' }]
            : entry.messages.map((m) => structuredClone(m));
          const extra: Partial<LlmRequest> = c.setting === 'model' ? { model: 'n' } : c.setting === 'maxTokens' ? { maxTokens: 5 } : c.setting === 'tools-copy' ? { tools: [...tools] } : {};
          const request = requestOf(messages, extra);
          const delta = requestDelta(previous, messages);
          const expected = full.hash(request, delta);
          const got = fast.hash(request, delta, c.inHand ? entry : undefined);
          expect(got).toBe(expected);
          if (c.inHand && expected === entry.hash && i > 0) taken++;
          previous = messages;
        });
      }),
      { numRuns: 500 },
    );
    // The property must have met requests that are the recorded ones.
    expect(taken).toBeGreaterThan(100);
  });
});
