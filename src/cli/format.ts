import type { RunMeta } from '../core/run-meta.js';
import { printableLine } from '../core/terminal-text.js';

/**
 * Lay out rows as left-aligned columns separated by two spaces. A cell is one line of text that may
 * come from a tape (a task, a name): its control characters are shown as escapes (core/terminal-text.ts).
 */
export function table(cells: string[][]): string[] {
  const rows = cells.map((row) => row.map(printableLine));
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** Shorten text to `max` characters, on one line. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** `COMPLETED`, `incomplete`, or `recording`: the most useful single word about a run. */
export function runOutcome(meta: RunMeta): string {
  if (meta.status !== 'complete') return meta.status;
  return meta.finalState ?? 'complete';
}

/** `2026-11-21 23:49:51` from an ISO timestamp. */
export function shortTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$/, '').replace(/Z$/, '');
}
