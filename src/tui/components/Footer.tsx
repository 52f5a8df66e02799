import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import { footerText } from '../state/footer-text.js';
import { clipLine } from '../state/text.js';
import type { SearchState } from '../state/tui-state.js';

export interface FooterProps {
  width: number;
  search: SearchState;
  notice: string | null;
  /** Left-hand status: follow/paused, detail or help position. */
  status: string;
  /** The hints to show (the help screen has its own); the key table's by default. */
  hints?: readonly string[];
}

/** The last line: the search being typed, a notice, or the status and the key hints that fit. */
export function Footer({ width, search, notice, status, hints }: FooterProps): ReactElement {
  if (search.editing) {
    return (
      <Box height={1}>
        <Text wrap="truncate">{clipLine(`/${search.draft}█  (Enter search · Esc cancel)`, width)}</Text>
      </Box>
    );
  }
  return (
    <Box height={1}>
      <Text dimColor={notice === null} wrap="truncate">
        {notice === null ? footerText(width, status, hints) : clipLine(notice, width)}
      </Text>
    </Box>
  );
}
