/**
 * Tape files made from a golden tape for the cases a real recording gives rarely or never on cue:
 * an unfinished recording (cut after some event, its header as the export of a run whose recorder
 * died writes it: status `incomplete`, no totals, final state or event count) and events taken out.
 * Events are renumbered so that what is left is a well-formed tape; nothing else is changed.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { RunEvent } from '../../src/core/events.js';

export interface TapeEdit {
  /** Keep the events up to and including the first one this matches, and mark the tape unfinished. */
  cutAfter?: (event: RunEvent) => boolean;
  /** Take out the events this matches (after the cut). */
  drop?: (event: RunEvent) => boolean;
  /** Mark the tape unfinished even without a cut. */
  incomplete?: boolean;
}

export async function editedTape(from: string, to: string, edit: TapeEdit): Promise<RunEvent[]> {
  const [headerLine = '', ...lines] = (await readFile(from, 'utf8')).trim().split('\n');
  const header = JSON.parse(headerLine) as { run: Record<string, unknown> };
  let events = lines.map((line) => JSON.parse(line) as RunEvent);
  if (edit.cutAfter !== undefined) {
    const at = events.findIndex(edit.cutAfter);
    if (at < 0) throw new Error('editedTape: nothing to cut after');
    events = events.slice(0, at + 1);
  }
  if (edit.drop !== undefined) {
    const kept = events.filter((event) => !edit.drop!(event));
    if (kept.length === events.length) throw new Error('editedTape: nothing to drop');
    events = kept;
  }
  events.forEach((event, seq) => (event.seq = seq));
  const run = { ...header.run };
  if (edit.cutAfter !== undefined || edit.incomplete === true) {
    run.status = 'incomplete';
    delete run.totals;
    delete run.finalState;
    delete run.eventCount;
  } else {
    run.eventCount = events.length;
  }
  await writeFile(to, [JSON.stringify({ ...header, run }), ...events.map((event) => JSON.stringify(event))].join('\n') + '\n');
  return events;
}
