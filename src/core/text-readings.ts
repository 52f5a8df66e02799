/**
 * What a text says once its encodings are read: the redactor (redact.ts) looks for secrets in these
 * readings, not only in the text as written, and replaces what it finds where it stands in the text.
 *
 * A secret reaches a recorder written in many ways: inside JSON text (a tool call's arguments, a
 * request or reply body, the `data:` of a server-sent event), where a line break is the two
 * characters `\n`, a quote is `\"`, a slash may be `\/` and any character `\uXXXX` — so a key at the
 * start of a line stands right after a letter, and a secret holding a quote is no longer spelled as
 * itself; inside JSON text inside JSON text (a streamed tool call's arguments in a raw event), once
 * more escaped; or right after a terminal colour code (`ESC[32m`), whose last character is a letter.
 *
 * A reading decodes every JSON string escape of a text (whether or not the text is JSON: an escape is
 * read wherever it is well formed), level after level while there are escapes left to read, then
 * drops the terminal control sequences (CSI: `ESC [` … a final byte). Each character of a reading
 * knows the part of the original text it came from, so a span found in it maps back to whole escape
 * sequences of the original — the replacement goes where the secret was written, in its encoded form,
 * and leaves the encoding around it (the JSON text) intact.
 */

/** One reading of a text: its characters, and for each where it was written in the original. */
export interface Reading {
  readonly text: string;
  /** `[from[i], to[i])`: the part of the original text that reads as character i. */
  readonly from: Int32Array;
  readonly to: Int32Array;
}

/** The answer for most texts, shared. */
const NOTHING_TO_READ: readonly Reading[] = Object.freeze([]);

/** JSON text in JSON text in JSON text: deeper than any recorder writes. */
const MAX_LEVELS = 4;

/** The single-character JSON escapes, by the character after the backslash. */
const SIMPLE: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * The readings of a text, each one level of escapes further than the one before; the last has its
 * terminal control sequences dropped as well. Empty when there is nothing to read (the text says what
 * it is written as), which is most text: a check for a backslash or an escape character is all it costs.
 */
export function readings(input: string): readonly Reading[] {
  const backslash = input.indexOf('\\') !== -1;
  if (!backslash && input.indexOf('\x1b') === -1) return NOTHING_TO_READ;
  const out: Reading[] = [];
  if (backslash) {
    let current: Reading | undefined;
    for (let level = 0; level < MAX_LEVELS; level++) {
      const next = decodeEscapes(current, input);
      if (next === undefined) break;
      out.push(next);
      current = next;
      if (next.text.indexOf('\\') === -1) break;
    }
  }
  const last = out.length === 0 ? undefined : out[out.length - 1];
  const plain = last === undefined ? input : last.text;
  if (plain.indexOf('\x1b') !== -1) {
    const stripped = dropControlSequences(last, input);
    if (stripped !== undefined) out.push(stripped);
  }
  return out;
}

/** Original `[start, end)` of the part `[start, end)` of a reading (a non-empty one). */
export function originalSpan(reading: Reading, start: number, end: number): [number, number] {
  return [reading.from[start] as number, reading.to[end - 1] as number];
}

/** The value of four hex digits at `at`, or -1. */
function hex4(text: string, at: number): number {
  let value = 0;
  for (let k = at; k < at + 4; k++) {
    const c = text.charCodeAt(k);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** What a part of a text starting at `i` reads as: its width and the character it reads as ('' for none); undefined: `text[i]` reads as itself. */
type Part = (text: string, i: number) => readonly [number, string] | undefined;

/** A JSON string escape: `\n`, `\"`, `\/`, `\uXXXX`… (a backslash that starts none reads as itself). */
const escape: Part = (text, i) => {
  const next = text[i + 1];
  const simple = next === undefined ? undefined : SIMPLE[next];
  if (simple !== undefined) return [2, simple];
  const code = next === 'u' ? hex4(text, i + 2) : -1;
  return code >= 0 ? [6, String.fromCharCode(code)] : undefined;
};

/** A terminal control sequence: `ESC [`, parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, a final byte 0x40–0x7E. */
const controlSequence: Part = (text, i) => {
  if (text.charCodeAt(i + 1) !== 0x5b /* [ */) return undefined;
  const n = text.length;
  let end = i + 2;
  while (end < n && text.charCodeAt(end) >= 0x30 && text.charCodeAt(end) <= 0x3f) end++;
  while (end < n && text.charCodeAt(end) >= 0x20 && text.charCodeAt(end) <= 0x2f) end++;
  return end < n && text.charCodeAt(end) >= 0x40 && text.charCodeAt(end) <= 0x7e ? [end + 1 - i, ''] : undefined;
};

/** One level of JSON string escapes decoded; undefined when the text has none that is well formed. */
function decodeEscapes(base: Reading | undefined, input: string): Reading | undefined {
  return reread(base, input, '\\', escape);
}

/** The reading with its terminal control sequences left out; undefined when it has none. */
function dropControlSequences(base: Reading | undefined, input: string): Reading | undefined {
  return reread(base, input, '\x1b', controlSequence);
}

/**
 * A reading of `base` (or of the original) with each part that starts at a `lead` character read as
 * `part` says; undefined when no part reads as anything but itself.
 */
function reread(base: Reading | undefined, input: string, lead: string, part: Part): Reading | undefined {
  const text = base === undefined ? input : base.text;
  const n = text.length;
  const from = new Int32Array(n);
  const to = new Int32Array(n);
  let out = '';
  let count = 0;
  let copied = 0;
  let i = 0;
  while (i < n) {
    // The characters up to the next lead character read as themselves.
    const found = text.indexOf(lead, i);
    const stop = found === -1 ? n : found;
    count = copyPlaces(base, i, stop, from, to, count);
    if (stop === n) break;
    const read = part(text, stop);
    const [width, char] = read ?? [1, text[stop] as string];
    if (read !== undefined) {
      out += text.slice(copied, stop) + char;
      copied = stop + width;
    }
    if (char !== '') {
      from[count] = base === undefined ? stop : (base.from[stop] as number);
      to[count] = base === undefined ? stop + width : (base.to[stop + width - 1] as number);
      count++;
    }
    i = stop + width;
  }
  if (copied === 0) return undefined;
  out += text.slice(copied);
  return { text: out, from: from.subarray(0, count), to: to.subarray(0, count) };
}

/** Characters `[start, stop)` of a text read as themselves: their places, from `count` on; the new count. */
function copyPlaces(base: Reading | undefined, start: number, stop: number, from: Int32Array, to: Int32Array, count: number): number {
  if (base === undefined) {
    for (let k = start; k < stop; k++, count++) {
      from[count] = k;
      to[count] = k + 1;
    }
    return count;
  }
  from.set(base.from.subarray(start, stop), count);
  to.set(base.to.subarray(start, stop), count);
  return count + stop - start;
}
