import { describe, expect, it } from 'vitest';
import type { DetailLine, Tone } from './detail-lines.js';
import { divergenceLine, openingLine, scrollToShow } from './detail-scroll.js';

const line = (text: string, tone: Tone = 'normal', anchor?: DetailLine['anchor']): DetailLine => (anchor === undefined ? { text, tone } : { text, tone, anchor });
/** 40 lines: a heading at 30, a block at 33, a divergence at 36. */
const lines: DetailLine[] = Array.from({ length: 40 }, (_, i) => line(`line ${i}`));
lines[30] = line('Call read_file', 'heading');
lines[33] = line('✗ block', 'block', 'decision');
lines[36] = line('≠ Divergence', 'unexpected', 'divergence');

describe('where the step detail opens', () => {
  it('finds the first decision other than allow or divergence, and for d the first divergence', () => {
    expect(openingLine(lines)).toBe(33);
    expect(divergenceLine(lines)).toBe(36);
    expect(openingLine(lines.slice(0, 30))).toBe(-1);
  });

  it('stays at the top when the line and the two after it are on the first screen', () => {
    expect(scrollToShow(lines, -1, 17)).toBe(0);
    expect(scrollToShow(lines, 14, 17)).toBe(0);
    expect(scrollToShow(lines, 15, 17)).toBeGreaterThan(0);
  });

  it('opens on the heading of the line\'s block when it is near, else two lines above the line', () => {
    expect(scrollToShow(lines, 33, 17)).toBe(30);
    expect(scrollToShow(lines, 36, 17)).toBe(30);
    expect(scrollToShow(lines, 37, 17)).toBe(35);
    expect(scrollToShow(lines, 20, 17)).toBe(18);
  });

  it('on a short pane keeps the line and what follows it on screen', () => {
    for (const rows of [1, 2, 3, 4, 5, 6]) {
      const top = scrollToShow(lines, 33, rows);
      expect(top).toBeLessThanOrEqual(33);
      expect(33 - top).toBeLessThan(Math.max(1, rows - 2));
    }
  });
});
