/**
 * The `?` help as lines wrapped to the terminal's width: every row of the key table, then what each
 * glyph means. Long texts wrap under their own column instead of being cut; the help screen shows
 * a window of these lines and scrolls through them.
 */
import type { Verdict } from '../../core/decisions.js';
import { ANALYSIS_GLYPH, DIVERGENCE_GLYPHS, VERDICT_GLYPHS, VERDICT_MEANING } from '../../core/verdict-glyphs.js';
import { HELP_ROWS, helpKeys } from './keymap.js';
import { cells, padCells, wrap } from './text.js';
import { CHANGED_GLYPH, PATCH_GLYPH, SELECTED_MARKER } from './timeline-text.js';

export type HelpTone = Verdict | 'expected' | 'unexpected' | 'normal' | 'heading';

export interface HelpLine {
  /** A glyph drawn in its tone before the text (legend lines). */
  glyph?: { text: string; tone: HelpTone };
  text: string;
  tone: HelpTone;
}

export const LEGEND: readonly { glyph: string; text: string; tone: HelpTone }[] = [
  ...(Object.keys(VERDICT_GLYPHS) as Verdict[]).map((v) => ({ glyph: VERDICT_GLYPHS[v], text: `${v}: ${VERDICT_MEANING[v]}`, tone: v })),
  { glyph: DIVERGENCE_GLYPHS.unexpected, text: 'unexpected divergence from the tape', tone: 'unexpected' },
  { glyph: DIVERGENCE_GLYPHS.expected, text: 'expected divergence (patch, what-if)', tone: 'expected' },
  { glyph: CHANGED_GLYPH, text: 'a decision changed against the recording', tone: 'expected' },
  { glyph: ANALYSIS_GLYPH, text: 'analysis: the verdicts after it are what the guardrails would have decided (the run did not run them)', tone: 'normal' },
  { glyph: PATCH_GLYPH, text: 'the step was patched (--patch)', tone: 'normal' },
  { glyph: SELECTED_MARKER, text: 'the selected step', tone: 'normal' },
];

const cache = new Map<number, HelpLine[]>();

export function helpLines(width: number): HelpLine[] {
  const cached = cache.get(width);
  if (cached !== undefined) return cached;
  const lines: HelpLine[] = [{ text: 'Keys', tone: 'heading' }];
  const keyColumn = Math.min(Math.max(...HELP_ROWS.map((row) => cells(helpKeys(row)))) + 2, Math.floor(width / 2));
  for (const row of HELP_ROWS) {
    const keys = helpKeys(row);
    // Keys wider than their column (a very narrow terminal) get a line of their own.
    const first = cells(keys) < keyColumn ? padCells(keys, keyColumn) : null;
    if (first === null) lines.push({ text: keys, tone: 'normal' });
    wrap(row.help, width - keyColumn).forEach((piece, i) => {
      lines.push({ text: `${i === 0 && first !== null ? first : ' '.repeat(keyColumn)}${piece}`, tone: 'normal' });
    });
  }
  lines.push({ text: '', tone: 'normal' }, { text: 'Glyphs', tone: 'heading' });
  for (const entry of LEGEND) {
    // The glyph takes one cell and a space; the meaning wraps under itself.
    wrap(entry.text, width - 2).forEach((piece, i) => {
      lines.push(i === 0 ? { glyph: { text: entry.glyph, tone: entry.tone }, text: ` ${piece}`, tone: 'normal' } : { text: `  ${piece}`, tone: 'normal' });
    });
  }
  cache.set(width, lines);
  return lines;
}
