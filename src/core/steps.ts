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

/** Counts steps as events arrive, in order: a step number with nothing but closing events is not one. */
export class StepCounter {
  private steps = 0;
  private step: number | null = null;
  private closingOnly = true;

  add(event: RunEvent): void {
    if (event.step !== this.step) {
      if (this.step !== null && !this.closingOnly) this.steps++;
      // The first step counts whatever it holds: there is none before it to close.
      this.closingOnly = this.step !== null;
      this.step = event.step;
    }
    if (!closesStep(event)) this.closingOnly = false;
  }

  get count(): number {
    return this.step !== null && !this.closingOnly ? this.steps + 1 : this.steps;
  }
}

/** How many steps `events` (in order) hold. */
export function countSteps(events: Iterable<RunEvent>): number {
  const counter = new StepCounter();
  for (const event of events) counter.add(event);
  return counter.count;
}
