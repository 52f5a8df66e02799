import { useInput } from 'ink';
import type { Dispatch } from 'react';
import { pressesOf } from '../state/key-presses.js';
import type { TuiAction } from '../state/tui-state.js';

/**
 * What the terminal sends → the reducer, one press at a time: several keys in one read are split
 * (state/key-presses.ts), and the reducer reads each in the state the previous one left, so
 * `/Blocked⏎` types a search and submits it. Effects outside the UI (stopping the run, the
 * clipboard) come back as the state's requests.
 */
export function useKeyActions(dispatch: Dispatch<TuiAction>): void {
  useInput((input, key) => {
    for (const press of pressesOf(input, key)) dispatch({ type: 'press', press });
  });
}
