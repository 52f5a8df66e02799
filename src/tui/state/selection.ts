/**
 * Which step is selected and what of it is on screen: the timeline scrolled to the selection, the
 * detail opened on the line that matters and kept in range. Every move of the UI ends here.
 */
import { detailLines, type DetailLine } from './detail-lines.js';
import { openingLine, scrollToShow, type LineFinder } from './detail-scroll.js';
import { rowPasses, visibleRows, type Filter } from './filters.js';
import { layoutFor } from './layout.js';
import type { RunModel } from './run-model.js';
import type { StepRow } from './step-row.js';
import type { TuiState } from './tui-types.js';

/**
 * Select row `index` and scroll the timeline to show it. A newly selected step's detail opens on
 * its first decision other than allow (detail-scroll.ts); with `find`, on the line that finds.
 */
export function select(state: TuiState, index: number, find?: LineFinder): TuiState {
  const changed = index !== state.view.selected;
  const selected = scrollIntoView({ ...state, view: { ...state.view, selected: index } });
  return changed || find !== undefined ? showLine(selected, find ?? openingLine) : selected;
}

/** The detail scrolled to show the line `find` finds in it (none: its top). */
export function showLine(state: TuiState, find: LineFinder): TuiState {
  const lines = selectedDetail(state);
  const detailScroll = scrollToShow(lines, find(lines), layoutFor(state.view.size).bodyRows);
  return clampDetail({ ...state, view: { ...state.view, detailScroll } });
}

/**
 * A detail not scrolled since its step opened opens again when what it shows changes under it:
 * a live step's decisions arrive after its request, a new size or Enter wraps it anew. One the
 * user has scrolled stays where it is.
 */
export function keepOpening(before: TuiState, after: TuiState): TuiState {
  const row = after.model.rows[after.view.selected];
  if (row === undefined) return after;
  const { view } = before;
  if (before.model.rows[view.selected] === row && view.size === after.view.size && view.expanded === after.view.expanded) return after;
  if (view.selected === after.view.selected && view.detailScroll !== showLine(before, openingLine).view.detailScroll) return after;
  return showLine(after, openingLine);
}

/** Keep the selected row inside the drawn window of the timeline, and the detail scroll in range. */
export function scrollIntoView(state: TuiState): TuiState {
  const { bodyRows } = layoutFor(state.view.size);
  const rows = visibleRows(state.model.rows, state.view.filter);
  const at = positionOf(rows, state.view.selected);
  let top = state.view.timelineTop;
  if (at >= 0) {
    if (at < top) top = at;
    if (at >= top + bodyRows) top = at - bodyRows + 1;
  }
  top = Math.max(0, Math.min(top, rows.length - bodyRows));
  return clampDetail(top === state.view.timelineTop ? state : { ...state, view: { ...state.view, timelineTop: top } });
}

export function clampDetail(state: TuiState): TuiState {
  const lines = selectedDetail(state);
  const { bodyRows } = layoutFor(state.view.size);
  const max = Math.max(0, lines.length - bodyRows);
  const scroll = Math.min(Math.max(0, state.view.detailScroll), max);
  return scroll === state.view.detailScroll ? state : { ...state, view: { ...state.view, detailScroll: scroll } };
}

/**
 * The detail pane's lines for the selected step, as drawn. A key press asks for them several times
 * (to clamp the scroll, to find a divergence, to draw): rows are immutable, so the lines of a row at
 * a given width and expansion are built once and kept while the row lives.
 */
export function selectedDetail(state: TuiState): DetailLine[] {
  const row = state.model.rows[state.view.selected];
  if (row === undefined) return [];
  const { detailWidth } = layoutFor(state.view.size);
  const patched = isPatched(state.model, row);
  const key = `${detailWidth}:${state.view.expanded ? 1 : 0}:${patched ? 1 : 0}`;
  const cached = detailCache.get(row);
  if (cached?.key === key) return cached.lines;
  const lines = detailLines(row, { width: detailWidth, expanded: state.view.expanded, patched });
  detailCache.set(row, { key, lines });
  return lines;
}

const detailCache = new WeakMap<StepRow, { key: string; lines: DetailLine[] }>();

export function isPatched(model: RunModel, row: StepRow): boolean {
  return row.patched || (model.session.patched?.includes(row.step) ?? false);
}

export function positionOf(rows: readonly number[], index: number): number {
  // Binary search: `rows` is sorted.
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const value = rows[mid] as number;
    if (value === index) return mid;
    if (value < index) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export function lastVisible(rows: readonly StepRow[], filter: Filter): number | null {
  for (let i = rows.length - 1; i >= 0; i--) if (rowPasses(rows[i] as StepRow, filter)) return i;
  return null;
}
