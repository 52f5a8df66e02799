/**
 * The whole UI state as a pure reducer over two kinds of input: the run's events (and its end), and
 * what the user does (keys, search text, terminal resizes). Components render it; nothing here
 * touches the terminal, so every behaviour of the UI is testable as plain functions.
 */
import type { RunEvent } from '../../core/events.js';
import { findMatch, nextDivergence, submitSearch } from './find-steps.js';
import { nextFilter, visibleRows, FILTER_LABELS } from './filters.js';
import { helpLines } from './help-lines.js';
import type { Press } from './key-presses.js';
import { actionFor, type KeyAction, type KeyPress } from './keymap.js';
import { layoutFor, type TerminalSize } from './layout.js';
import { addEvents, emptyModel, endRun, type RunEnding, type SessionInfo } from './run-model.js';
import { clampDetail, keepOpening, lastVisible, positionOf, scrollIntoView, select } from './selection.js';
import type { TuiState, UiRequest, ViewState } from './tui-types.js';

export type { Outbox, SearchState, TuiState, UiRequest, ViewState } from './tui-types.js';
export { isPatched, selectedDetail } from './selection.js';

export type TuiAction =
  | { type: 'events'; events: readonly RunEvent[] }
  | { type: 'end'; ending: RunEnding }
  | { type: 'resize'; size: TerminalSize }
  | { type: 'key'; action: KeyAction }
  /** A key with no binding: it closes the help and clears a notice. */
  | { type: 'otherKey' }
  | { type: 'searchType'; text: string }
  | { type: 'searchErase' }
  | { type: 'searchSubmit' }
  | { type: 'searchCancel' }
  /** Something the terminal sent (a key, a wheel notch), read in the state it finds: search text or a key. */
  | { type: 'press'; press: Press }
  /** The run's first step is in: the presses that waited for it are applied. */
  | { type: 'releaseHeld' }
  /** The App carried out request `id`. */
  | { type: 'handled'; id: number; notice?: string };

export function initialState(session: SessionInfo, size: TerminalSize): TuiState {
  return {
    model: emptyModel(session),
    view: {
      size,
      selected: -1,
      // Only a recording is followed by default; a replay or a view opens on its first step.
      follow: session.mode === 'recording',
      focus: 'timeline',
      expanded: false,
      detailScroll: 0,
      timelineTop: 0,
      filter: 'all',
      search: { editing: false, draft: '', query: '' },
      help: false,
      notice: null,
      quitting: false,
      helpScroll: 0,
      held: [],
      outbox: { seq: 0, pending: [] },
    },
  };
}

export function tuiReducer(state: TuiState, action: TuiAction): TuiState {
  switch (action.type) {
    case 'events':
      return withEvents(state, action.events);
    case 'end':
      return { ...state, model: endRun(state.model, action.ending) };
    case 'resize':
      return keepOpening(state, scrollIntoView({ ...state, view: { ...state.view, size: action.size } }));
    case 'key':
      return onKey(state, action.action);
    case 'otherKey':
      return state.view.help || state.view.notice !== null ? { ...state, view: { ...state.view, help: false, notice: null } } : state;
    case 'searchType':
      return { ...state, view: { ...state.view, search: { ...state.view.search, draft: state.view.search.draft + action.text } } };
    case 'searchErase':
      return { ...state, view: { ...state.view, search: { ...state.view.search, draft: [...state.view.search.draft].slice(0, -1).join('') } } };
    case 'searchCancel':
      return { ...state, view: { ...state.view, search: { ...state.view.search, editing: false, draft: '' } } };
    case 'searchSubmit':
      return submitSearch(state);
    case 'press':
      return onPress(state, action.press);
    case 'releaseHeld':
      return releaseHeld(state);
    case 'handled': {
      const pending = state.view.outbox.pending.filter((r) => r.id !== action.id);
      const notice = action.notice ?? state.view.notice;
      return { ...state, view: { ...state.view, notice, outbox: { ...state.view.outbox, pending } } };
    }
  }
}

/** The run is live and has no step yet: presses wait (see ViewState.held). */
const waitingForSteps = (state: TuiState): boolean => state.model.rows.length === 0 && state.model.ending === null;

