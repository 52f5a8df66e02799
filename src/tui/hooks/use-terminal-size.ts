import { useStdout } from 'ink';
import { useEffect, useState } from 'react';
import type { TerminalSize } from '../state/layout.js';

const DEFAULT_SIZE: TerminalSize = { columns: 80, rows: 24 };

/**
 * The terminal's size, following resizes (Ink 6 has no hook for it). `fixed` pins a size (tests,
 * and streams that are not terminals).
 */
export function useTerminalSize(fixed?: TerminalSize): TerminalSize {
  const { stdout } = useStdout();
  const read = (): TerminalSize => ({ columns: stdout.columns || DEFAULT_SIZE.columns, rows: stdout.rows || DEFAULT_SIZE.rows });
  const [size, setSize] = useState(read);
  useEffect(() => {
    if (fixed !== undefined) return undefined;
    const onResize = (): void => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, fixed]);
  return fixed ?? size;
}
