/**
 * Bounds on what a tape may make its reader do. A tape is untrusted input: these keep a small
 * hostile file from costing unbounded time or memory, or from reaching recursive code with a value
 * nested thousands of levels deep. Real tapes are far inside them.
 */
export interface TapeLimits {
  /** The longest line, in bytes. */
  maxLineBytes: number;
  /** How deeply a line may nest objects and arrays (the tape's own events need fewer than 10). */
  maxDepth: number;
  /** The most events a tape may have (and a header's eventCount may say). */
  maxEvents: number;
  /** A gzip tape may inflate to this many times its size… */
  maxInflateRatio: number;
  /** …or to this many bytes, if more (real tapes compress 3-10×). */
  minInflatedBytes: number;
}

export const TAPE_LIMITS: Readonly<TapeLimits> = {
  maxLineBytes: 64 * 1024 * 1024,
  maxDepth: 64,
  maxEvents: 50_000_000,
  maxInflateRatio: 256,
  minInflatedBytes: 64 * 1024 * 1024,
};

/** How many bytes a gzip tape of `compressedBytes` may inflate to: what a reader allows, and a writer must stay within. */
export function maxInflatedBytes(limits: TapeLimits, compressedBytes: number): number {
  return Math.max(limits.minInflatedBytes, compressedBytes * limits.maxInflateRatio);
}
