/**
 * A file's bytes in fixed blocks, each with its sha-256: what a tape file checked once is remembered
 * by (checked-tapes.ts), and how a later read proves it reads those very bytes. Put in a file's byte
 * stream, `BlockDigests` either collects the digests of the blocks that pass through it or verifies
 * each block against the digests given before passing it on — so a reader downstream never sees a
 * byte that was not verified, whatever the stream's chunks look like.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { sha256Hex } from '../guardrails/call-key.js';

/** The block size: the chunk size tape files are read in, so a block is usually one chunk. */
export const BLOCK_BYTES = 64 * 1024;

/** Collect the digests of the blocks (into `collect`), or verify them against `expect`. */
export type BlockMode = { collect: string[] } | { expect: readonly string[] };

/** How many blocks a file of `bytes` bytes has. */
export const blockCount = (bytes: number): number => Math.ceil(bytes / BLOCK_BYTES);

export class BlockDigests extends Transform {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private blocks = 0;

  /** `mismatch`: the error to fail with when a block is not the expected one (or there are more or fewer). */
  constructor(
    private readonly mode: BlockMode,
    private readonly mismatch: () => Error,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      while (this.heldBytes >= BLOCK_BYTES) this.block(this.nextBlock(BLOCK_BYTES));
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      if (this.heldBytes > 0) this.block(this.nextBlock(this.heldBytes));
      if ('expect' in this.mode && this.blocks !== this.mode.expect.length) throw this.mismatch();
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  /** The next `bytes` bytes of what is pending (a chunk of exactly a block is taken as it is). */
  private nextBlock(bytes: number): Buffer {
    const all = this.held.length === 1 ? (this.held[0] as Buffer) : Buffer.concat(this.held, this.heldBytes);
    const rest = all.subarray(bytes);
    this.held = rest.length > 0 ? [rest] : [];
    this.heldBytes = rest.length;
    return all.subarray(0, bytes);
  }

  private block(bytes: Buffer): void {
    const digest = sha256Hex(bytes);
    if ('collect' in this.mode) this.mode.collect.push(digest);
    else if (this.mode.expect[this.blocks] !== digest) throw this.mismatch();
    this.blocks++;
    this.push(bytes);
  }
}
