/**
 * The UI's state: what the reducer (tui-state.ts) holds, and the modules it is made of read.
 */
import type { Press } from './key-presses.js';
import type { Filter } from './filters.js';
import type { TerminalSize } from './layout.js';
import type { RunModel } from './run-model.js';

export interface SearchState {
  /** The user is typing a query after `/`. */
  editing: boolean;
  draft: string;
  /** The query in force for `n`/`N`. */
  query: string;
}

export interface ViewState {
  size: TerminalSize;
  /** Index into `model.rows` of the selected step; -1 before the first step arrives. */
  selected: number;
  /** Live runs: keep the newest step selected as rows arrive. */
  follow: boolean;
  focus: 'timeline' | 'detail';
  expanded: boolean;
  /** First detail line shown. */
  detailScroll: number;
  /** Position (in the filtered list) of the first timeline row drawn. */
  timelineTop: number;
  filter: Filter;
  search: SearchState;
  help: boolean;
  /** A one-line message for the footer, cleared by the next key. */
  notice: string | null;
  /** The user asked to quit; a live run is being stopped first. */
  quitting: boolean;
  /** First line of the help shown. */
  helpScroll: number;
  /**
   * Presses that came before the run's first step (keys typed while the UI starts): there is
   * nothing yet for them to act on, so they wait for it, in order.
   */
  held: readonly Press[];
  /** What the UI asks of the world outside its state, oldest first; see UiRequest. */
  outbox: Outbox;
}

/**
 * Something only the UI's host can do: stop the live run, put a step's text on the clipboard or in
 * a file. The reducer stays pure: it queues the request, the App carries it out once and answers
 * with `handled` (which may bring a notice).
 */
export type UiRequest = { id: number; kind: 'cancel' } | { id: number; kind: 'copy' | 'write'; row: number };

export interface Outbox {
  /** The last id given out. */
  seq: number;
  pending: readonly UiRequest[];
}

export interface TuiState {
  model: RunModel;
  view: ViewState;
}
