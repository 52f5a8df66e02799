/**
 * What a step is, wherever steps are counted or shown (a run's totals in ls and show, the rows of
 * the terminal UI, diff): one iteration of the loop — the model is asked, then its tool calls run;
 * events carry its 0-based number. The loop ends, or waits for the next message, at the step after
 * its last one: what it writes there (a state change, the run's end, a checkpoint) closes the step
 * before it and is not a step of its own.
 */
import type { RunEvent } from './events.js';

/** An event that, alone in a step with others like it, belongs to the step before. */
export function closesStep(event: RunEvent): boolean {
  return event.type === 'state' || event.type === 'run_end' || event.type === 'checkpoint';
}

/** How many steps `events` (in order) hold: a step number with nothing but closing events is not one. */
export function countSteps(events: Iterable<RunEvent>): number {
  let steps = 0;
  let step: number | null = null;
  let closingOnly = true;
  for (const event of events) {
    if (event.step !== step) {
      if (step !== null && !closingOnly) steps++;
      // The first step counts whatever it holds: there is none before it to close.
      closingOnly = step !== null;
      step = event.step;
    }
    if (!closesStep(event)) closingOnly = false;
  }
  return step !== null && !closingOnly ? steps + 1 : steps;
}
