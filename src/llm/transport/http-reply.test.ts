import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../core/redact.js';
import { TAPE_LIMITS } from '../../tape/tape-limits.js';
import { bodyValue, recordedBody, textUpTo } from './http-reply.js';

const redact = createRedactor();
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('what a tape keeps of a body', () => {
  it('keeps text with control characters other than tabs and line breaks as base64: as a JSON string it would grow sixfold', () => {
    expect(recordedBody(bytes('a\tb\r\nc "quoted"'), 'text/plain', redact, 'reply')).toEqual({ body: 'a\tb\r\nc "quoted"' });
    const control = '\x01'.repeat(1000);
    const kept = recordedBody(bytes(control), 'text/plain', redact, 'reply');
    expect(kept).toEqual({ body: Buffer.from(control).toString('base64'), encoding: 'base64' });
    expect(JSON.stringify(kept.body).length).toBeLessThan(control.length * 1.4);
  });

  it('keeps JSON nested more deeply than a tape line may be as its text', () => {
    const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
    expect(bodyValue(nested(10))).toEqual(JSON.parse(nested(10)));
    expect(bodyValue(nested(TAPE_LIMITS.maxDepth))).toBe(nested(TAPE_LIMITS.maxDepth));
    expect(recordedBody(bytes(nested(TAPE_LIMITS.maxDepth)), 'application/json', redact, 'request')).toEqual({ body: nested(TAPE_LIMITS.maxDepth) });
  });
});

describe('textUpTo', () => {
  it('reads a body up to the bound, and no further past it', async () => {
    expect(await textUpTo(new Response('x'.repeat(100)), 100)).toBe('x'.repeat(100));
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64));
      },
    });
    expect(await textUpTo(new Response(endless), 1000)).toBeUndefined();
    expect(pulled).toBeLessThanOrEqual(1000 / 64 + 2);
  });

  it('refuses a body whose length says it is too large without reading it', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(10));
      },
    });
    expect(await textUpTo(new Response(body, { headers: { 'content-length': '1001' } }), 1000)).toBeUndefined();
    expect(pulled).toBeLessThanOrEqual(1);
  });
});
