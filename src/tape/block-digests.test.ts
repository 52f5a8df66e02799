/**
 * digestedBlocks, what a tape file's bytes pass through when the checked-tapes cache is in play: in
 * collect mode it gives the sha-256 of each BLOCK_BYTES block however the reads cut the bytes into
 * chunks, and passes the bytes on unchanged; in expect mode it passes on only blocks whose digest
 * is the expected one, and fails the reading with the given error before a byte of a block that
 * differs (or one block too many or too few) is given.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BLOCK_BYTES, blockCount, digestedBlocks, type BlockMode } from './block-digests.js';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The sha-256 of each BLOCK_BYTES block of `bytes` (the last one may be shorter). */
function digestsOf(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let at = 0; at < bytes.length; at += BLOCK_BYTES) out.push(sha256(bytes.subarray(at, at + BLOCK_BYTES)));
  return out;
}

/** Deterministic pseudo-random bytes (xorshift32), so fast-check can shrink and replay a case. */
function bytesOf(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed | 0 || 0x9e3779b9;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** `bytes` cut at the given positions (in any order, repeats allowed: some chunks may be empty). */
function cut(bytes: Buffer, at: readonly number[]): Buffer[] {
  const points = [...new Set(at.map((p) => Math.min(p, bytes.length)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  chunks.push(bytes.subarray(start));
  return chunks.filter((c) => c.length > 0);
}

interface Passed {
  /** Every byte the blocks gave, in order. */
  out: Buffer;
  error: unknown;
}

/** Read `chunks` through digestedBlocks in `mode`, to the end or the error. */
async function pass(chunks: readonly Buffer[], mode: BlockMode, mismatch: () => Error = () => new Error('mismatch')): Promise<Passed> {
  async function* each(): AsyncGenerator<Buffer> {
    for (const chunk of chunks) yield chunk;
  }
  const out: Buffer[] = [];
  let error: unknown = null;
  try {
    for await (const block of digestedBlocks(each(), mode, mismatch)) {
      expect(block.length).toBeLessThanOrEqual(BLOCK_BYTES);
      out.push(Buffer.from(block));
    }
  } catch (caught) {
    error = caught;
  }
  return { out: Buffer.concat(out), error };
}

/** Input lengths around the block boundaries, and anything up to a little over three blocks. */
const length = fc.oneof(
  fc.integer({ min: 0, max: 3 * BLOCK_BYTES + 100 }),
  fc.constantFrom(0, 1, BLOCK_BYTES - 1, BLOCK_BYTES, BLOCK_BYTES + 1, 2 * BLOCK_BYTES, 2 * BLOCK_BYTES + 1, 3 * BLOCK_BYTES - 1),
);
/** Cut positions: many small chunks, a few large ones, or the block boundaries themselves ± 1. */
const cuts = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 3 * BLOCK_BYTES + 100 }), { maxLength: 12 }),
  fc.array(fc.integer({ min: 0, max: 3 * BLOCK_BYTES + 100 }), { minLength: 40, maxLength: 120 }),
  fc.array(fc.constantFrom(BLOCK_BYTES - 1, BLOCK_BYTES, BLOCK_BYTES + 1, 2 * BLOCK_BYTES, 2 * BLOCK_BYTES + 3), { maxLength: 5 }),
);
const input = fc.record({ length, seed: fc.integer(), cuts }).map(({ length: n, seed, cuts: at }) => {
  const bytes = bytesOf(n, seed);
  return { bytes, chunks: cut(bytes, at) };
});

describe('digestedBlocks, collecting', () => {
  it('gives the sha-256 of each block whatever the chunks, and passes the bytes on unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(input, async ({ bytes, chunks }) => {
        expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
        const collect: string[] = [];
        const { out, error } = await pass(chunks, { collect });
        expect(error).toBeNull();
        expect(collect).toEqual(digestsOf(bytes));
        expect(collect).toHaveLength(blockCount(bytes.length));
        expect(out.equals(bytes)).toBe(true);
      }),
      { numRuns: 60 },
    );
  }, 60_000);

  it('collects nothing from empty input', async () => {
    const collect: string[] = [];
    const { out, error } = await pass([], { collect });
    expect(error).toBeNull();
    expect(collect).toEqual([]);
    expect(out.length).toBe(0);
    expect(blockCount(0)).toBe(0);
  });

  it('counts a partial last block as a block, and exact multiples without an empty one', async () => {
    for (const [n, blocks] of [[1, 1], [BLOCK_BYTES, 1], [BLOCK_BYTES + 1, 2], [2 * BLOCK_BYTES, 2]] as const) {
      const bytes = bytesOf(n, n);
      const collect: string[] = [];
      await pass([bytes], { collect });
      expect(collect).toHaveLength(blocks);
      expect(blockCount(n)).toBe(blocks);
      expect(collect.at(-1)).toBe(sha256(bytes.subarray((blocks - 1) * BLOCK_BYTES)));
    }
  });
});

