import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import { footerHints } from '../state/keymap.js';
import { clipLine } from '../state/text.js';
import type { SearchState } from '../state/tui-state.js';

export interface FooterProps {
  width: number;
  search: SearchState;
  notice: string | null;
  /** Right-hand status: follow/paused, detail position. */
  status: string;
}

/** The last line: the search being typed, a notice, or the key hints from the key table. */
export function Footer({ width, search, notice, status }: FooterProps): ReactElement {
  if (search.editing) {
    return (
      <Box height={1}>
        <Text wrap="truncate">{clipLine(`/${search.draft}█  (Enter search · Esc cancel)`, width)}</Text>
      </Box>
    );
  }
  const hints = notice ?? footerHints().join(' · ');
  const text = status === '' ? hints : `${status} │ ${hints}`;
  return (
    <Box height={1}>
      <Text dimColor={notice === null} wrap="truncate">
        {clipLine(text, width)}
      </Text>
    </Box>
  );
}
