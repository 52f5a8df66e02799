import { useEffect, type Dispatch } from 'react';
import type { RunFeed } from '../run-feed.js';
import type { TuiAction } from '../state/tui-state.js';

/** How long events gather before the UI takes them in one batch (a frame at ~30 fps). */
const BATCH_MS = 33;

/** Moves the feed's events into the reducer in batches, and the run's ending once it comes. */
export function useRunFeed(feed: RunFeed, dispatch: Dispatch<TuiAction>): void {
  useEffect(() => {
    let timer: NodeJS.Timeout | null = null;
    let ended = false;
    const flush = (): void => {
      timer = null;
      const { events, ending } = feed.drain();
      if (events.length > 0) dispatch({ type: 'events', events });
      if (ending !== null && !ended) {
        ended = true;
        dispatch({ type: 'end', ending });
      }
    };
    const unsubscribe = feed.subscribe(() => {
      timer ??= setTimeout(flush, BATCH_MS);
    });
    flush();
    return () => {
      unsubscribe();
      if (timer !== null) clearTimeout(timer);
    };
  }, [feed, dispatch]);
}
