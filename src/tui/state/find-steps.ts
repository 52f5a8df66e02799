/**
 * Finding steps: the next divergence (`d`) and search (`/`, `n`, `N`), each opening the step it
 * finds on the line that shows why.
 */
import { divergenceLine, type LineFinder } from './detail-scroll.js';
import { matchingLine, rowMatches, searchPattern, visibleRows, type Filter } from './filters.js';
import { select, selectedDetail, showLine } from './selection.js';
import type { StepRow } from './step-row.js';
import type { TuiState, ViewState } from './tui-types.js';

export function nextDivergence(state: TuiState): TuiState {
  const rows = visibleRows(state.model.rows, state.view.filter).filter((i) => {
    const row = state.model.rows[i] as StepRow;
    return row.divergence !== 'none' || row.changedDecisions > 0;
  });
  if (rows.length === 0) {
    const notice = state.model.divergences === 0 ? 'no divergences' : 'no divergence in the steps this filter shows';
    return { ...state, view: { ...state.view, notice } };
  }
  const index = rows.find((i) => i > state.view.selected) ?? (rows[0] as number);
  const wrapped = index <= state.view.selected;
  return select({ ...state, view: { ...state.view, follow: false, notice: wrapped ? 'back to the first divergence' : null } }, index, divergenceLine);
}

export function submitSearch(state: TuiState): TuiState {
  const query = state.view.search.draft;
  const view: ViewState = { ...state.view, search: { editing: false, draft: '', query } };
  if (searchPattern(query) === null) return { ...state, view: { ...view, notice: null } };
  return findMatch({ ...state, view }, 1, true);
}

/** Select the next (or previous) step whose text matches the query, wrapping around. */
export function findMatch(state: TuiState, direction: 1 | -1, inclusive: boolean): TuiState {
  const pattern = searchPattern(state.view.search.query);
  if (pattern === null) return { ...state, view: { ...state.view, notice: 'no search yet: press / to search' } };
  const matches = matchingRows(state.model.rows, state.view.filter, state.view.search.query, pattern);
  const quoted = `“${state.view.search.query}”`;
  if (matches.length === 0) return { ...state, view: { ...state.view, notice: `no match for ${quoted}` } };
  const current = state.view.selected;
  const forward = matches.find((i) => (inclusive ? i >= current : i > current)) ?? (matches[0] as number);
  const backward = [...matches].reverse().find((i) => i < current) ?? (matches[matches.length - 1] as number);
  const index = direction === 1 ? forward : backward;
  const notice = `${quoted}: match ${matches.indexOf(index) + 1} of ${matches.length}`;
  return showMatch({ ...state, view: { ...state.view, follow: false, notice } }, index, pattern);
}

/** Select a matching step with its detail on the first line that shows the match (expanded when collapsed text hides it). */
function showMatch(state: TuiState, index: number, pattern: RegExp): TuiState {
  const find: LineFinder = (lines) => matchingLine(lines, pattern);
  const shown = select(state, index, find);
  if (shown.view.expanded || find(selectedDetail(shown)) >= 0) return shown;
  const expanded: TuiState = { ...shown, view: { ...shown.view, expanded: true } };
  return find(selectedDetail(expanded)) >= 0 ? showLine(expanded, find) : shown;
}

/** The rows matching a search: scanned once per query, filter and set of rows, then reused by n and N. */
let lastSearch: { rows: readonly StepRow[]; filter: Filter; query: string; matches: number[] } | null = null;

function matchingRows(rows: readonly StepRow[], filter: Filter, query: string, pattern: RegExp): number[] {
  if (lastSearch !== null && lastSearch.rows === rows && lastSearch.filter === filter && lastSearch.query === query) return lastSearch.matches;
  const matches = visibleRows(rows, filter).filter((i) => rowMatches(rows[i] as StepRow, pattern));
  lastSearch = { rows, filter, query, matches };
  return matches;
}
