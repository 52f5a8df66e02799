/**
 * The writer of a run this process records (TapeStore.writer): each batch goes into the run's
 * journal — synced when it must be durable — and is then handed to `behind`, the writer that puts
 * it into LevelDB without sync (journal.ts says why). Each event must be one a tape can hold
 * (line-bounds.ts): the events before one that is not are written, then the recording fails.
 */
import type { RunEvent } from '../core/events.js';
import { EventWriter } from './event-writer.js';
import type { Journal } from './journal.js';
import { eventLines, type EventLines } from './line-bounds.js';

/** Events a journaled writer may have queued for LevelDB before its appends wait for them (memory bound). */
const MAX_BEHIND = 4096;
/**
 * How long the LevelDB writes behind a journal gather events: a batch per model call or so rather
 * than one per event-loop turn, which saves about half of the main-thread cost of recording an iteration.
 */
const BEHIND_GATHER_MS = 20;

/**
 * The run's writer, and `behind`, which writes to LevelDB with `put` (its `close` waits for what it
 * has): `put` is given each event's JSON as the journal wrote it, so no event is serialised twice.
 */
export function recordingWriter(
  journal: Journal,
  put: (events: RunEvent[], lines: string[]) => Promise<void>,
  firstSeq: number,
  refuse: (refused: NonNullable<EventLines['refused']>) => Error,
): { writer: EventWriter; behind: EventWriter } {
  // Nobody waits for these LevelDB writes but `close`, finishRun and back-pressure: the journal
  // already holds what they write. Group-committed, like any writer.
  const json = new WeakMap<RunEvent, string>();
  const behind = new EventWriter((events) => put(events, events.map((event) => json.get(event) as string)), firstSeq, { gatherMs: BEHIND_GATHER_MS });
  const writer = new EventWriter(
    async (events, sync, waited) => {
      // A failed LevelDB write fails the recording (the journal keeps its events for the next open).
      if (behind.error !== undefined) throw behind.error;
      const { lines, refused } = eventLines(events);
      if (lines.length > 0) {
        journal.append(lines, sync);
        // Growing the file costs a synced write of its own: done when nobody waits (journal.ts).
        if (!waited) journal.reserve();
        let last: Promise<void> | undefined;
        for (const [i, line] of lines.entries()) {
          const event = events[i] as RunEvent;
          json.set(event, line);
          last = behind.append(event);
        }
        if (behind.pending >= MAX_BEHIND) await last;
      }
      if (refused !== undefined) throw refuse(refused);
    },
    firstSeq,
    { settle: () => behind.close() },
  );
  return { writer, behind };
}
