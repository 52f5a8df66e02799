import { useEffect, type Dispatch } from 'react';
import type { RunFeed } from '../run-feed.js';
import type { TuiAction } from '../state/tui-state.js';

/** How long events gather before the UI takes them in one batch (a frame at ~30 fps). */
const BATCH_MS = 33;
/**
 * A run that comes in faster than anyone reads it (a tape read or replayed: thousands of events a
 * batch) is drawn a few times a second: each frame is 10–25 ms of Ink's work, taken from the run.
 * Keys are drawn at once all the same (they do not wait for a batch).
 */
const BULK_BATCH_MS = 250;
const BULK_EVENTS = 200;

/** Moves the feed's events into the reducer in batches, and the run's ending once it comes. */
export function useRunFeed(feed: RunFeed, dispatch: Dispatch<TuiAction>): void {
  useEffect(() => {
    let timer: NodeJS.Timeout | null = null;
    let ended = false;
    let lastBatch = 0;
    const flush = (): void => {
      timer = null;
      const { events, ending } = feed.drain();
      lastBatch = events.length;
      if (events.length > 0) dispatch({ type: 'events', events });
      if (ending !== null && !ended) {
        ended = true;
        dispatch({ type: 'end', ending });
      }
    };
    const unsubscribe = feed.subscribe((ending) => {
      // The ending is drawn as soon as a frame can show it, whatever the batch waits for.
      if (ending && timer !== null) clearTimeout(timer);
      else if (timer !== null) return;
      timer = setTimeout(flush, lastBatch >= BULK_EVENTS && !ending ? BULK_BATCH_MS : BATCH_MS);
    });
    flush();
    return () => {
      unsubscribe();
      if (timer !== null) clearTimeout(timer);
    };
  }, [feed, dispatch]);
}
