/**
 * The replay's guardrail decisions in the step being compared, for pairing each with its recorded
 * counterpart once the replay is out of sync (events no longer line up by position): the recorded
 * decision of the same match key and the same rank among the step's decisions of that key. Ranks
 * and the recorded index are made only when first asked for: a replay that follows its tape never
 * needs them.
 */
import type { GuardrailEvent, RunEvent } from '../core/events.js';
import { decisionMatchKey, indexDecisions } from './decision-change.js';

export class StepDecisions {
  /** The replay's decisions in the step, in order (labelled). */
  private readonly noted: GuardrailEvent[] = [];
  /** How many of the step's decisions have each match key; counted when first needed, then kept up. */
  private counts: Map<string, number> | null = null;
  /** The step's recorded decisions by match key; built once, when first needed. */
  private recorded: Map<string, GuardrailEvent[]> | null = null;

  /** A new step: nothing noted. */
  reset(): void {
    this.noted.length = 0;
    this.counts = null;
    this.recorded = null;
  }

  /** A decision of the replay, in order: every one is noted, in sync or not. */
  note(event: GuardrailEvent): void {
    this.noted.push(event);
    if (this.counts !== null) this.count(event);
  }

  /** The recorded counterpart of `event` (the last decision noted) among the step's `recorded` events. */
  counterpart(event: GuardrailEvent, recorded: readonly RunEvent[]): GuardrailEvent | undefined {
    this.recorded ??= indexDecisions(recorded);
    if (this.counts === null) {
      this.counts = new Map();
      for (const decision of this.noted) this.count(decision);
    }
    const key = decisionMatchKey(event);
    // Its rank among the step's decisions of its key (it is the last one noted).
    const nth = (this.counts.get(key) ?? 1) - 1;
    return this.recorded.get(key)?.[nth];
  }

  private count(event: GuardrailEvent): void {
    const key = decisionMatchKey(event);
    this.counts?.set(key, (this.counts.get(key) ?? 0) + 1);
  }
}
