/**
 * The screen of a test terminal (test/support/tmux.ts) with its styles: `tmux capture-pane -e`
 * keeps each cell's attributes as SGR escapes, so a test can see what is drawn in inverse video.
 */
import { execFile } from 'node:child_process';
import type { Terminal } from './tmux.js';

/** The visible screen, one string per line, with the SGR escapes of its styles. */
export function styledLines(term: Terminal): Promise<string[]> {
  return new Promise((resolve, reject) => {
    // The terminal's server has one session: capture-pane takes its only pane.
    execFile('tmux', ['-L', term.socket, 'capture-pane', '-p', '-e'], { encoding: 'utf8', timeout: 5_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`tmux capture-pane -e: ${stderr.trim() || error.message}`));
      else resolve(stdout.replace(/\n$/, '').split('\n'));
    });
  });
}

/** The text of a styled line that is drawn in inverse video, each run of it as one string. */
export function inverseRuns(line: string): string[] {
  const runs: string[] = [];
  let inverse = false;
  let current = '';
  for (const part of line.split(/(\u001b\[[0-9;]*m)/)) {
    if (part.startsWith('\u001b[')) {
      const codes = part.slice(2, -1).split(';').map((c) => (c === '' ? 0 : Number(c)));
      for (const code of codes) {
        if (code === 7) inverse = true;
        else if (code === 27 || code === 0) inverse = false;
      }
      if (!inverse && current !== '') {
        runs.push(current);
        current = '';
      }
    } else if (inverse) current += part;
  }
  if (current !== '') runs.push(current);
  return runs;
}
