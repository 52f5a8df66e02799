/**
 * The hand-over between a command and the UI: the command pushes RunEvents as its run produces
 * them, and its ending when it is done; the UI drains them in batches, at its own pace. Plain
 * TypeScript (no React), so the command side needs nothing of the UI to feed it.
 *
 * The UI takes events and draws only when the event loop turns, and a producer that never waits —
 * a tape read with synchronous reads, a replay answered from its tape — would keep it from turning
 * until the whole run is in: a blank or frozen screen for seconds. So the feed also tells the
 * producer when it is the UI's turn (`turn`).
 */
import type { RunEvent } from '../core/events.js';
import type { RunEnding } from './state/run-model.js';

/**
 * How long a producer may go on before the event loop turns for the UI: a key pressed meanwhile is
 * answered within a turn. A turn without a frame due costs next to nothing (the UI draws a run that
 * comes in this fast a few times a second: hooks/use-run-feed.ts).
 */
export const TURN_MS = 50;

export class RunFeed {
  private buffer: RunEvent[] = [];
  private ending: RunEnding | null = null;
  private listener: ((ending: boolean) => void) | null = null;
  /** When the event loop last turned for the UI, as far as the feed can tell (`now()` time). */
  private turnedAt: number;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.turnedAt = now();
  }

  push(event: RunEvent): void {
    this.buffer.push(event);
    this.listener?.(false);
  }

  /**
   * Undefined while the producer may go on; once it has gone TURN_MS without the UI taking its
   * events, a promise for the producer to await: it resolves after a turn of the event loop
   * (setImmediate), in which the UI's timers, its frame and the user's keys get their go.
   */
  turn(): Promise<void> | undefined {
    if (this.now() - this.turnedAt < TURN_MS) return undefined;
    return new Promise((resolve) =>
      setImmediate(() => {
        this.turnedAt = this.now();
        resolve();
      }),
    );
  }

  end(ending: RunEnding): void {
    this.ending = ending;
    this.listener?.(true);
  }

  /** Events pushed since the last drain, and the ending once there is one. */
  drain(): { events: RunEvent[]; ending: RunEnding | null } {
    this.turnedAt = this.now();
    const events = this.buffer;
    this.buffer = [];
    return { events, ending: this.ending };
  }

  /** One listener (the UI), told when there is something to drain (`ending`: it is the run's ending). */
  subscribe(listener: (ending: boolean) => void): () => void {
    this.listener = listener;
    return () => {
      if (this.listener === listener) this.listener = null;
    };
  }
}
