import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import type { DetailLine } from '../state/detail-lines.js';
import { padCells } from '../state/text.js';
import { useToneColor } from '../theme.js';

export interface StepDetailProps {
  lines: readonly DetailLine[];
  scroll: number;
  height: number;
  width: number;
}

/** The selected step's detail, from line `scroll` on, one drawn line per wrapped line. */
export function StepDetail({ lines, scroll, height, width }: StepDetailProps): ReactElement {
  const color = useToneColor();
  const shown = lines.slice(scroll, scroll + height);
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {shown.length === 0 ? <Text> select a step</Text> : null}
      {shown.map((line, i) => (
        <Text key={scroll + i} color={color(line.tone)} bold={line.tone === 'heading'} wrap="truncate">
          {padCells(line.text, width)}
        </Text>
      ))}
    </Box>
  );
}
