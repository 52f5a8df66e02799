/**
 * A timeline row as fixed-width pieces: a selection marker that is a glyph (not only inverse
 * video), the step number, a patch mark, the model's action clipped to fit, and the verdict glyphs
 * in a column of their own, so a skip → block → stuck sequence reads straight down the screen.
 */
import { DIVERGENCE_GLYPHS, VERDICT_GLYPHS } from '../../core/verdict-glyphs.js';
import type { Tone } from './detail-lines.js';
import type { Mark, StepRow } from './step-row.js';
import { padCells } from './text.js';

/** Glyphs shown per row; more become "+". */
const MAX_MARKS = 6;
/** The changed-decision mark (what-if: a verdict differs from the recording). */
export const CHANGED_GLYPH = 'Δ';
export const PATCH_GLYPH = 'P';
export const SELECTED_MARKER = '▶';

export interface TimelineCells {
  /** Marker, step number and patch mark, e.g. `▶  3 P`. */
  lead: string;
  action: string;
  glyphs: { glyph: string; tone: Tone }[];
  /** Spaces after the glyphs, to fill the row. */
  rest: string;
}

export function timelineCells(row: StepRow, options: { width: number; selected: boolean; patched: boolean; stepDigits: number }): TimelineCells {
  const marker = options.selected ? `${SELECTED_MARKER} ` : '  ';
  const lead = `${marker}${String(row.step).padStart(options.stepDigits)} ${options.patched ? PATCH_GLYPH : ' '} `;
  const shown = row.marks.slice(0, MAX_MARKS).map(markGlyph);
  if (row.marks.length > MAX_MARKS) shown.push({ glyph: '+', tone: 'dim' });
  const glyphWidth = MAX_MARKS + 1;
  const actionWidth = Math.max(4, options.width - lead.length - glyphWidth - 1);
  return { lead, action: `${padCells(row.action, actionWidth)} `, glyphs: shown, rest: ' '.repeat(Math.max(0, glyphWidth - shown.length)) };
}

export function markGlyph(mark: Mark): { glyph: string; tone: Tone } {
  switch (mark.kind) {
    case 'verdict':
      return { glyph: VERDICT_GLYPHS[mark.verdict], tone: mark.verdict };
    case 'divergence':
      return mark.expected ? { glyph: DIVERGENCE_GLYPHS.expected, tone: 'expected' } : { glyph: DIVERGENCE_GLYPHS.unexpected, tone: 'unexpected' };
    case 'changed':
      return { glyph: CHANGED_GLYPH, tone: 'expected' };
  }
}
