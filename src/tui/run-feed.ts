/**
 * The hand-over between a command and the UI: the command pushes RunEvents as its run produces
 * them, and its ending when it is done; the UI drains them in batches, at its own pace. Plain
 * TypeScript (no React), so the command side needs nothing of the UI to feed it.
 */
import type { RunEvent } from '../core/events.js';
import type { RunEnding } from './state/run-model.js';

export class RunFeed {
  private buffer: RunEvent[] = [];
  private ending: RunEnding | null = null;
  private listener: (() => void) | null = null;

  push(event: RunEvent): void {
    this.buffer.push(event);
    this.listener?.();
  }

  end(ending: RunEnding): void {
    this.ending = ending;
    this.listener?.();
  }

  /** Events pushed since the last drain, and the ending once there is one. */
  drain(): { events: RunEvent[]; ending: RunEnding | null } {
    const events = this.buffer;
    this.buffer = [];
    return { events, ending: this.ending };
  }

  /** One listener (the UI), told when there is something to drain. */
  subscribe(listener: () => void): () => void {
    this.listener = listener;
    return () => {
      if (this.listener === listener) this.listener = null;
    };
  }
}
