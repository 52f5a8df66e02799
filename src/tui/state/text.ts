/**
 * Text as the terminal will show it: control characters as visible escapes (core/terminal-text.ts:
 * a tape is untrusted input, and an escape sequence in a tool's output must not drive the user's
 * terminal), tabs as spaces, wrapped to a width in terminal cells (wide characters count twice),
 * clipped with an ellipsis.
 */
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import { printable } from '../../core/terminal-text.js';

/** Text to lay out: a CR or CRLF ends a line as LF does, tabs are two spaces, other controls are escapes. */
function laidOut(text: string): string {
  return printable(text.replace(/\r\n?/g, '\n')).replace(/\t/g, '  ');
}

/** Terminal cells the text takes on one line. */
export function cells(text: string): number {
  return stringWidth(text);
}

/**
 * The text wrapped to `width` cells: one string per terminal line (long words are cut). Each line
 * of the text keeps its own indentation, and its continuation lines take the same.
 */
export function wrap(text: string, width: number): string[] {
  if (width <= 0) return [];
  const out: string[] = [];
  for (const paragraph of laidOut(text).split('\n')) {
    const body = paragraph.trimStart();
    const indent = paragraph.slice(0, Math.min(paragraph.length - body.length, Math.floor(width / 2)));
    if (body === '') {
      out.push('');
      continue;
    }
    // Most lines fit: measuring once is far cheaper than asking the wrapper.
    if (cells(paragraph) <= width) {
      out.push(paragraph.trimEnd());
      continue;
    }
    for (const piece of wrapAnsi(body, width - indent.length, { hard: true, trim: true }).split('\n')) out.push(indent + piece);
  }
  return out;
}

/** Below this many cells a hanging indent would leave too little room for the text. */
const MIN_HANGING_WIDTH = 8;

/**
 * The text wrapped as `wrap` does, every line after the first indented `hang` cells more: the
 * continuation of a labelled line (a decision, a heading, a message) then reads as part of it,
 * not as a line of its own. The first line keeps the whole width. Without room for the hang, it is
 * plain `wrap`.
 */
export function wrapHanging(text: string, width: number, hang: number): string[] {
  const plain = wrap(text, width);
  const first = plain[0];
  if (first === undefined || plain.length === 1 || width - hang < MIN_HANGING_WIDTH) return plain;
  const laid = laidOut(text);
  const end = laid.indexOf('\n');
  const paragraph = end < 0 ? laid : laid.slice(0, end);
  const others = end < 0 ? '' : laid.slice(end + 1);
  const body = paragraph.trimStart();
  const indent = paragraph.slice(0, paragraph.length - body.length);
  const shown = first.trimStart();
  // What the first line leaves of its paragraph, then the other paragraphs.
  let rest = others;
  if (cells(paragraph) > width) {
    if (!body.startsWith(shown)) return plain;
    rest = `${indent}${body.slice(shown.length).trimStart()}${end < 0 ? '' : `\n${others}`}`;
  }
  return [first, ...wrap(rest, width - hang).map((piece) => (piece === '' ? piece : ' '.repeat(hang) + piece))];
}

/** One line of at most `width` cells: line breaks become spaces, an ellipsis when cut. */
export function clipLine(text: string, width: number): string {
  if (width <= 0) return '';
  const line = laidOut(text).replace(/\n+/g, ' ');
  if (cells(line) <= width) return line;
  let out = '';
  let used = 0;
  for (const char of line) {
    const w = cells(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
}

/** `text` padded with spaces to exactly `width` cells (clipped first when longer). */
export function padCells(text: string, width: number): string {
  const clipped = clipLine(text, width);
  return clipped + ' '.repeat(Math.max(0, width - cells(clipped)));
}
