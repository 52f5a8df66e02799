import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import { helpLines } from '../state/help-lines.js';
import { padCells } from '../state/text.js';
import { useToneColor } from '../theme.js';

/** `?`: every key from the key table, and what each glyph means, from line `scroll` on. */
export function HelpScreen({ width, height, scroll }: { width: number; height: number; scroll: number }): ReactElement {
  const color = useToneColor();
  const shown = helpLines(width).slice(scroll, scroll + height);
  return (
    <Box flexDirection="column" height={height} width={width} overflow="hidden">
      {shown.map((line, i) => (
        <Text key={scroll + i} bold={line.tone === 'heading'} wrap="truncate">
          {line.glyph === undefined ? null : <Text color={color(line.glyph.tone)}>{line.glyph.text}</Text>}
          {padCells(line.text, width - (line.glyph === undefined ? 0 : 1))}
        </Text>
      ))}
    </Box>
  );
}
