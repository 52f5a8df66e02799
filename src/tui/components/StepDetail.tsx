import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import type { DetailLine } from '../state/detail-lines.js';
import { matchRanges } from '../state/filters.js';
import { padCells } from '../state/text.js';
import { useToneColor } from '../theme.js';

export interface StepDetailProps {
  lines: readonly DetailLine[];
  scroll: number;
  height: number;
  width: number;
  /** The search in force: its matches are shown in inverse video. */
  highlight: RegExp | null;
}

/**
 * Inverse video, written as its own escape rather than through Ink's `inverse`: Ink styles with
 * chalk, which drops every attribute when colour is off, and a match must show without colour too.
 */
const INVERSE = '\u001b[7m';
const INVERSE_OFF = '\u001b[27m';

/** The selected step's detail, from line `scroll` on, one drawn line per wrapped line. */
export function StepDetail({ lines, scroll, height, width, highlight }: StepDetailProps): ReactElement {
  const color = useToneColor();
  const shown = lines.slice(scroll, scroll + height);
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {shown.length === 0 ? <Text> select a step</Text> : null}
      {shown.map((line, i) => (
        <Text key={scroll + i} color={color(line.tone)} bold={line.tone === 'heading'} wrap="truncate">
          {highlighted(padCells(line.text, width), highlight)}
        </Text>
      ))}
    </Box>
  );
}

/** The line with each match of the search wrapped in inverse video. */
function highlighted(text: string, pattern: RegExp | null): string {
  if (pattern === null) return text;
  let out = '';
  let at = 0;
  for (const [start, end] of matchRanges(text, pattern)) {
    out += `${text.slice(at, start)}${INVERSE}${text.slice(start, end)}${INVERSE_OFF}`;
    at = end;
  }
  return out + text.slice(at);
}
