import { Box, Text } from 'ink';
import { memo, type ReactElement } from 'react';
import type { StepRow } from '../state/step-row.js';
import { timelineCells } from '../state/timeline-text.js';
import { useToneColor } from '../theme.js';

export interface TimelineRowProps {
  row: StepRow;
  width: number;
  selected: boolean;
  patched: boolean;
  stepDigits: number;
  glyphColumns: number;
}

/** One step: marker, number, action, a patch mark and one glyph per verdict that matters. */
export const TimelineRow = memo(function TimelineRow(props: TimelineRowProps): ReactElement {
  const color = useToneColor();
  const cells = timelineCells(props.row, props);
  return (
    <Box height={1} width={props.width}>
      <Text inverse={props.selected} bold={props.selected} wrap="truncate">
        {cells.lead}
        {cells.action}
      </Text>
      {cells.glyphs.map((g, i) => (
        <Text key={i} color={color(g.tone)}>
          {g.glyph}
        </Text>
      ))}
      <Text>{cells.rest}</Text>
    </Box>
  );
});
