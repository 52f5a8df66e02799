/**
 * A timeline row as fixed-width pieces: a selection marker that is a glyph (not only inverse
 * video), the step number, the model's action (a tool call with its arguments) clipped to fit, and
 * the glyphs (a patch mark, the verdicts) in a column of their own, so a skip → block → stuck
 * sequence reads straight down the screen (an analysed run's verdicts after a `?`: they are what the
 * guardrails would have decided). The glyph column is as wide as the most glyphs a row on
 * screen has, so the action gets every other cell.
 */
import { ANALYSIS_GLYPH, DIVERGENCE_GLYPHS, VERDICT_GLYPHS } from '../../core/verdict-glyphs.js';
import type { Tone } from './detail-lines.js';
import type { Mark, StepRow } from './step-row.js';
import { clipLine, padCells } from './text.js';

/** Glyphs shown per row; more become "+". */
const MAX_MARKS = 6;
/** The changed-decision mark (what-if: a verdict differs from the recording). */
export const CHANGED_GLYPH = 'Δ';
export const PATCH_GLYPH = 'P';
export const SELECTED_MARKER = '▶';

export interface TimelineCells {
  /** Marker and step number, e.g. `▶  3 `. */
  lead: string;
  /** The action clipped to its column (a `+N` for more tool calls kept), padded, and a space. */
  action: string;
  glyphs: { glyph: string; tone: Tone }[];
  /** Spaces after the glyphs, to fill the row. */
  rest: string;
}

export interface TimelineCellOptions {
  width: number;
  selected: boolean;
  patched: boolean;
  stepDigits: number;
  /** Cells of the glyph column: the most glyphs a row on screen has (see glyphCount). */
  glyphColumns: number;
}

export function timelineCells(row: StepRow, options: TimelineCellOptions): TimelineCells {
  const marker = options.selected ? `${SELECTED_MARKER} ` : '  ';
  const lead = `${marker}${String(row.step).padStart(options.stepDigits)} `;
  const shown = row.marks.slice(0, MAX_MARKS).map(markGlyph);
  if (row.marks.length > MAX_MARKS) shown.push({ glyph: '+', tone: 'dim' });
  if (options.patched) shown.unshift({ glyph: PATCH_GLYPH, tone: 'normal' });
  const glyphColumns = Math.max(options.glyphColumns, shown.length);
  const actionWidth = Math.max(4, options.width - lead.length - glyphColumns - 1);
  // The count of further calls stays visible however much of the first call is cut.
  const more = row.moreCalls > 0 ? ` +${row.moreCalls}` : '';
  const action = `${clipLine(row.action, Math.max(1, actionWidth - more.length))}${more}`;
  return { lead, action: `${padCells(action, actionWidth)} `, glyphs: shown, rest: ' '.repeat(Math.max(0, glyphColumns - shown.length)) };
}

/** Glyphs a row shows: its marks (at most MAX_MARKS and a `+`), and `P` when it was patched. */
export function glyphCount(row: StepRow, patched: boolean): number {
  return Math.min(row.marks.length, MAX_MARKS + 1) + (patched ? 1 : 0);
}

export function markGlyph(mark: Mark): { glyph: string; tone: Tone } {
  switch (mark.kind) {
    case 'verdict':
      return { glyph: VERDICT_GLYPHS[mark.verdict], tone: mark.verdict };
    case 'divergence':
      return mark.expected ? { glyph: DIVERGENCE_GLYPHS.expected, tone: 'expected' } : { glyph: DIVERGENCE_GLYPHS.unexpected, tone: 'unexpected' };
    case 'changed':
      return { glyph: CHANGED_GLYPH, tone: 'expected' };
    case 'analysis':
      return { glyph: ANALYSIS_GLYPH, tone: 'dim' };
  }
}
