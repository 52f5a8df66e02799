/**
 * What the terminal sent, as separate presses. Ink hands over each escape sequence on its own, but
 * the text between them in one piece: keys that arrive in one read (typed while the UI starts, fast
 * typing over a slow link, a paste, `tmux send-keys`) come as one string — `jjj`, `/Blocked\r`,
 * `g\r` — with no key flags. Each character of such a string is one key press here, so Enter is
 * Enter and `jjj` moves three times. Mouse reports (SGR, `ESC [ < b ; x ; y M`) are recognised
 * here too, so that they are never taken as keys or typed into the search.
 */
import type { KeyPress } from './keymap.js';

export type Press =
  | { kind: 'key'; input: string; key: KeyPress }
  /** A wheel notch (1 down, -1 up) at a cell of the terminal, counted from 1 as the terminal does. */
  | { kind: 'wheel'; direction: 1 | -1; column: number; row: number }
  /** Any other mouse report (a click, a release), or a control character that is no key: never text. */
  | { kind: 'none' };

/** Ink strips the ESC from the sequences it passes on: a mouse report arrives as `[<b;x;yM`. */
const SGR_MOUSE = /^\x1b?\[<(\d+);(\d+);(\d+)([Mm])$/;
/** Button code bits: 64 marks the wheel (64 up, 65 down); 4, 8 and 16 are modifiers. */
const WHEEL = 64;
const MODIFIERS = 4 | 8 | 16;
const CONTROL = /^[\u0000-\u001f\u007f]$/;

/** The presses in one input event from Ink: its text and its key flags. */
export function pressesOf(input: string, key: KeyPress): Press[] {
  const mouse = SGR_MOUSE.exec(input);
  if (mouse !== null) return [mousePress(Number(mouse[1]), Number(mouse[2]), Number(mouse[3]), mouse[4] === 'm')];
  const chars = [...input];
  // A key Ink named (an arrow, Esc, Ctrl-letter), or one printable character: its flags are right.
  if (chars.length === 0 || key.ctrl === true || key.meta === true || (chars.length === 1 && !CONTROL.test(input))) return [{ kind: 'key', input, key }];
  return chars.map(charPress);
}

function mousePress(button: number, column: number, row: number, release: boolean): Press {
  const code = button & ~MODIFIERS;
  if (!release && (code === WHEEL || code === WHEEL + 1)) return { kind: 'wheel', direction: code === WHEEL ? -1 : 1, column, row };
  return { kind: 'none' };
}

/** One character of a run of text, as Ink would have read it on its own. */
function charPress(char: string): Press {
  switch (char) {
    case '\r':
    case '\n':
      return { kind: 'key', input: '', key: { return: true } };
    case '\t':
      return { kind: 'key', input: '', key: { tab: true } };
    case '\x7f':
      return { kind: 'key', input: '', key: { delete: true } };
    case '\b':
      return { kind: 'key', input: '', key: { backspace: true } };
    case '\x1b':
      return { kind: 'key', input: '', key: { escape: true } };
  }
  const code = char.codePointAt(0) ?? 0;
  // Ctrl + a letter: 0x01 is Ctrl-A … 0x1a Ctrl-Z (Ink names them by the letter).
  if (code >= 1 && code <= 26) return { kind: 'key', input: String.fromCharCode(code + 96), key: { ctrl: true } };
  // Other control characters are no key (never text for the search).
  if (code < 0x20) return { kind: 'none' };
  return { kind: 'key', input: char, key: {} };
}
