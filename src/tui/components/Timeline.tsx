import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import type { StepRow } from '../state/step-row.js';
import { glyphCount } from '../state/timeline-text.js';

import { TimelineRow } from './TimelineRow.js';

export interface TimelineProps {
  rows: readonly StepRow[];
  /** Indices into `rows` that the filter keeps. */
  visible: readonly number[];
  /** Position in `visible` of the first row drawn. */
  top: number;
  height: number;
  width: number;
  selected: number;
  isPatched: (row: StepRow) => boolean;
}

/** The step list. Only the rows in the window are rendered, so a long run costs what the screen shows. */
export function Timeline(props: TimelineProps): ReactElement {
  const window = props.visible.slice(props.top, props.top + props.height);
  const last = props.rows[props.rows.length - 1];
  const stepDigits = Math.max(2, String(last?.step ?? 0).length);
  // The glyph column fits the rows on screen: the action gets the rest of the width.
  const glyphColumns = window.reduce((most, index) => {
    const row = props.rows[index] as StepRow;
    return Math.max(most, glyphCount(row, props.isPatched(row)));
  }, 1);
  return (
    <Box flexDirection="column" width={props.width} height={props.height} overflow="hidden">
      {window.length === 0 ? (
        <Text wrap="truncate">{props.rows.length === 0 ? '  waiting for the first step…' : '  no step matches this filter (f)'}</Text>
      ) : (
        window.map((index) => {
          const row = props.rows[index] as StepRow;
          const selected = index === props.selected;
          const patched = props.isPatched(row);
          return (
            <TimelineRow
              key={row.step}
              row={row}
              width={props.width}
              selected={selected}
              patched={patched}
              stepDigits={stepDigits}
              glyphColumns={glyphColumns}
            />
          );
        })
      )}
    </Box>
  );
}
