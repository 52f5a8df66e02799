/** User input on replay: the next message the user typed in the recorded session, from the tape. */
import type { UserInput } from '../agent/loop.js';
import type { RunEvent } from '../core/events.js';
import type { LoopProgress } from './loop-progress.js';

export function tapeInput(recorded: (step: number) => readonly RunEvent[] | Promise<readonly RunEvent[]>, state: LoopProgress): UserInput {
  const given = new Set<number>();
  return {
    async next(): Promise<string | null> {
      for (const event of await recorded(state.step)) {
        if (event.type === 'user_message' && event.internal === undefined && !given.has(event.seq)) {
          given.add(event.seq);
          return event.content;
        }
      }
      return null;
    },
  };
}
