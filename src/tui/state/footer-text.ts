/**
 * The footer's line when no notice or search takes it: a status (follow/paused, the detail's
 * position) and the key hints, fitted to the width by leaving out whole hints, never by cutting one.
 * The first `ESSENTIAL` hints (how to quit, the help, and the keys the README tells a new user to
 * try: search, filter, divergence) come before the status; the rest fill what is left.
 */
import { footerHints } from './keymap.js';
import { cells, clipLine } from './text.js';

const ESSENTIAL = 5;
const JOIN = ' · ';
const STATUS_JOIN = ' │ ';

export function footerText(width: number, status: string, hints: readonly string[] = footerHints()): string {
  const fitting = (taken: readonly string[], room: number): string[] => {
    const out: string[] = [];
    let used = 0;
    for (const hint of taken) {
      const add = (out.length === 0 ? 0 : JOIN.length) + cells(hint);
      if (used + add > room) break;
      out.push(hint);
      used += add;
    }
    return out;
  };
  const essential = fitting(hints.slice(0, ESSENTIAL), width);
  const essentialCells = cells(essential.join(JOIN));
  const withStatus = status !== '' && essential.length === Math.min(ESSENTIAL, hints.length) && cells(status) + STATUS_JOIN.length + essentialCells <= width;
  const prefix = withStatus ? `${status}${STATUS_JOIN}` : '';
  const shown = fitting(hints, width - cells(prefix));
  // Nothing fits whole (a terminal narrower than the first hint): cut it rather than show nothing.
  return shown.length === 0 ? clipLine(hints[0] ?? '', width) : `${prefix}${shown.join(JOIN)}`;
}
