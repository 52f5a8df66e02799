/**
 * Where everything goes for a terminal size. The UI draws one line less than the terminal has, so
 * the last row is never written: a full-height frame would make the terminal scroll (and Ink clear
 * the screen on every frame), which is what flickers.
 */

export interface TerminalSize {
  columns: number;
  rows: number;
}

export interface Layout {
  columns: number;
  /** Lines drawn in all: the terminal's rows less one. */
  height: number;
  headerRows: number;
  footerRows: number;
  /** Lines for the timeline and the detail side by side. */
  bodyRows: number;
  timelineWidth: number;
  detailWidth: number;
}

export const HEADER_ROWS = 4;
export const FOOTER_ROWS = 1;
/** Below this the UI still draws, clipped: 80×24 is the smallest size it is designed for. */
export const MIN_SIZE: TerminalSize = { columns: 40, rows: 10 };

export function layoutFor(size: TerminalSize): Layout {
  const columns = Math.max(size.columns, MIN_SIZE.columns);
  const height = Math.max(size.rows, MIN_SIZE.rows) - 1;
  const bodyRows = Math.max(1, height - HEADER_ROWS - FOOTER_ROWS - 1);
  // The timeline's rows name each call with its arguments: at 80 columns a row has room for
  // `read_file config/server.json`, and wider terminals give both panes more.
  const timelineWidth = Math.min(72, Math.max(24, Math.floor(columns * 0.45)));
  // One column between the panes for the separator.
  return { columns, height, headerRows: HEADER_ROWS, footerRows: FOOTER_ROWS, bodyRows, timelineWidth, detailWidth: columns - timelineWidth - 1 };
}
