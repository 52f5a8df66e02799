/**
 * Compares two runs step by step (`agentctl diff`): both event streams are read forward together,
 * one step at a time, so memory holds one step per side however long the runs are. A step is the
 * same when its events are equal in order, ignoring timing (`t`, `durationMs`, stream chunk
 * offsets) and numbering (`seq`). The divergence notes a replay adds about its own tape are not
 * behaviour and are left out. For a differing step, the first differing event and field is given,
 * side A vs side B (via firstDifference); a step only one run has differs too.
 */
import type { RunEvent, RunEventType } from '../core/events.js';
import { TapeFormatError } from '../core/errors.js';
import { firstDifference } from './first-difference.js';
import { summarizeStep, type StepSummary } from './run-diff-summary.js';

/** Where a step first differs. */
export interface EventDifference {
  /** 0-based position of the differing event within the step. */
  index: number;
  /** The event type at that position on each side; null when that side has no event there. */
  typeA: RunEventType | null;
  typeB: RunEventType | null;
  /** The field that differs, e.g. `output` or `response.message.content`; `type` or `(event)` when the events are not comparable. */
  path: string;
  a: unknown;
  b: unknown;
}

export interface StepDiff {
  step: number;
  same: boolean;
  /** What side A did in this step; null when A has no such step. */
  a: StepSummary | null;
  b: StepSummary | null;
  /** Present when the step differs. */
  firstDifference?: EventDifference;
}

export interface RunDiffSummary {
  identical: boolean;
  /** The first step that differs, or null when none does. */
  firstDifferenceStep: number | null;
  /** Distinct steps each run has. */
  stepsA: number;
  stepsB: number;
  differingSteps: number;
  identicalSteps: number;
}

interface StepGroup {
  step: number;
  events: RunEvent[];
}

/**
 * Yields one StepDiff per step either run has, in step order, and returns the totals. Throws
 * TapeFormatError when a run's steps go backwards.
 */
export async function* diffRuns(a: AsyncIterable<RunEvent>, b: AsyncIterable<RunEvent>): AsyncGenerator<StepDiff, RunDiffSummary> {
  const left = stepGroups(a, 'A')[Symbol.asyncIterator]();
  const right = stepGroups(b, 'B')[Symbol.asyncIterator]();
  const totals: RunDiffSummary = { identical: true, firstDifferenceStep: null, stepsA: 0, stepsB: 0, differingSteps: 0, identicalSteps: 0 };
  try {
    let nextA = await left.next();
    let nextB = await right.next();
    while (!nextA.done || !nextB.done) {
      const groupA = nextA.done ? null : nextA.value;
      const groupB = nextB.done ? null : nextB.value;
      const step = Math.min(groupA?.step ?? Infinity, groupB?.step ?? Infinity);
      const eventsA = groupA?.step === step ? groupA.events : null;
      const eventsB = groupB?.step === step ? groupB.events : null;
      const diff = diffStep(step, eventsA, eventsB);
      if (diff.same) totals.identicalSteps++;
      else {
        totals.differingSteps++;
        totals.identical = false;
        totals.firstDifferenceStep ??= step;
      }
      yield diff;
      if (eventsA !== null) {
        totals.stepsA++;
        nextA = await left.next();
      }
      if (eventsB !== null) {
        totals.stepsB++;
        nextB = await right.next();
      }
    }
  } finally {
    // Close both streams (files, store iterators) also when the other side failed or the caller stopped early.
    await Promise.allSettled([left.return?.(undefined), right.return?.(undefined)]);
  }
  return totals;
}

/** Compare one step; a null side has no such step. */
export function diffStep(step: number, a: readonly RunEvent[] | null, b: readonly RunEvent[] | null): StepDiff {
  const diff: StepDiff = { step, same: true, a: a === null ? null : summarizeStep(a), b: b === null ? null : summarizeStep(b) };
  const difference = firstEventDifference(a ?? [], b ?? []);
  if (difference !== null || a === null || b === null) {
    diff.same = false;
    diff.firstDifference = difference ?? { index: 0, typeA: null, typeB: null, path: '(event)', a: undefined, b: undefined };
  }
  return diff;
}

/** The first event (by position in the step) whose behaviour differs, and its first differing field. */
export function firstEventDifference(a: readonly RunEvent[], b: readonly RunEvent[]): EventDifference | null {
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const eventA = a[index];
    const eventB = b[index];
    const typeA = eventA?.type ?? null;
    const typeB = eventB?.type ?? null;
    if (eventA === undefined || eventB === undefined) {
      return { index, typeA, typeB, path: '(event)', a: eventA && normalize(eventA), b: eventB && normalize(eventB) };
    }
    if (typeA !== typeB) return { index, typeA, typeB, path: 'type', a: typeA, b: typeB };
    const found = firstDifference(normalize(eventA), normalize(eventB));
    if (found !== null) return { index, typeA, typeB, path: found.path, a: found.recorded, b: found.replayed };
  }
  return null;
}

/** What is compared: behaviour, not timing or numbering. */
export function normalize(event: RunEvent): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...event };
  delete copy['seq'];
  delete copy['t'];
  delete copy['durationMs'];
  if (event.type === 'llm_chunk') {
    const chunk: Record<string, unknown> = { ...event.chunk };
    delete chunk['offsetMs'];
    copy['chunk'] = chunk;
  }
  return copy;
}

/** A run's events grouped by step, forward only; replay divergence notes dropped. */
async function* stepGroups(events: AsyncIterable<RunEvent>, side: string): AsyncGenerator<StepGroup> {
  let group: StepGroup | null = null;
  for await (const event of events) {
    if (group !== null && event.step < group.step) {
      throw new TapeFormatError(`run ${side}: event ${event.seq} goes back from step ${group.step} to ${event.step}`);
    }
    if (event.type === 'divergence') continue;
    if (group !== null && event.step === group.step) {
      group.events.push(event);
      continue;
    }
    if (group !== null) yield group;
    group = { step: event.step, events: [event] };
  }
  if (group !== null) yield group;
}
