/**
 * One output limit for every tool, so a runaway `cat` or a chatty build cannot flood the model's
 * context or the tape. Truncation keeps the head and the tail: the start says what ran, the end
 * usually holds the error or the summary.
 */

/** Largest tool output, in UTF-8 bytes, that reaches the model (markers aside). */
export const OUTPUT_CAP_BYTES = 64 * 1024;

/** The marker placed where bytes were dropped. Tests and the model can look for `[output truncated`. */
export function truncationMarker(omittedBytes: number): string {
  return `\n[output truncated: ${omittedBytes} bytes omitted]\n`;
}

/**
 * Length of the longest prefix of `bytes[0, end)` that does not end inside a UTF-8 sequence, so a
 * cut never leaves half a character (which would decode as U+FFFD).
 */
function completePrefix(bytes: Uint8Array, end: number): number {
  // A sequence is at most 4 bytes: look back at most 3 bytes for the lead byte of the last one.
  for (let i = end - 1; i >= 0 && i >= end - 4; i--) {
    const byte = bytes[i] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for its lead
    const length = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return i + length <= end ? end : i;
  }
  return end;
}

/** First index ≥ `start` that does not fall inside a UTF-8 sequence. */
function sequenceStart(bytes: Uint8Array, start: number): number {
  let index = Math.max(0, start);
  while (index < bytes.length && ((bytes[index] ?? 0) & 0xc0) === 0x80) index++;
  return index;
}

/** How `maxBytes` splits into head and tail (they add up to it, so nothing is lost at the limit). */
function split(maxBytes: number): { head: number; tail: number } {
  const head = Math.floor(maxBytes / 2);
  return { head, tail: maxBytes - head };
}

/**
 * `text` unchanged if it fits in `maxBytes`, else about its first and last `maxBytes / 2` bytes
 * around a truncation marker that says how much was dropped.
 */
export function capOutput(text: string, maxBytes = OUTPUT_CAP_BYTES): string {
  // A UTF-16 unit never takes more than 3 UTF-8 bytes: short strings skip the encoding.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const { head, tail } = split(maxBytes);
  const headEnd = completePrefix(bytes, head);
  const tailStart = sequenceStart(bytes, bytes.length - tail);
  return (
    bytes.subarray(0, headEnd).toString('utf8') +
    truncationMarker(tailStart - headEnd) +
    bytes.subarray(tailStart).toString('utf8')
  );
}

/**
 * Collects a stream's bytes in bounded memory: the first `maxBytes / 2` and a rolling window of the
 * last `maxBytes / 2`. A process printing gigabytes costs no more than the cap. `text()` gives
 * exactly what `capOutput` would give for the whole stream.
 */
export class OutputCollector {
  private readonly maxBytes: number;
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(maxBytes = OUTPUT_CAP_BYTES) {
    this.maxBytes = maxBytes;
    ({ head: this.headLimit, tail: this.tailLimit } = split(maxBytes));
  }

  /** Add the next chunk, in arrival order. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(this.headLimit - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    // Drop whole chunks from the front of the tail while the rest still covers the window.
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0]?.length ?? 0) >= this.tailLimit) {
      this.tailBytes -= this.tail.shift()?.length ?? 0;
    }
  }

  /** Bytes seen so far, kept or not. */
  get totalBytes(): number {
    return this.total;
  }

  /** Everything collected, as text, with a truncation marker if bytes were dropped. */
  text(): string {
    const head = Buffer.concat(this.head);
    const tailAll = Buffer.concat(this.tail);
    // Nothing is dropped until the total passes the cap (head and tail windows add up to it).
    if (this.total <= this.maxBytes) return Buffer.concat([head, tailAll]).toString('utf8');
    const headEnd = completePrefix(head, head.length);
    const tailStart = sequenceStart(tailAll, tailAll.length - this.tailLimit);
    const kept = headEnd + (tailAll.length - tailStart);
    return (
      head.subarray(0, headEnd).toString('utf8') +
      truncationMarker(this.total - kept) +
      tailAll.subarray(tailStart).toString('utf8')
    );
  }
}
