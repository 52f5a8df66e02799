/** EventRedactor on what is recorded at the transport: raw server-sent events and reply bodies. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventRedactor } from './event-redactor.js';
import type { LlmChunkEvent, LlmResponseEvent, RunEvent } from './events.js';
import type { LlmChunk } from './llm.js';
import { createRedactor, REDACTED } from './redact.js';
import { SAMPLE_SECRETS } from './test-support/secrets.js';
import { chunkEvents, cuts, redact } from './test-support/event-redactor-support.js';

describe('EventRedactor: raw server-sent events recorded at the transport', () => {
  /** Chunk events as the recording fetch writes them: each with the raw SSE event it came from. */
  const rawEvents = (pieces: readonly string[]): LlmChunkEvent[] =>
    chunkEvents(pieces).map((event) => {
      const content = event.chunk.content ?? '';
      return { ...event, raw: `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n` };
    });

  it('cuts the raw events where their chunks were cut: no fragment of a secret survives in any of them', () => {
    const secrets = Object.values(SAMPLE_SECRETS).filter((s) => !/^(bearer|basic) /i.test(s) && !s.includes('\n'));
    fc.assert(
      fc.property(fc.constantFrom(...secrets), fc.string({ maxLength: 8 }), (secret, before) => {
        fc.assert(
          fc.property(cuts(`${before} ${secret} end`), (pieces) => {
            const redactor = new EventRedactor(createRedactor());
            const out = rawEvents(pieces).flatMap((e) => redactor.accept(e as RunEvent)) as LlmChunkEvent[];
            expect(out).toHaveLength(pieces.length);
            for (const event of out) {
              // Every raw event is still one JSON event, and says what its chunk says.
              const data = JSON.parse((event.raw ?? '').replace(/^data: /, '')) as { choices: [{ delta: { content: string } }] };
              expect(data.choices[0].delta.content).toBe(event.chunk.content);
              expect(event.raw).not.toContain(secret.slice(-6));
            }
          }),
          { numRuns: 15 },
        );
      }),
      { numRuns: 25 },
    );
  });

  it('drops a stream\'s raw events when one cannot be cut like its chunk (the replay rebuilds them)', () => {
    const redactor = new EventRedactor(redact);
    const [a, b] = chunkEvents(['the password: hunter2-is-', 'my-password, done']);
    // The raw text of the first does not hold its chunk's text as a JSON string (its data is not JSON).
    const events = [{ ...a, raw: 'data: the password: hunter2-is-\n\n' }, { ...b, raw: 'data: {"c":"my-password, done"}\n\n' }];
    const out = events.flatMap((e) => redactor.accept(e as RunEvent)) as LlmChunkEvent[];
    expect(out.map((e) => e.chunk.content)).toEqual([`the password: ${REDACTED}`, ', done']);
    expect(out.map((e) => e.raw)).toEqual([undefined, undefined]);
  });

  it('reads a raw event\'s JSON: a piece written with escapes is cut like its chunk', () => {
    const redactor = new EventRedactor(redact);
    const [a, b] = chunkEvents(['the password: hunter2-is-', 'my-password, done']);
    const events = [{ ...a, raw: 'data: {"c":"the password: hunter2\\u002dis-"}\n\n' }, { ...b, raw: 'data: {"c":"my-password, done"}\n\n' }];
    const out = events.flatMap((e) => redactor.accept(e as RunEvent)) as LlmChunkEvent[];
    expect(out.map((e) => e.chunk.content)).toEqual([`the password: ${REDACTED}`, ', done']);
    expect(out.map((e) => e.raw)).toEqual([`data: {"c":"the password: ${REDACTED}"}\n\n`, 'data: {"c":", done"}\n\n']);
  });

  it('writes again only the events a cut changed, their event line kept; several events of one raw text each on their own', () => {
    const redactor = new EventRedactor(redact);
    const delta = (n: number, text: string, tokens: string[]) =>
      `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: text, logprobs: tokens.map((token) => ({ token, bytes: [...new TextEncoder().encode(token)] })), sequence_number: n })}\n\n`;
    const opener = ': keep-alive\n\nevent: response.created\ndata: {"type":"response.created","sequence_number":0}\n\n';
    const raws = [opener + delta(1, 'pw hunter2-is', ['pw ', 'hunter2-is']), delta(2, '-my-password ok', ['-my-', 'password ok']), 'data: [DONE]\n\n'];
    const [a, b, c] = chunkEvents(['pw hunter2-is', '-my-password ok', '']);
    const events = [a, b, { ...c, chunk: { ...c?.chunk, content: undefined } }].map((e, i) => ({ ...e, raw: raws[i] }));
    const out = events.flatMap((e) => redactor.accept(e as RunEvent)) as LlmChunkEvent[];
    expect(out.map((e) => e.chunk.content)).toEqual([`pw ${REDACTED}`, ' ok', undefined]);
    const cut = (n: number, text: string, tokens: [string, number[] | null][]) =>
      `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: text, logprobs: tokens.map(([token, bytes]) => ({ token, bytes })), sequence_number: n })}\n\n`;
    expect(out.map((e) => e.raw)).toEqual([
      opener + cut(1, `pw ${REDACTED}`, [['pw ', [112, 119, 32]], [REDACTED, null]]),
      cut(2, ' ok', [['', null], [' ok', null]]),
      'data: [DONE]\n\n',
    ]);
  });

  it('redacts a secret that sits whole in one raw event, outside its chunk\'s text too', () => {
    const redactor = new EventRedactor(redact);
    const [a] = chunkEvents(['hello']);
    const [out] = redactor.accept({ ...a, raw: 'data: {"content":"hello","note":"hunter2-is-my-password"}\n\n' } as RunEvent) as LlmChunkEvent[];
    expect(out?.raw).toBe(`data: {"content":"hello","note":"${REDACTED}"}\n\n`);
  });
});

