/**
 * A step's text to copy (`y`) or write to a file (`w`): its detail as the UI shows it, expanded,
 * laid out at a fixed width, without colour. The detail's lines are already terminal-safe (control
 * characters as visible escapes, core/terminal-text.ts); `printable` is applied once more so the
 * text that leaves the UI is safe whatever builds the lines.
 */
import { printable } from '../../core/terminal-text.js';
import { detailLines } from './detail-lines.js';
import type { StepRow } from './step-row.js';

/** Wide enough for recorded and replayed values side by side, narrow enough to read in an editor. */
export const STEP_TEXT_WIDTH = 120;

export function stepText(row: StepRow, patched: boolean): string {
  const lines = detailLines(row, { width: STEP_TEXT_WIDTH, expanded: true, patched });
  return printable(`${lines.map((line) => line.text.trimEnd()).join('\n')}\n`);
}
