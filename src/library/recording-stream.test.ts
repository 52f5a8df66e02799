import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_RECORDED_BODY } from '../llm/transport/http-reply.js';
import { storedEvents } from '../../test/support/stored-events.js';
import { record } from './record-replay.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-stream-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const EVENT = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] })}\n\n`;

describe('a recorded stream', () => {
  it('with an event larger than a tape keeps is cut before it: nothing of it is held, passed on or recorded', async () => {
    const piece = new TextEncoder().encode('x'.repeat(1024 * 1024));
    let pulled = 0;
    let cancelled: unknown;
    // A first event, then one that never ends: more and more of its `data:` line.
    const upstream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`${EVENT}data: `));
      },
      pull(controller) {
        pulled += piece.length;
        if (pulled > 4 * MAX_RECORDED_BODY) controller.close();
        else controller.enqueue(piece);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const store = join(dir, 'store');
    const rec = await record({ tape: { store }, fetch: () => Promise.resolve(new Response(upstream, { headers: { 'content-type': 'text/event-stream' } })) });
    const reply = await rec.fetch('http://127.0.0.1:9/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'go' }] }),
    });
    const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const broke = await (async () => {
      for (;;) {
        const next = await reader.read();
        if (next.done) return undefined;
        text += new TextDecoder().decode(next.value);
      }
    })().catch((error: unknown) => error);
    await rec.finish();

    expect(String(broke)).toContain('an event of the stream is larger than a tape keeps (8 MiB)');
    expect(text).toBe(EVENT);
    // Read no further than the event passed what a tape keeps, and the upstream told so.
    expect(pulled).toBeLessThanOrEqual(MAX_RECORDED_BODY + piece.length);
    expect(String(cancelled)).toContain('larger than a tape keeps');
    const recorded = await storedEvents(store, (rec.runId as string));
    const chunks = recorded.flatMap((e) => (e.type === 'llm_chunk' ? [e] : []));
    expect(chunks.map((c) => c.raw ?? '').join('')).toBe(EVENT);
    expect(chunks.at(-1)?.chunk).toMatchObject({ finished: true, error: expect.stringContaining('larger than a tape keeps') });
    expect(recorded.filter((e) => e.type === 'llm_error')).toHaveLength(1);
  }, 30_000);
});
