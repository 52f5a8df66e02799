import { useInput } from 'ink';
import type { Dispatch } from 'react';
import { actionFor, type KeyAction } from '../state/keymap.js';
import type { TuiAction } from '../state/tui-state.js';

/**
 * Key presses → reducer actions, through the key table. While a search is typed, keys are text
 * (Enter searches, Esc cancels, Backspace erases). `onAction` sees each action first (quit and
 * interrupt have effects outside the UI state).
 */
export function useKeyActions(editing: boolean, dispatch: Dispatch<TuiAction>, onAction: (action: KeyAction) => void): void {
  useInput((input, key) => {
    if (editing) {
      if (key.ctrl && input === 'c') {
        onAction('interrupt');
        dispatch({ type: 'key', action: 'interrupt' });
      } else if (key.return) dispatch({ type: 'searchSubmit' });
      else if (key.escape) dispatch({ type: 'searchCancel' });
      else if (key.backspace || key.delete) dispatch({ type: 'searchErase' });
      else if (input !== '' && !key.ctrl && !key.meta && !key.tab) dispatch({ type: 'searchType', text: input });
      return;
    }
    // Keys that arrive in one read (fast typing, a slow link, a paste) come as one string.
    const presses = input.length > 1 && !key.ctrl && !key.meta ? [...input] : [input];
    for (const press of presses) {
      const action = actionFor(press, key);
      if (action === null) {
        dispatch({ type: 'otherKey' });
        continue;
      }
      onAction(action);
      dispatch({ type: 'key', action });
    }
  });
}
