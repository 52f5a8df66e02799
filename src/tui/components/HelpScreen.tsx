import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import type { Verdict } from '../../core/decisions.js';
import { DIVERGENCE_GLYPHS, VERDICT_GLYPHS, VERDICT_MEANING } from '../../core/verdict-glyphs.js';
import { KEY_BINDINGS } from '../state/keymap.js';
import { padCells } from '../state/text.js';
import { CHANGED_GLYPH, PATCH_GLYPH, SELECTED_MARKER } from '../state/timeline-text.js';
import { useToneColor } from '../theme.js';

const LEGEND: { glyph: string; text: string; tone: Verdict | 'expected' | 'unexpected' | 'normal' }[] = [
  ...(Object.keys(VERDICT_GLYPHS) as Verdict[]).map((v) => ({ glyph: VERDICT_GLYPHS[v], text: `${v}: ${VERDICT_MEANING[v]}`, tone: v })),
  { glyph: DIVERGENCE_GLYPHS.unexpected, text: 'unexpected divergence from the tape', tone: 'unexpected' },
  { glyph: DIVERGENCE_GLYPHS.expected, text: 'expected divergence (patch, what-if)', tone: 'expected' },
  { glyph: CHANGED_GLYPH, text: 'a decision changed against the recording', tone: 'expected' },
  { glyph: PATCH_GLYPH, text: 'the step was patched (--patch)', tone: 'normal' },
  { glyph: SELECTED_MARKER, text: 'the selected step', tone: 'normal' },
];

/** `?`: every key from the key table, and what each glyph means. Any key closes it. */
export function HelpScreen({ width, height }: { width: number; height: number }): ReactElement {
  const color = useToneColor();
  const left = Math.min(Math.max(30, Math.floor(width * 0.58)), width);
  const right = width - left;
  const keys = [{ label: 'Keys', help: '(any key closes this help)' }, ...KEY_BINDINGS];
  return (
    <Box height={height} width={width}>
      <Box flexDirection="column" width={left} height={height} overflow="hidden">
        {keys.slice(0, height).map((k, i) => (
          <Text key={i} bold={i === 0} wrap="truncate">
            {padCells(`${padCells(k.label, 8)}${k.help}`, left - 1)}
          </Text>
        ))}
      </Box>
      {right >= 12 ? (
        <Box flexDirection="column" width={right} height={height} overflow="hidden">
          <Text bold wrap="truncate">{padCells('Glyphs', right)}</Text>
          {LEGEND.slice(0, height - 1).map((l, i) => (
            <Text key={i} wrap="truncate">
              <Text color={color(l.tone)}>{l.glyph}</Text>
              {padCells(` ${l.text}`, right - 1)}
            </Text>
          ))}
        </Box>
      ) : null}
    </Box>
  );
}
