import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import type { HeaderLine } from '../state/header-lines.js';
import { clipLine } from '../state/text.js';
import { useToneColor } from '../theme.js';

/** The header: run, task, progress and status, one line each, clipped to the width. */
export function Header({ lines, width }: { lines: readonly HeaderLine[]; width: number }): ReactElement {
  const color = useToneColor();
  return (
    <Box flexDirection="column" width={width} height={lines.length}>
      {lines.map((line, i) => (
        <Text key={i} color={color(line.tone)} bold={i === 0} wrap="truncate">
          {clipLine(line.text, width)}
        </Text>
      ))}
    </Box>
  );
}
