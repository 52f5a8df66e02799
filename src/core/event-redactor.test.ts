import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventRedactor, recutChunks } from './event-redactor.js';
import type { LlmChunkEvent, RunEvent } from './events.js';
import type { LlmChunk } from './llm.js';
import { createRedactor, REDACTED } from './redact.js';
import { COMMON_SECRETS, SAMPLE_SECRETS } from './test-support/secrets.js';
import { chunkEvents, cuts, redact } from './test-support/event-redactor-support.js';

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
  it('redacts a key at the start of a line of streamed JSON arguments, the escaped line break cut anywhere, in the chunks and in their raw events', () => {
    const key = SAMPLE_SECRETS['github classic token'] as string;
    const env = `${(COMMON_SECRETS['password in an env file'] as { text: string }).text}`;
    const args = JSON.stringify({ path: '.env', content: `# keys\n${key}\n${env}\n` });
    fc.assert(
      fc.property(cuts(args), (pieces) => {
        const events: LlmChunkEvent[] = pieces.map((piece, index) => ({
          seq: index, step: 0, t: 0, type: 'llm_chunk', iteration: 0, attempt: 0,
          chunk: { index, offsetMs: 0, toolCalls: [{ index: 0, ...(index === 0 ? { id: 'c1', name: 'write_file' } : {}), arguments: piece }], finished: index === pieces.length - 1 },
          raw: `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] } }] })}\n\n`,
        }));
        const redactor = new EventRedactor(createRedactor());
        const out = events.flatMap((e) => redactor.accept(e as RunEvent)) as LlmChunkEvent[];
        const joined = out.map((e) => e.chunk.toolCalls?.[0]?.arguments ?? '').join('');
        expect(JSON.parse(joined)).toEqual({ path: '.env', content: `# keys\n${REDACTED}\nDB_PASSWORD=${REDACTED}\n` });
        for (const event of out) {
          for (const text of [event.chunk.toolCalls?.[0]?.arguments ?? '', event.raw ?? '']) {
            expect(text).not.toContain(key.slice(-6));
            expect(text).not.toContain(key.slice(4, 10));
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
