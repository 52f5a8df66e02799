/**
 * Every key of the UI, in one table: the reducer resolves key presses with it, and the footer and
 * the `?` help screen render it, so what the help says is what the keys do.
 */

/** What a key asks the UI to do. */
export type KeyAction =
  | 'down'
  | 'up'
  | 'first'
  | 'last'
  | 'pageDown'
  | 'pageUp'
  | 'halfPageDown'
  | 'halfPageUp'
  | 'switchPane'
  | 'focusTimeline'
  | 'focusDetail'
  | 'toggleExpand'
  | 'search'
  | 'nextMatch'
  | 'prevMatch'
  | 'cycleFilter'
  | 'nextDivergence'
  | 'toggleFollow'
  | 'copy'
  | 'writeFile'
  | 'back'
  | 'help'
  | 'quit'
  | 'interrupt';

/** The parts of a key press the table looks at (a subset of Ink's `Key`). */
export interface KeyPress {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  tab?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  meta?: boolean;
}

export interface KeyBinding {
  action: KeyAction;
  /** How the keys are written in the help (and docs/tui.md), space-separated. */
  label: string;
  /**
   * The footer's hint: the keys as shown there, what they do, and a rank. The footer shows hints
   * by rank and leaves out whole hints, the highest ranks first, when the terminal is too narrow.
   */
  footer?: { keys: string; hint: string; rank: number };
  matches(input: string, key: KeyPress): boolean;
}

/** Ctrl + a letter: the letter as input (Ink's form, and the splitter's). */
const ctrl = (letter: string) => (input: string, key: KeyPress) => key.ctrl === true && input === letter;
const plain = (char: string) => (input: string, key: KeyPress) => key.ctrl !== true && input === char;

export const KEY_BINDINGS: readonly KeyBinding[] = [
  { action: 'down', label: 'j ↓', footer: { keys: 'j/k', hint: 'step', rank: 7 }, matches: (i, k) => plain('j')(i, k) || k.downArrow === true },
  { action: 'up', label: 'k ↑', matches: (i, k) => plain('k')(i, k) || k.upArrow === true },
  { action: 'first', label: 'g Home', matches: (i, k) => plain('g')(i, k) || k.home === true },
  { action: 'last', label: 'G End', footer: { keys: 'g/G', hint: 'first/last', rank: 11 }, matches: (i, k) => plain('G')(i, k) || k.end === true },
  { action: 'pageDown', label: 'PgDn', matches: (_i, k) => k.pageDown === true },
  { action: 'pageUp', label: 'PgUp', matches: (_i, k) => k.pageUp === true },
  { action: 'halfPageDown', label: 'Ctrl-d', matches: ctrl('d') },
  { action: 'halfPageUp', label: 'Ctrl-u', matches: ctrl('u') },
  { action: 'switchPane', label: 'Tab', footer: { keys: 'Tab', hint: 'pane', rank: 8 }, matches: (_i, k) => k.tab === true },
  { action: 'focusTimeline', label: 'h ←', matches: (i, k) => plain('h')(i, k) || k.leftArrow === true },
  { action: 'focusDetail', label: 'l →', matches: (i, k) => plain('l')(i, k) || k.rightArrow === true },
  { action: 'toggleExpand', label: 'Enter', footer: { keys: 'Enter', hint: 'expand', rank: 9 }, matches: (_i, k) => k.return === true },
  { action: 'search', label: '/', footer: { keys: '/', hint: 'search', rank: 3 }, matches: plain('/') },
  { action: 'nextMatch', label: 'n', matches: plain('n') },
  { action: 'prevMatch', label: 'N', matches: plain('N') },
  { action: 'cycleFilter', label: 'f', footer: { keys: 'f', hint: 'filter', rank: 4 }, matches: plain('f') },
  { action: 'nextDivergence', label: 'd', footer: { keys: 'd', hint: 'divergence', rank: 5 }, matches: plain('d') },
  { action: 'toggleFollow', label: 'space', matches: plain(' ') },
  { action: 'copy', label: 'y', footer: { keys: 'y', hint: 'copy', rank: 10 }, matches: plain('y') },
  { action: 'writeFile', label: 'w', matches: plain('w') },
  { action: 'back', label: 'Esc', footer: { keys: 'Esc', hint: 'back', rank: 6 }, matches: (_i, k) => k.escape === true },
  { action: 'help', label: '?', footer: { keys: '?', hint: 'help', rank: 2 }, matches: plain('?') },
  { action: 'quit', label: 'q', footer: { keys: 'q', hint: 'quit', rank: 1 }, matches: plain('q') },
  { action: 'interrupt', label: 'Ctrl-C', matches: ctrl('c') },
];

/** The action bound to a key press, if any. */
export function actionFor(input: string, key: KeyPress): KeyAction | null {
  // Alt + a key is not the key: an Esc typed just before a letter arrives as one Alt-letter.
  if (key.meta === true && key.escape !== true) return null;
  for (const binding of KEY_BINDINGS) if (binding.matches(input, key)) return binding.action;
  return null;
}

/** One line of the `?` help: keys of the table (or the mouse), and what they do. */
export interface HelpRow {
  /** The bindings on this line; their labels, joined with " / ", are the keys column. */
  actions: readonly KeyAction[];
  /** Keys that are not in the table (the mouse). */
  keys?: string;
  help: string;
}

export const HELP_ROWS: readonly HelpRow[] = [
  { actions: ['down', 'up'], help: 'next / previous step (detail focused: scroll it)' },
  { actions: ['first', 'last'], help: 'first / last step (detail focused: its top / bottom)' },
  { actions: ['pageDown', 'pageUp'], help: 'a page down / up' },
  { actions: ['halfPageDown', 'halfPageUp'], help: 'half a page down / up' },
  { actions: ['switchPane'], help: 'switch the focus: timeline ⇄ detail' },
  { actions: ['focusTimeline', 'focusDetail'], help: 'focus the timeline / the detail' },
  { actions: [], keys: 'wheel', help: 'mouse wheel: scroll the pane under the pointer' },
  { actions: ['toggleExpand'], help: 'expand or collapse long text' },
  { actions: ['search'], help: "search the steps' text (Enter searches, Esc cancels)" },
  { actions: ['nextMatch', 'prevMatch'], help: 'next / previous search match' },
  { actions: ['cycleFilter'], help: 'filter: all → not allowed → blocks → diverged (→ mcp)' },
  { actions: ['nextDivergence'], help: 'next divergence or changed decision' },
  { actions: ['toggleFollow'], help: 'live: follow the newest step, or pause' },
  { actions: ['copy', 'writeFile'], help: "copy the step's text (OSC 52) / write it to a file" },
  { actions: ['back'], help: 'back: close the help or search, collapse, leave the detail' },
  { actions: ['help'], help: 'this help' },
  { actions: ['quit', 'interrupt'], help: 'quit (a live run is stopped first, as CANCELLED)' },
];

/** The keys column of a help row. */
export function helpKeys(row: HelpRow): string {
  if (row.keys !== undefined) return row.keys;
  return row.actions.map((action) => KEY_BINDINGS.find((b) => b.action === action)?.label ?? action).join(' / ');
}

/** The footer's hints (`q quit`, `? help`, …), most important first. */
export function footerHints(): string[] {
  return KEY_BINDINGS.flatMap((b) => (b.footer === undefined ? [] : [b.footer]))
    .sort((a, b) => a.rank - b.rank)
    .map((f) => `${f.keys} ${f.hint}`);
}
