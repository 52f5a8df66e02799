import { Box, Text } from 'ink';
import type { ReactElement } from 'react';

/** The vertical line between the timeline and the detail. */
export function Separator({ height }: { height: number }): ReactElement {
  return (
    <Box flexDirection="column" width={1} height={height}>
      {Array.from({ length: height }, (_, i) => (
        <Text key={i}>│</Text>
      ))}
    </Box>
  );
}
