/**
 * Where the step detail opens. A step is there to say why it went as it did, so its detail opens
 * on the line that says so — its first decision other than allow, or a divergence — and `d` and a
 * search open it on their line the same way: the top when that line is on the first screen, else
 * scrolled so the line sits near the top under the heading of its block (the call it decided).
 */
import type { DetailLine } from './detail-lines.js';

/** Finds the line to show in a step's detail lines; -1 for none (the detail opens at its top). */
export type LineFinder = (lines: readonly DetailLine[]) => number;

/** Lines after the shown line that stay on screen too (a decision's reason and counters). */
const AFTER_LINES = 2;
/** How far above the shown line a heading is looked for, to open on its block. */
const HEADING_REACH = 6;
/** Lines kept above the shown line when no heading is that near. */
const CONTEXT_LINES = 2;

/** A step opens on its first decision other than allow, or its first divergence, whichever comes first. */
export const openingLine: LineFinder = (lines) => lines.findIndex((line) => line.anchor !== undefined);

/** `d`: the step's first divergence. */
export const divergenceLine: LineFinder = (lines) => lines.findIndex((line) => line.anchor === 'divergence');

/** The first detail line to draw so that line `at` (and the lines right after it) are on a screen of `bodyRows` lines. */
export function scrollToShow(lines: readonly DetailLine[], at: number, bodyRows: number): number {
  if (at < 0 || at + AFTER_LINES < bodyRows) return 0;
  const room = Math.max(0, bodyRows - 1 - AFTER_LINES);
  for (let i = at - 1; i >= Math.max(0, at - Math.min(HEADING_REACH, room)); i--) if (lines[i]?.tone === 'heading') return i;
  return Math.max(0, at - Math.min(CONTEXT_LINES, room));
}
