/** User input on replay: the next message the user typed in the recorded session, from the tape. */
import type { UserInput } from '../agent/loop.js';
import type { RunEvent } from '../core/events.js';
import type { LoopProgress } from './loop-progress.js';

export function tapeInput(recorded: (step: number) => readonly RunEvent[], state: LoopProgress): UserInput {
  const given = new Set<number>();
  return {
    next(): Promise<string | null> {
      for (const event of recorded(state.step)) {
        if (event.type === 'user_message' && event.internal === undefined && !given.has(event.seq)) {
          given.add(event.seq);
          return Promise.resolve(event.content);
        }
      }
      return Promise.resolve(null);
    },
  };
}