function onPress(state: TuiState, press: Press): TuiState {
  const { view } = state;
  if (waitingForSteps(state) || view.held.length > 0) {
    // Quitting cannot wait for a step that may never come; the presses before it are dropped.
    const action = press.kind === 'key' ? actionFor(press.input, press.key) : null;
    if (action === 'quit' || action === 'interrupt') return onKey({ ...state, view: { ...view, held: [] } }, action);
    // A wheel notch is about the screen as it was: stale by the time a step comes.
    return press.kind === 'key' ? { ...state, view: { ...view, held: [...view.held, press] } } : state;
  }
  switch (press.kind) {
    case 'none':
      return state;
    case 'wheel':
      return view.search.editing ? state : onWheel(state, press.direction, press.column);
    case 'key': {
      if (view.search.editing) return onSearchKey(state, press.input, press.key);
      const action = actionFor(press.input, press.key);
      return action === null ? tuiReducer(state, { type: 'otherKey' }) : onKey(state, action);
    }
  }
}

function releaseHeld(state: TuiState): TuiState {
  if (waitingForSteps(state) || state.view.held.length === 0) return state;
  const { held } = state.view;
  return held.reduce(onPress, { ...state, view: { ...state.view, held: [] } });
}

/** While a search is typed, keys are its text: Enter searches, Esc cancels, Backspace erases. */
function onSearchKey(state: TuiState, input: string, key: KeyPress): TuiState {
  if (key.ctrl === true && input === 'c') return onKey(state, 'interrupt');
  if (key.return === true) return submitSearch(state);
  if (key.escape === true) return tuiReducer(state, { type: 'searchCancel' });
  if (key.backspace === true || key.delete === true) return tuiReducer(state, { type: 'searchErase' });
  if (input !== '' && key.ctrl !== true && key.meta !== true && key.tab !== true) return tuiReducer(state, { type: 'searchType', text: input });
  return state;
}

/** Lines a wheel notch scrolls the detail (the timeline moves one step). */
const WHEEL_LINES = 3;

/** The wheel scrolls the pane under the pointer (the help, when it is open). */
function onWheel(state: TuiState, direction: 1 | -1, column: number): TuiState {
  if (state.view.help) return scrollHelp(state, direction * WHEEL_LINES);
  const { timelineWidth } = layoutFor(state.view.size);
  if (column <= timelineWidth) return moveSelection(state, direction === 1 ? 'down' : 'up');
  return clampDetail({ ...state, view: { ...state.view, detailScroll: state.view.detailScroll + direction * WHEEL_LINES } });
}

function request(state: TuiState, make: (id: number) => UiRequest): TuiState {
  const id = state.view.outbox.seq + 1;
  return { ...state, view: { ...state.view, outbox: { seq: id, pending: [...state.view.outbox.pending, make(id)] } } };
}

/** Lines of the help screen: the body and the pane-title row. */
const helpHeight = (state: TuiState): number => layoutFor(state.view.size).bodyRows + 1;

function scrollHelp(state: TuiState, by: number): TuiState {
  const max = Math.max(0, helpLines(layoutFor(state.view.size).columns).length - helpHeight(state));
  const helpScroll = Math.min(max, Math.max(0, state.view.helpScroll + by));
  return { ...state, view: { ...state.view, helpScroll } };
}

/**
 * How many lines each key that scrolls moves a window `height` lines high; the ends are ±Infinity,
 * left to the caller to clamp to what it scrolls.
 */
function scrollDistances(height: number): Partial<Record<KeyAction, number>> {
  const page = Math.max(1, height - 1);
  const half = Math.max(1, Math.floor(height / 2));
  return { down: 1, up: -1, pageDown: page, pageUp: -page, halfPageDown: half, halfPageUp: -half, first: -Infinity, last: Infinity };
}

/** In the help, the moving keys scroll it; Ctrl-C still quits; any other key closes it. */
function onHelpKey(state: TuiState, action: KeyAction): TuiState {
  const move = scrollDistances(helpHeight(state))[action];
  if (move !== undefined) return scrollHelp(state, move);
  const closed = { ...state, view: { ...state.view, help: false } };
  return action === 'interrupt' ? onKey(closed, action) : closed;
}

/**
 * Esc goes back one level: the help closes (see onHelpKey), then the expanded text collapses, then
 * the focus returns from the detail to the timeline. With nowhere left to go it says how to quit.
 * (A search being typed is cancelled by Esc before any of these: see onSearchKey.)
 */
function back(state: TuiState): TuiState {
  const { view } = state;
  if (view.expanded) return clampDetail({ ...state, view: { ...view, expanded: false } });
  if (view.focus === 'detail') return { ...state, view: { ...view, focus: 'timeline' } };
  return { ...state, view: { ...view, notice: 'Esc goes back; q quits' } };
}

function withEvents(state: TuiState, events: readonly RunEvent[]): TuiState {
  const model = addEvents(state.model, events);
  let { selected } = state.view;
  const last = model.rows.length - 1;
  if (state.view.follow) selected = lastVisible(model.rows, state.view.filter) ?? last;
  else if (selected < 0 && last >= 0) selected = 0;
  return keepOpening(state, scrollIntoView({ model, view: { ...state.view, selected } }));
}

