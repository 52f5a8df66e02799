/**
 * One glyph per guardrail verdict, shared by the text reporter and the terminal UI. Each verdict has
 * its own shape, so the meaning survives a terminal without colour (`NO_COLOR`, a pipe, a screen
 * reader's transcript): colour only repeats what the shape already says.
 */
import type { Verdict } from './decisions.js';

export const VERDICT_GLYPHS: Readonly<Record<Verdict, string>> = {
  allow: '✓',
  continue: '·',
  skip: '⊘',
  block: '✗',
  warn: '!',
  halt: '■',
  stuck: '∞',
  recover: '↻',
};

/**
 * Marks what follows it as analysis: what the guardrails would have decided over a run recorded
 * without them (the terminal UI's timeline and detail), never what happened.
 */
export const ANALYSIS_GLYPH = '?';

/** Glyphs for a replay that departs from its tape: unexpected, or explained by a patch or what-if. */
export const DIVERGENCE_GLYPHS = { unexpected: '≠', expected: '≈' } as const;

/** How much a verdict matters to someone scanning a run, low to high (the worst verdict of a call wins). */
export const VERDICT_SEVERITY: Readonly<Record<Verdict, number>> = {
  continue: 0,
  allow: 1,
  recover: 2,
  warn: 3,
  skip: 4,
  block: 5,
  halt: 6,
  stuck: 7,
};

/** What each verdict means, in a few words (the UI's help screen shows this legend). */
export const VERDICT_MEANING: Readonly<Record<Verdict, string>> = {
  allow: 'allowed to run',
  continue: 'nothing to do (a counter moved)',
  skip: 'duplicate of an earlier success',
  block: 'identical call repeated too often',
  warn: 'repeated failures, or budget nearly spent',
  halt: 'too many consecutive failures',
  stuck: 'same tool step repeated: run stopped',
  recover: 'cut-off answer continued (max tokens)',
};
