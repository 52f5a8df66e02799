/**
 * How deeply a JSON text nests, found without parsing it: brackets are counted outside strings, and
 * strings are skipped whole (a native search for their closing quote), so the cost is in the
 * structure of the line, not in the length of its text. Used before `JSON.parse` so a value nested
 * thousands of levels deep never reaches code that walks values recursively.
 *
 * The text need not be valid JSON: for malformed text the answer is only an upper bound's guess,
 * and JSON.parse reports the real problem afterwards.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** True when `text` nests objects and arrays more than `max` levels deep. */
export function nestsDeeperThan(text: string, max: number): boolean {
  // Most lines open fewer brackets in all (strings included) than the limit: counted natively, fast.
  let opened = 0;
  for (let at = text.indexOf('{'); at !== -1 && opened <= max; at = text.indexOf('{', at + 1)) opened++;
  for (let at = text.indexOf('['); at !== -1 && opened <= max; at = text.indexOf('[', at + 1)) opened++;
  return opened > max && deeperThan(text, max);
}

function deeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return false;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** The index of the quote that closes the string opened at `open`, or -1 when it is never closed. */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}