describe('EventRedactor: texts carried in pieces besides the chunks\' (reasoning, logprob tokens)', () => {
  const secrets = Object.values(SAMPLE_SECRETS).filter((s) => !s.includes('\n'));
  const plain = createRedactor();

  /** One server-sent event of a fake stream: its JSON (or `[DONE]`), and the chunk text it adds, if any. */
  interface Sse {
    event?: string;
    data: unknown;
    content?: string;
  }
  const sseText = (e: Sse): string => `${e.event === undefined ? '' : `event: ${e.event}\n`}data: ${e.data === '[DONE]' ? '[DONE]' : JSON.stringify(e.data)}\n\n`;

  /**
   * Chunk events as the transport writes them: an event that adds text ends a chunk, and so does
   * any other where `ends` says so (the last always); a chunk's raw is every event since the last.
   */
  const transport = (sse: readonly Sse[], ends: readonly boolean[]): LlmChunkEvent[] => {
    const out: LlmChunkEvent[] = [];
    let raw = '';
    for (const [i, e] of sse.entries()) {
      raw += sseText(e);
      const last = i === sse.length - 1;
      if (e.content === undefined && ends[i] !== true && !last) continue;
      const index = out.length;
      const chunk: LlmChunk = { index, offsetMs: index, finished: last };
      if (e.content !== undefined) chunk.content = e.content;
      out.push({ seq: index, step: 0, t: 0, type: 'llm_chunk', iteration: 0, attempt: 0, chunk, raw });
      raw = '';
    }
    return out;
  };

  /** A raw text's server-sent events, split as the transport splits them. */
  const sseParts = (raw: string): string[] => raw.split(/(?<=\n\n)/).filter((p) => p !== '');
  const dataOf = (part: string): unknown => {
    const data = part.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    return data === '[DONE]' ? data : JSON.parse(data);
  };

  /** Every text a value spells: its strings, and its arrays of byte values decoded (a logprob's `bytes`). */
  const spelled = (value: unknown): string[] => {
    if (typeof value === 'string') return [value];
    if (Array.isArray(value)) {
      const bytes = value.length > 0 && value.every((v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) < 256);
      return bytes ? [new TextDecoder().decode(new Uint8Array(value as number[]))] : value.flatMap(spelled);
    }
    if (value !== null && typeof value === 'object') return Object.values(value).flatMap(spelled);
    return [];
  };

  /** Everything a stream's output says, its raw events parsed (each must parse). */
  const allSpelled = (events: readonly RunEvent[]): string[] => [
    JSON.stringify(events),
    ...spelled(events),
    ...events.flatMap((e) => (e.type === 'llm_chunk' && e.raw !== undefined ? sseParts(e.raw).flatMap((p) => spelled(dataOf(p))) : [])),
  ];

  /** The text's pieces, each with whether it touches a secret (the events that carry the others must not change). */
  const touched = (text: string, pieces: readonly string[]): boolean[] => {
    const spans = plain.spans(text);
    let at = 0;
    return pieces.map((piece) => {
      const from = at;
      at += piece.length;
      return spans.some(([s, e]) => s < at && e > from);
    });
  };

  const utf8 = (text: string): number[] => [...new TextEncoder().encode(text)];

  /**
   * Run a stream through the redactor and check it: no tail of the secret anywhere, every raw event
   * parses and says what its chunk says, the events that carry no part of a secret are byte for byte
   * what they were, and the pieces (read by `pieces`) join to the text redacted as a whole.
   */
  const check = (
    secret: string, text: string, sse: readonly Sse[], ends: readonly boolean[], keep: readonly boolean[],
    read: (data: unknown) => string | undefined,
  ): void => {
    const input = transport(sse, ends);
    const redactor = new EventRedactor(createRedactor());
    const out = input.flatMap((e) => redactor.accept(e as RunEvent)) as LlmChunkEvent[];
    expect(out).toHaveLength(input.length);
    for (const said of allSpelled(out)) expect(said).not.toContain(secret.slice(-6));
    const before = input.flatMap((e) => sseParts(e.raw ?? ''));
    const after = out.flatMap((e) => {
      expect(e.raw).toBeDefined();
      const parts = sseParts(e.raw ?? '');
      const data = parts.map(dataOf);
      // The raw event says what its chunk says.
      type Delta = { choices?: [{ delta?: { content?: string } }]; delta?: string };
      const texts = data.map((d) => (d as Delta).choices?.[0]?.delta?.content ?? (d as Delta).delta);
      if (e.chunk.content !== undefined) expect(texts).toContain(e.chunk.content);
      return parts;
    });
    expect(after).toHaveLength(before.length);
    before.forEach((part, i) => {
      if (keep[i] === true) expect(after[i]).toBe(part);
    });
    expect(after.map((p) => read(dataOf(p)) ?? '').join('')).toBe(plain.text(text));
  };

  /** A text holding the secret, cut anywhere, and where (besides the text's events) the transport ends a chunk. */
  const streams = (secret: string): fc.Arbitrary<{ text: string; pieces: string[]; ends: boolean[] }> =>
    fc.string({ maxLength: 8 }).chain((before) => {
      const text = `${before} ${secret} end`;
      return cuts(text).chain((pieces) =>
        fc.record({
          text: fc.constant(text),
          pieces: fc.constant(pieces),
          ends: fc.array(fc.boolean(), { minLength: pieces.length + 4, maxLength: pieces.length + 4 }),
        }));
    });
  const cases = fc.constantFrom(...secrets).chain((secret) => fc.record({ secret: fc.constant(secret), s: streams(secret) }));

  it('a chat stream\'s reasoning_content, split anywhere across its events', () => {
    fc.assert(
      fc.property(cases, ({ secret, s }) => {
        const { text, pieces, ends } = s;
        const frame = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
        const sse: Sse[] = [
          { data: frame({ role: 'assistant', content: '' }) },
          ...pieces.map((piece) => ({ data: frame({ reasoning_content: piece }) })),
          { data: frame({ content: 'yes' }), content: 'yes' },
          { data: frame({}, 'stop') },
          { data: '[DONE]' },
        ];
        const keep = [true, ...touched(text, pieces).map((t) => !t), true, true, true];
        type Frame = { choices?: [{ delta: { reasoning_content?: string } }] };
        check(secret, text, sse, ends, keep, (d) => (d as Frame).choices?.[0].delta.reasoning_content);
      }),
      { numRuns: 400 },
    );
  });

  it('a Responses API stream\'s reasoning summary, split anywhere across its events', () => {
    fc.assert(
      fc.property(cases, ({ secret, s }) => {
        const { text, pieces, ends } = s;
        let n = 0;
        const ev = (type: string, data: Record<string, unknown>, content?: string): Sse =>
          ({ event: type, data: { type, ...data, sequence_number: n++ }, ...(content === undefined ? {} : { content }) });
        const summary = { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text }] };
        const message = { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'yes', annotations: [] }] };
        const sse: Sse[] = [
          ev('response.created', { response: { id: 'resp_1', status: 'in_progress', output: [] } }),
          ev('response.output_item.added', { output_index: 0, item: { type: 'reasoning', id: 'rs_1', summary: [] } }),
          ev('response.reasoning_summary_part.added', { item_id: 'rs_1', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } }),
          ...pieces.map((delta) => ev('response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, summary_index: 0, delta })),
          ev('response.reasoning_summary_text.done', { item_id: 'rs_1', output_index: 0, summary_index: 0, text }),
          ev('response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'yes' }, 'yes'),
          ev('response.completed', { response: { id: 'resp_1', status: 'completed', output: [summary, message] } }),
        ];
        const keep = [true, true, true, ...touched(text, pieces).map((t) => !t), false, true, false];
        const read = (d: unknown) => {
          const { type, delta } = d as { type: string; delta?: string };
          return type === 'response.reasoning_summary_text.delta' ? delta : undefined;
        };
        check(secret, text, sse, ends, keep, read);
      }),
      { numRuns: 400 },
    );
  });

  /** A logprob entry for a token, with its bytes and its alternatives (the token itself first). */
  const logprob = (token: string) => ({
    token, logprob: -0.5, bytes: utf8(token),
    top_logprobs: [{ token, logprob: -0.5, bytes: utf8(token) }, { token: ' zq', logprob: -3, bytes: utf8(' zq') }],
  });

  /**
   * A chat stream whose events carry logprob tokens (the pieces), one or more an event (a token
   * starts a new event where `apart` says so), checked as `check` does, its alternatives too.
   */
  type Stream = { text: string; pieces: string[]; ends: boolean[] };
  const checkLogprobStream = (secret: string, { text, pieces, ends }: Stream, apart: readonly boolean[]): void => {
    // The tokens in events: a token starts a new event where `apart` says so (an event's text is its tokens').
    const groups: string[][] = [];
    pieces.forEach((piece, i) => {
      if (i === 0 || apart[i] === true) groups.push([piece]);
      else groups[groups.length - 1]?.push(piece);
    });
    const frame = (tokens: readonly string[]) => ({
      id: 'chatcmpl-1', object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: tokens.join('') }, logprobs: { content: tokens.map(logprob) }, finish_reason: null }],
    });
    const sse: Sse[] = [...groups.map((tokens) => ({ data: frame(tokens), content: tokens.join('') })), { data: '[DONE]' }];
    const hit = touched(text, groups.map((tokens) => tokens.join('')));
    const keep = [...hit.map((t) => !t), true];
    type Entry = { token: string; bytes: number[] | null };
    type Frame = { choices?: [{ logprobs: { content: (Entry & { top_logprobs: Entry[] })[] } }] };
    const entries = (d: unknown) => (d as Frame).choices?.[0].logprobs.content ?? [];
    check(secret, text, sse, ends, keep, (d) => entries(d).map((e) => e.token).join(''));
    // The alternatives listed first are cut the same way; a token cut has lost its bytes.
    const redactor = new EventRedactor(plain);
    const out = transport(sse, ends).flatMap((e) => redactor.accept(e as RunEvent)) as LlmChunkEvent[];
    const all = out.flatMap((e) => sseParts(e.raw ?? '').map(dataOf)).flatMap(entries);
    expect(all).toHaveLength(pieces.length);
    expect(all.map((e) => e.top_logprobs[0]?.token).join('')).toBe(plain.text(text));
    all.forEach((e, i) => {
      if (e.token !== pieces[i]) expect([e.bytes, e.top_logprobs[0]?.bytes]).toEqual([null, null]);
    });
  };

  it('a chat stream\'s logprob tokens, one or more an event, the secret split anywhere', () => {
    fc.assert(
      fc.property(cases, fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), ({ secret, s }, apart) => checkLogprobStream(secret, s, apart)),
      { numRuns: 400 },
    );
  });

  it('a chat stream\'s logprob tokens: a key-shaped text the interleaved alternatives spell leaves the chosen tokens\' mark', () => {
    // " zq" (an alternative) and the first 38 characters of the Google key spell 40 characters of
    // base64 in the alternatives read in turn: a secret that starts in " zq", not in the key's token.
    const secret = 'AIzai3fjXgLbkYipgUWHeqyEhTOUqZF7byoQkoD';
    const text = `nXf{F ${secret} end`;
    checkLogprobStream(secret, { text, pieces: ['nXf{F ', secret.slice(0, -1), 'D end'], ends: Array<boolean>(7).fill(false) }, Array<boolean>(6).fill(false));
  });

  it('a whole reply body\'s logprob tokens: an alternative that starts a key-shaped text read in turn is redacted, the chosen tokens as they were', () => {
    const secret = 'AIzai3fjXgLbkYipgUWHeqyEhTOUqZF7byoQkoD';
    const text = `!@ ${secret} end`;
    const pieces = ['!@ ', secret.slice(0, -1), 'D end'];
    const body = { id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: { content: pieces.map(logprob) }, finish_reason: 'stop' }] };
    const event: RunEvent = {
      seq: 0, step: 0, t: 0, type: 'llm_response', iteration: 0, attempt: 0, durationMs: 1,
      response: { message: { role: 'assistant', content: text }, finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
      http: { status: 200, headers: {}, body },
    };
    const [out] = new EventRedactor(plain).accept(event) as LlmResponseEvent[];
    const entries = ((out?.http?.body as typeof body).choices[0] as (typeof body.choices)[0]).logprobs.content;
    expect(entries.map((e) => [e.token, e.bytes === null, e.top_logprobs.map((t) => t.token)])).toEqual([
      ['!@ ', false, ['!@ ', ` ${REDACTED}`]],
      [REDACTED, true, [REDACTED, ' zq']],
      [' end', true, [' end', ' zq']],
    ]);
  });

  it('a whole reply body\'s logprob tokens, the secret split anywhere across them', () => {
    fc.assert(
      fc.property(cases, ({ secret, s }) => {
        const { text, pieces } = s;
        const body = {
          id: 'chatcmpl-1', object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: { content: pieces.map(logprob) }, finish_reason: 'stop' }],
        };
        const event: RunEvent = {
          seq: 0, step: 0, t: 0, type: 'llm_response', iteration: 0, attempt: 0, durationMs: 1,
          response: { message: { role: 'assistant', content: text }, finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
          http: { status: 200, headers: {}, body },
        };
        const [out] = new EventRedactor(plain).accept(event) as LlmResponseEvent[];
        for (const said of allSpelled([out as RunEvent])) expect(said).not.toContain(secret.slice(-6));
        const entries = ((out?.http?.body as typeof body).choices[0] as (typeof body.choices)[0]).logprobs.content;
        expect(entries.map((e) => e.token).join('')).toBe(plain.text(text));
        expect(entries.map((e) => e.top_logprobs[0]?.token).join('')).toBe(plain.text(text));
        const hit = touched(text, pieces);
        entries.forEach((entry, i) => {
          // A token the secret touched lost its bytes; the others are as they were, their alternatives
          // too — but for one that, read in turn with its neighbours' tokens, is part of a key-shaped
          // text (" zq" then a Google key's first 38 characters spell 40 of base64): that one is cut
          // as a secret is (what is kept of it, then maybe the mark), and has lost its bytes.
          if (hit[i] === true) expect(entry.bytes).toBeNull();
          else {
            const was = logprob(pieces[i] as string);
            expect({ ...entry, top_logprobs: entry.top_logprobs.slice(0, 1) }).toEqual({ ...was, top_logprobs: was.top_logprobs.slice(0, 1) });
            entry.top_logprobs.slice(1).forEach((alternative, k) => {
              if (alternative.bytes !== null) expect(alternative).toEqual(was.top_logprobs[k + 1]);
              else expect(was.top_logprobs[k + 1]?.token.startsWith(alternative.token.replace(REDACTED, ''))).toBe(true);
            });
          }
        });
        // The body given is not changed.
        expect(body.choices[0]?.logprobs.content.map((e) => e.token).join('')).toBe(text);
      }),
      { numRuns: 400 },
    );
  });
});
