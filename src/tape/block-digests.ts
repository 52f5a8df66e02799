/**
 * A file's bytes in fixed blocks, each with its sha-256: what a tape file checked once is remembered
 * by (checked-tapes.ts), and how a later read proves it reads those very bytes. Put between a file's
 * reads and its reader, `digestedBlocks` either collects the digests of the blocks that pass or
 * verifies each block against the digests given before passing it on — so the reader never sees a
 * byte that was not verified, whatever the reads' chunks look like.
 */
import { sha256Hex } from '../guardrails/call-key.js';

/** The block size: the chunk size tape files are read in, so a block is usually one chunk. */
export const BLOCK_BYTES = 64 * 1024;

/** Collect the digests of the blocks (into `collect`), or verify them against `expect`. */
export type BlockMode = { collect: string[] } | { expect: readonly string[] };

/** How many blocks a file of `bytes` bytes has. */
export const blockCount = (bytes: number): number => Math.ceil(bytes / BLOCK_BYTES);

/**
 * The bytes of `chunks` as blocks of BLOCK_BYTES (the last one may be shorter), however they were
 * cut: each block's digest is collected, or checked against the expected one, before the block is
 * given — so the reader never sees a byte of a block that is not the expected one. A block that
 * differs, or one block too many or too few, fails the reading with `mismatch()`.
 */
export async function* digestedBlocks(chunks: AsyncIterable<Buffer>, mode: BlockMode, mismatch: () => Error): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let blocks = 0;
  /** The next `bytes` bytes of what is held (a chunk of exactly a block is taken as it is). */
  const take = (bytes: number): Buffer => {
    const all = held.length === 1 ? (held[0] as Buffer) : Buffer.concat(held, heldBytes);
    const rest = all.subarray(bytes);
    held = rest.length > 0 ? [rest] : [];
    heldBytes = rest.length;
    return all.subarray(0, bytes);
  };
  const digested = (block: Buffer): Buffer => {
    const digest = sha256Hex(block);
    if ('collect' in mode) mode.collect.push(digest);
    else if (mode.expect[blocks] !== digest) throw mismatch();
    blocks++;
    return block;
  };
  for await (const chunk of chunks) {
    held.push(chunk);
    heldBytes += chunk.length;
    while (heldBytes >= BLOCK_BYTES) yield digested(take(BLOCK_BYTES));
  }
  if (heldBytes > 0) yield digested(take(heldBytes));
  if ('expect' in mode && blocks !== mode.expect.length) throw mismatch();
}
