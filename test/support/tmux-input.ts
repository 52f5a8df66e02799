/**
 * More of the tmux terminal of test/support/tmux.ts, for the UI's input: keys sent in one write
 * (as a paste, a slow link or a fast typist delivers them), raw bytes (a mouse report), the pane's
 * mouse modes, tmux's clipboard (what OSC 52 set), and a resize.
 */
import { execFile } from 'node:child_process';
import type { Terminal } from './tmux.js';

function tmux(term: Terminal, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-L', term.socket, ...args], { encoding: 'utf8', timeout: 5_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`tmux ${args.join(' ')}: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}

/** The one pane of the terminal's server. */
async function pane(term: Terminal): Promise<string> {
  const panes = (await tmux(term, ['list-panes', '-a', '-F', '#{pane_id}'])).trim().split('\n');
  if (panes.length !== 1 || panes[0] === '') throw new Error(`expected one tmux pane, found ${JSON.stringify(panes)}`);
  return panes[0] as string;
}

/**
 * Keys (tmux key names) in one `send-keys`: tmux writes them to the program together, so it reads
 * them in one read — unlike Terminal.press, which sends each key on its own.
 */
export async function sendTogether(term: Terminal, ...keys: string[]): Promise<void> {
  await tmux(term, ['send-keys', '-t', await pane(term), ...keys]);
}

/** Text sent as it is, in one write (an escape sequence such as a mouse report, a line and its Enter). */
export async function sendRaw(term: Terminal, text: string): Promise<void> {
  await tmux(term, ['send-keys', '-t', await pane(term), '-l', text]);
}

/** An SGR mouse report of a wheel notch at a cell (1-based, as the terminal counts). */
export const wheel = (direction: 'up' | 'down', column: number, row: number): string => `\u001b[<${direction === 'up' ? 64 : 65};${column};${row}M`;

/** Whether the program in the pane has asked for mouse reports: button tracking (1000), SGR form (1006). */
export async function mouseModes(term: Terminal): Promise<{ buttons: boolean; sgr: boolean }> {
  const [buttons, sgr] = (await tmux(term, ['display-message', '-p', '-t', await pane(term), '#{mouse_standard_flag} #{mouse_sgr_flag}'])).trim().split(' ');
  return { buttons: buttons === '1', sgr: sgr === '1' };
}

/** Let programs in the pane set tmux's clipboard with OSC 52 (`set-clipboard on`). */
export async function acceptClipboard(term: Terminal): Promise<void> {
  await tmux(term, ['set-option', '-g', 'set-clipboard', 'on']);
}

/** tmux's newest paste buffer (what OSC 52 set), or null when there is none. */
export async function clipboard(term: Terminal): Promise<string | null> {
  return tmux(term, ['show-buffer']).catch(() => null);
}

/** Resize the terminal (the program sees SIGWINCH, as when a person resizes the window). */
export async function resize(term: Terminal, columns: number, rows: number): Promise<void> {
  await tmux(term, ['resize-window', '-t', await pane(term), '-x', String(columns), '-y', String(rows)]);
}
