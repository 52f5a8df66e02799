/**
 * Text from a tape, a task, a model's answer or a file, made safe to show on a terminal. Such text
 * is untrusted: an escape sequence in it (OSC 0 sets the window title, OSC 52 writes the clipboard,
 * `CSI 2J` clears the screen) or a C1 control (U+009B is CSI to some terminals) must never reach the
 * terminal as a control. Each control character is shown as its visible escape (`\u001b`, the form
 * JSON uses too), so the reader sees that it was there and which it was: in the terminal UI, in every
 * line of text output, and in `--json`. agentctl's own styling is added after this, never escaped.
 */

/** C0 controls (newline and tab too), DEL, C1 controls. */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
/** The same without newline and tab, for text laid out over several lines. */
const CONTROLS_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/**
 * What JSON.stringify leaves raw that a terminal or a reader may take for more than text: DEL, C1
 * controls, and the line and paragraph separators (JavaScript before ES2019 ends a line at them).
 * JSON.stringify escapes every C0 control itself.
 */
const RAW_IN_JSON = /[\u007f-\u009f\u2028\u2029]/g;

const escaped = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Text printed on one line: every control character, line breaks and tabs included, as its escape. */
export function printableLine(text: string): string {
  return text.replace(CONTROLS, escaped);
}

/** Text printed over several lines: newlines and tabs kept, every other control character as its escape. */
export function printable(text: string): string {
  return text.replace(CONTROLS_BUT_LAYOUT, escaped);
}

/** A value as one line of JSON that holds no control character raw (each is a `\u…` escape, still the same JSON). */
export function printableJson(value: unknown): string {
  return JSON.stringify(value).replace(RAW_IN_JSON, escaped);
}

/** The most of a user's own input (a pattern, a path, a flag's value) a message quotes back. */
const QUOTED_MAX = 80;

/**
 * A user's input quoted back in a message, on one line, and cut short past `max` characters with
 * how long it was: a pasted blob must not flood the terminal with its own error.
 */
export function quotedInput(text: string, max = QUOTED_MAX): string {
  const line = printableLine(text);
  if (line.length <= max) return line;
  // By code points, so that no surrogate pair is cut in half.
  return `${Array.from(line.slice(0, max)).slice(0, max - 1).join('')}… (${text.length} characters)`;
}
