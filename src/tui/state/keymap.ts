/**
 * Every key of the UI, in one table: the input hook resolves key presses with it, and the footer
 * and the `?` help screen render it, so what the help says is what the keys do.
 */

/** What a key asks the UI to do. */
export type KeyAction =
  | 'down'
  | 'up'
  | 'first'
  | 'last'
  | 'pageDown'
  | 'pageUp'
  | 'switchPane'
  | 'toggleExpand'
  | 'search'
  | 'nextMatch'
  | 'prevMatch'
  | 'cycleFilter'
  | 'nextDivergence'
  | 'toggleFollow'
  | 'help'
  | 'quit'
  | 'interrupt';

/** The parts of a key press the table looks at (a subset of Ink's `Key`). */
export interface KeyPress {
  upArrow?: boolean;
  downArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  tab?: boolean;
  ctrl?: boolean;
}

export interface KeyBinding {
  action: KeyAction;
  /** How the keys are written in the footer and help. */
  label: string;
  /** What the action does, for the help screen. */
  help: string;
  /** The short form shown in the footer; absent → help screen only. */
  footer?: string;
  matches(input: string, key: KeyPress): boolean;
}

export const KEY_BINDINGS: readonly KeyBinding[] = [
  { action: 'down', label: 'j ↓', help: 'next step (detail focused: scroll down)', footer: 'step', matches: (i, k) => i === 'j' || k.downArrow === true },
  { action: 'up', label: 'k ↑', help: 'previous step (detail focused: scroll up)', matches: (i, k) => i === 'k' || k.upArrow === true },
  { action: 'first', label: 'g Home', help: 'first step (detail: its top)', matches: (i, k) => i === 'g' || k.home === true },
  { action: 'last', label: 'G End', help: 'last step (detail: its bottom)', footer: 'first/last', matches: (i, k) => i === 'G' || k.end === true },
  { action: 'pageUp', label: 'PgUp', help: 'a page up', matches: (_i, k) => k.pageUp === true },
  { action: 'pageDown', label: 'PgDn', help: 'a page down', matches: (_i, k) => k.pageDown === true },
  { action: 'switchPane', label: 'Tab', help: 'switch the focus: timeline ⇄ detail', footer: 'pane', matches: (_i, k) => k.tab === true },
  { action: 'toggleExpand', label: 'Enter', help: 'expand or collapse long text', footer: 'expand', matches: (_i, k) => k.return === true },
  { action: 'search', label: '/', help: 'search the steps\' text (Enter, Esc)', footer: 'search', matches: (i) => i === '/' },
  { action: 'nextMatch', label: 'n', help: 'next search match', matches: (i) => i === 'n' },
  { action: 'prevMatch', label: 'N', help: 'previous search match', matches: (i) => i === 'N' },
  { action: 'cycleFilter', label: 'f', help: 'filter: all → not allowed → blocks → diverged', footer: 'filter', matches: (i) => i === 'f' },
  { action: 'nextDivergence', label: 'd', help: 'next divergence or changed decision', footer: 'divergence', matches: (i) => i === 'd' },
  { action: 'toggleFollow', label: 'space', help: 'live: follow the newest step, or pause', matches: (i) => i === ' ' },
  { action: 'help', label: '?', help: 'this help', footer: 'help', matches: (i) => i === '?' },
  { action: 'quit', label: 'q Esc', help: 'quit (stops a live run first)', footer: 'quit', matches: (i, k) => i === 'q' || k.escape === true },
  { action: 'interrupt', label: 'Ctrl-C', help: 'stop a live run (CANCELLED) and quit', matches: (i, k) => k.ctrl === true && i === 'c' },
];

/** The action bound to a key press, if any. */
export function actionFor(input: string, key: KeyPress): KeyAction | null {
  // Ctrl-C first: with Ctrl held, letters must not fall through to their plain bindings.
  if (key.ctrl === true) return input === 'c' ? 'interrupt' : null;
  for (const binding of KEY_BINDINGS) if (binding.matches(input, key)) return binding.action;
  return null;
}

/** The footer's key hints: "q quit · ? help · j/k step · …", from the table; how to leave comes first. */
export function footerHints(): string[] {
  const hints: string[] = [];
  const first: KeyAction[] = ['quit', 'help'];
  const ordered = [...KEY_BINDINGS.filter((b) => first.includes(b.action)), ...KEY_BINDINGS.filter((b) => !first.includes(b.action))];
  for (const binding of ordered) {
    if (binding.footer === undefined) continue;
    const keys = binding.action === 'down' ? 'j/k' : binding.action === 'last' ? 'g/G' : binding.label.split(' ')[0] ?? binding.label;
    hints.push(`${keys} ${binding.footer}`);
  }
  return hints;
}