function onKey(state: TuiState, action: KeyAction): TuiState {
  const view: ViewState = { ...state.view, notice: null };
  if (view.help) return onHelpKey({ ...state, view }, action);
  const next = { ...state, view };
  switch (action) {
    case 'quit':
    case 'interrupt': {
      // Every quit while the run is live asks to stop it: the first stops it cleanly, a second one
      // lets the command exit at once (as a second Ctrl-C does without the UI).
      const live = state.model.ending === null;
      const quitting = { ...next, view: { ...view, quitting: true, notice: live ? 'stopping the run…' : null } };
      return live ? request(quitting, (id) => ({ id, kind: 'cancel' })) : quitting;
    }
    case 'help':
      return { ...next, view: { ...view, help: true, helpScroll: 0 } };
    case 'back':
      return back(next);
    case 'switchPane':
      return { ...next, view: { ...view, focus: view.focus === 'timeline' ? 'detail' : 'timeline' } };
    case 'focusTimeline':
    case 'focusDetail':
      return { ...next, view: { ...view, focus: action === 'focusTimeline' ? 'timeline' : 'detail' } };
    case 'copy':
    case 'writeFile':
      if (view.selected < 0) return { ...next, view: { ...view, notice: 'no step yet' } };
      return request(next, (id) => ({ id, kind: action === 'copy' ? 'copy' : 'write', row: view.selected }));
    case 'toggleExpand':
      return keepOpening(next, clampDetail({ ...next, view: { ...view, expanded: !view.expanded } }));
    case 'toggleFollow': {
      const follow = !view.follow;
      const selected = follow ? (lastVisible(state.model.rows, view.filter) ?? view.selected) : view.selected;
      return select({ ...next, view: { ...view, follow, notice: follow ? 'following the newest step' : 'paused: the selection stays' } }, selected);
    }
    case 'cycleFilter': {
      const filter = nextFilter(view.filter, state.model.rows);
      const rows = visibleRows(state.model.rows, filter);
      const selected = rows.find((i) => i >= view.selected) ?? rows[rows.length - 1] ?? view.selected;
      const notice = `filter: ${FILTER_LABELS[filter]}${rows.length === 0 ? ' (no step matches)' : ''}`;
      return select({ ...next, view: { ...view, filter, notice, timelineTop: 0 } }, selected);
    }
    case 'nextDivergence':
      return nextDivergence(next);
    case 'search':
      return { ...next, view: { ...view, search: { ...view.search, editing: true, draft: '' } } };
    case 'nextMatch':
    case 'prevMatch':
      return findMatch(next, action === 'nextMatch' ? 1 : -1, false);
    default:
      return view.focus === 'detail' ? scrollDetail(next, action) : moveSelection(next, action);
  }
}

/** Timeline navigation among the rows the filter keeps; moving by hand stops following. */
function moveSelection(state: TuiState, action: KeyAction): TuiState {
  const rows = visibleRows(state.model.rows, state.view.filter);
  if (rows.length === 0) return state;
  const page = Math.max(1, layoutFor(state.view.size).bodyRows - 1);
  const half = Math.max(1, Math.floor(layoutFor(state.view.size).bodyRows / 2));
  const at = Math.max(0, positionOf(rows, state.view.selected));
  const target = (() => {
    switch (action) {
      case 'down':
        return at + 1;
      case 'up':
        return at - 1;
      case 'first':
        return 0;
      case 'last':
        return rows.length - 1;
      case 'pageDown':
        return at + page;
      case 'pageUp':
        return at - page;
      case 'halfPageDown':
        return at + half;
      case 'halfPageUp':
        return at - half;
      default:
        return at;
    }
  })();
  const position = Math.min(rows.length - 1, Math.max(0, target));
  const follow = action === 'last' ? state.view.follow : false;
  return select({ ...state, view: { ...state.view, follow } }, rows[position] ?? state.view.selected);
}

function scrollDetail(state: TuiState, action: KeyAction): TuiState {
  const scroll = state.view.detailScroll;
  const move = scrollDistances(layoutFor(state.view.size).bodyRows)[action];
  if (move === undefined) return state;
  // The ends are clamped to the detail's real length by clampDetail.
  const detailScroll = move === -Infinity ? 0 : move === Infinity ? Number.MAX_SAFE_INTEGER : scroll + move;
  return clampDetail({ ...state, view: { ...state.view, detailScroll } });
}

