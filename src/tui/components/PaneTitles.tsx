import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import { FILTER_SHORT, type Filter } from '../state/filters.js';
import { padCells } from '../state/text.js';

export interface PaneTitlesProps {
  timelineWidth: number;
  detailWidth: number;
  focus: 'timeline' | 'detail';
  filter: Filter;
  shown: number;
  total: number;
  expanded: boolean;
}

/** The rule between header and panes, naming each pane; the focused one is marked with ●. */
export function PaneTitles(props: PaneTitlesProps): ReactElement {
  const mark = (pane: 'timeline' | 'detail'): string => (props.focus === pane ? '● ' : '  ');
  const steps = props.filter === 'all' ? `Steps (${props.total})` : `Steps ${props.shown}/${props.total} [${FILTER_SHORT[props.filter]}]`;
  const left = padCells(`${mark('timeline')}${steps} `, props.timelineWidth).replace(/ +$/, (s) => '─'.repeat(s.length));
  const right = padCells(`${mark('detail')}Step detail${props.expanded ? ' (expanded)' : ''} `, props.detailWidth).replace(/ +$/, (s) => '─'.repeat(s.length));
  return (
    <Box height={1}>
      <Text bold={props.focus === 'timeline'} wrap="truncate">{left}</Text>
      <Text>┬</Text>
      <Text bold={props.focus === 'detail'} wrap="truncate">{right}</Text>
    </Box>
  );
}
