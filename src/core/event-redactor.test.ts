import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventRedactor, recutChunks } from './event-redactor.js';
import type { LlmChunkEvent, RunEvent } from './events.js';
import type { LlmChunk } from './llm.js';
import { createRedactor, REDACTED } from './redact.js';
import { SAMPLE_SECRETS } from './test-support/secrets.js';

const redact = createRedactor({ secrets: ['hunter2-is-my-password'] });

function chunkEvents(pieces: readonly string[], finished = true): LlmChunkEvent[] {
  return pieces.map((content, index) => ({
    seq: index, step: 0, t: 0, type: 'llm_chunk', iteration: 0, attempt: 0,
    chunk: { index, offsetMs: index, content, finished: finished && index === pieces.length - 1 },
  }));
}

/** Every way to cut `text` into up to 6 pieces. */
const cuts = (text: string): fc.Arbitrary<string[]> =>
  fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, text.length - 1) }), { maxLength: 5 }).map((points) => {
    const sorted = [...points].sort((a, b) => a - b);
    const out: string[] = [];
    let at = 0;
    for (const p of sorted) {
      out.push(text.slice(at, p));
      at = p;
    }
    out.push(text.slice(at));
    return out;
  });

describe('EventRedactor', () => {
  it('holds a stream\'s chunks until its last one, then redacts them as one text cut where they were', () => {
    const redactor = new EventRedactor(redact);
    const [a, b, c] = chunkEvents(['my key is sk-proj-AbCdEf', 'GhIjKlMnOp123 and ', 'hunter2-is-my-password!']);
    expect(redactor.accept(a as RunEvent)).toEqual([]);
    expect(redactor.accept(b as RunEvent)).toEqual([]);
    const out = redactor.accept(c as RunEvent) as LlmChunkEvent[];
    expect(out.map((e) => e.chunk.content)).toEqual([`my key is ${REDACTED}`, ' and ', `${REDACTED}!`]);
    expect(out.map((e) => e.seq)).toEqual([0, 1, 2]);
  });

  it('releases held chunks before the next other event, and on flush', () => {
    const redactor = new EventRedactor(redact);
    const [a] = chunkEvents(['partial sk-proj-AbCdEf'], false);
    redactor.accept(a as RunEvent);
    const error: RunEvent = { seq: 1, step: 0, t: 0, type: 'llm_error', iteration: 0, attempt: 0, kind: 'recoverable', message: 'cut' };
    expect(redactor.accept(error).map((e) => e.type)).toEqual(['llm_chunk', 'llm_error']);
    redactor.accept(a as RunEvent);
    expect(redactor.flush()).toHaveLength(1);
    expect(redactor.flush()).toEqual([]);
  });

  it('does not write the user\'s patterns into a recorded config', () => {
    const start: RunEvent = { seq: 0, step: 0, t: 0, type: 'run_start', task: 't', model: 'm', seed: 0, config: { redact: ['my-literal-secret'], model: 'm' } };
    const [out] = new EventRedactor(createRedactor({ patterns: ['my-literal-secret'] })).accept(start);
    expect(out).toMatchObject({ config: { redact: [], model: 'm' } });
  });

  it('leaves no fragment of a secret in any chunk, however the stream is cut', () => {
    const secrets = Object.values(SAMPLE_SECRETS).filter((s) => !/^(bearer|basic) /i.test(s));
    fc.assert(
      fc.property(fc.constantFrom(...secrets), fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), (secret, before, after) => {
        const text = `${before} ${secret} ${after}`;
        fc.assert(
          fc.property(cuts(text), (pieces) => {
            const chunks: LlmChunk[] = pieces.map((content, index) => ({ index, offsetMs: 0, content, finished: index === pieces.length - 1 }));
            const out = recutChunks(chunks, createRedactor());
            expect(out.map((c) => c.content).join('')).toBe(createRedactor().text(text));
            // A fragment long enough to matter (here: 6 characters of the secret's tail) is in no chunk.
            for (const chunk of out) expect(chunk.content ?? '').not.toContain(secret.slice(-6));
          }),
          { numRuns: 20 },
        );
      }),
      { numRuns: 30 },
    );
  });

  it('redacts tool-call arguments streamed in pieces, per call', () => {
    const chunks: LlmChunk[] = [
      { index: 0, offsetMs: 0, toolCalls: [{ index: 0, id: 'c1', name: 'write_file', arguments: '{"content":"ghp_1234567890abcdef' }], finished: false },
      { index: 1, offsetMs: 0, toolCalls: [{ index: 0, arguments: 'ghijklmnopqrstuvwxyzAB"}' }, { index: 1, id: 'c2', name: 'list_dir', arguments: '{}' }], finished: false },
      { index: 2, offsetMs: 0, finishReason: 'tool_calls', finished: true },
    ];
    const out = recutChunks(chunks, createRedactor());
    expect(out[0]?.toolCalls?.[0]?.arguments).toBe(`{"content":"${REDACTED}`);
    expect(out[1]?.toolCalls?.[0]?.arguments).toBe('"}');
    expect(out[1]?.toolCalls?.[1]?.arguments).toBe('{}');
    // The input chunks are not changed.
    expect(chunks[0]?.toolCalls?.[0]?.arguments).toContain('ghp_');
  });
});

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
    // The raw text of the first does not contain its chunk's text as JSON would (escaped differently).
    const events = [{ ...a, raw: 'data: {"c":"the password: hunter2\\u002dis-"}\n\n' }, { ...b, raw: 'data: {"c":"my-password, done"}\n\n' }];
    const out = events.flatMap((e) => redactor.accept(e as RunEvent)) as LlmChunkEvent[];
    expect(out.map((e) => e.chunk.content)).toEqual([`the password: ${REDACTED}`, ', done']);
    expect(out.map((e) => e.raw)).toEqual([undefined, undefined]);
  });

  it('redacts a secret that sits whole in one raw event, outside its chunk\'s text too', () => {
    const redactor = new EventRedactor(redact);
    const [a] = chunkEvents(['hello']);
    const [out] = redactor.accept({ ...a, raw: 'data: {"content":"hello","note":"hunter2-is-my-password"}\n\n' } as RunEvent) as LlmChunkEvent[];
    expect(out?.raw).toBe(`data: {"content":"hello","note":"${REDACTED}"}\n\n`);
  });
});