describe('digestedBlocks, verifying', () => {
  it('passes the bytes on unchanged when every block is the expected one', async () => {
    await fc.assert(
      fc.asyncProperty(input, async ({ bytes, chunks }) => {
        const { out, error } = await pass(chunks, { expect: digestsOf(bytes) });
        expect(error).toBeNull();
        expect(out.equals(bytes)).toBe(true);
      }),
      { numRuns: 60 },
    );
  }, 60_000);

  it('passes empty input expected to have no blocks', async () => {
    const { out, error } = await pass([], { expect: [] });
    expect(error).toBeNull();
    expect(out.length).toBe(0);
  });

  it('fails with the mismatch error at a changed byte, having given nothing of its block or later', async () => {
    const nonEmpty = input.filter(({ bytes }) => bytes.length > 0);
    await fc.assert(
      fc.asyncProperty(nonEmpty, fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 }), async ({ bytes, chunks }, pickBlock, pickByte, flip) => {
        const expected = digestsOf(bytes);
        const k = pickBlock % expected.length;
        const blockEnd = Math.min(bytes.length, (k + 1) * BLOCK_BYTES);
        const at = k * BLOCK_BYTES + (pickByte % (blockEnd - k * BLOCK_BYTES));
        // The same cuts over the changed bytes.
        const changed = Buffer.concat(chunks.map((c) => Buffer.from(c)));
        changed[at] = (changed[at] as number) ^ flip;
        const changedChunks: Buffer[] = [];
        let start = 0;
        for (const chunk of chunks) {
          changedChunks.push(changed.subarray(start, start + chunk.length));
          start += chunk.length;
        }
        const failure = new Error(`block ${k} differs`);
        const { out, error } = await pass(changedChunks, { expect: expected }, () => failure);
        expect(error).toBe(failure);
        // Every block before k was given, verified; not a byte of block k or after it.
        expect(out.equals(bytes.subarray(0, k * BLOCK_BYTES))).toBe(true);
      }),
      { numRuns: 60 },
    );
  }, 60_000);

  it('fails when the input has one block fewer or one more than expected', async () => {
    await fc.assert(
      fc.asyncProperty(input, async ({ bytes, chunks }) => {
        const expected = digestsOf(bytes);
        const failure = new Error('not the blocks expected');
        const more = await pass(chunks, { expect: [...expected, sha256(Buffer.from('one more'))] }, () => failure);
        expect(more.error).toBe(failure);
        if (expected.length > 0) {
          const fewer = await pass(chunks, { expect: expected.slice(0, -1) }, () => failure);
          expect(fewer.error).toBe(failure);
          // The blocks that were expected went on; not the one past them.
          expect(fewer.out.equals(bytes.subarray(0, (expected.length - 1) * BLOCK_BYTES))).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  }, 60_000);

  it('fails on input expected to be empty, and on empty input expected to have a block', async () => {
    const failure = new Error('mismatch');
    expect((await pass([Buffer.from('x')], { expect: [] }, () => failure)).error).toBe(failure);
    expect((await pass([Buffer.from('x')], { expect: [] }, () => failure)).out.length).toBe(0);
    expect((await pass([], { expect: [sha256(Buffer.alloc(0))] }, () => failure)).error).toBe(failure);
  });

  it('fails when the blocks are the expected ones in another order', async () => {
    const bytes = Buffer.concat([Buffer.alloc(BLOCK_BYTES, 1), Buffer.alloc(BLOCK_BYTES, 2)]);
    const [a, b] = digestsOf(bytes) as [string, string];
    const failure = new Error('mismatch');
    const { error, out } = await pass([bytes], { expect: [b, a] }, () => failure);
    expect(error).toBe(failure);
    expect(out.length).toBe(0);
  });
});
