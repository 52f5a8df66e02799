/**
 * Compares two runs step by step (`agentctl diff`): both event streams are read forward together,
 * one step at a time, so memory holds one step per side however long the runs are. A step is the
 * same when its events are equal in order, ignoring timing (`t`, `durationMs`, stream chunk
 * offsets) and numbering (`seq`), with ids compared by position, not text (id-labels.ts: each run's
 * tool-call ids become labels like `call#2.0`, so two recordings whose provider made up other ids
 * compare equal). The divergence notes a replay adds about its own tape are not behaviour and are
 * left out. For a differing step, the first differing event and field is given, side A vs side B
 * (via firstDifference; for requests that differ only in their hashes, the field behind it); a step
 * only one run has differs too. Steps are counted and grouped as everywhere else (core/steps.ts).
 * An MCP tool's call and result compare as a built-in tool's (name, arguments, outcome), and by
 * their server; its MCP messages (`mcp_exchange`) as any other event.
 *
 * A request's `hash` covers its whole conversation, ids included. When the two conversations so far
 * are the same text, the hashes are compared as they are; when they differ only in ids, the labelled
 * conversations are compared instead (a digest of each, kept per message), and the settings the
 * hash covers but the tape does not show count as equal only if textually equal requests earlier
 * in the runs had equal hashes (HashedSettings).
 */
import { createHash } from 'node:crypto';
import type { LlmRequestEvent, RunEvent, RunEventType } from '../core/events.js';
import { TapeFormatError } from '../core/errors.js';
import { closesStep } from '../core/steps.js';
import { canonicalJson } from '../guardrails/canonical-json.js';
import { firstDifference } from '../core/first-difference.js';
import { HashedSettings, IdLabels } from './id-labels.js';
import { UNSEEN_DIFFERENCE } from './request-difference.js';
import { summarizeStep, type StepSummary } from './run-diff-summary.js';

/** Where a step first differs. */
export interface EventDifference {
  /** 0-based position of the differing event within the step. */
  index: number;
  /** The event type at that position on each side; null when that side has no event there. */
  typeA: RunEventType | null;
  typeB: RunEventType | null;
  /**
   * The field that differs, e.g. `output` or `response.message.content`; for requests whose hashes
   * differ, what makes them differ (`prefix`, `messages[3]`, `tools (definitions) or parameters`);
   * `type` or `(event)` when the events are not comparable.
   */
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
 * TapeFormatError when a run's steps go backwards, unless it was recorded at the transport
 * (`overlapping`: for run A and run B).
 */
export async function* diffRuns(
  a: AsyncIterable<RunEvent>,
  b: AsyncIterable<RunEvent>,
  overlapping: readonly [boolean, boolean] = [false, false],
): AsyncGenerator<StepDiff, RunDiffSummary> {
  const left = stepGroups(a, 'A', overlapping[0])[Symbol.asyncIterator]();
  const right = stepGroups(b, 'B', overlapping[1])[Symbol.asyncIterator]();
  const totals: RunDiffSummary = { identical: true, firstDifferenceStep: null, stepsA: 0, stepsB: 0, differingSteps: 0, identicalSteps: 0 };
  const comparison = new RunComparison();
  try {
    let nextA = await left.next();
    let nextB = await right.next();
    while (!nextA.done || !nextB.done) {
      const groupA = nextA.done ? null : nextA.value;
      const groupB = nextB.done ? null : nextB.value;
      const step = Math.min(groupA?.step ?? Infinity, groupB?.step ?? Infinity);
      const eventsA = groupA?.step === step ? groupA.events : null;
      const eventsB = groupB?.step === step ? groupB.events : null;
      const diff = comparison.step(step, eventsA, eventsB);
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

/**
 * Two runs compared step by step, in order: what each run's ids are labelled, its conversation so
 * far, and what the request hashes have shown about the settings the tape does not hold. Give it
 * every step of both runs, in step order (a step only one run has included).
 */
export class RunComparison {
  private readonly a = new RunSide();
  private readonly b = new RunSide();
  private readonly settings = new HashedSettings();

  /** Compare one step; a null side has no such step. */
  step(step: number, a: readonly RunEvent[] | null, b: readonly RunEvent[] | null): StepDiff {
    const diff: StepDiff = { step, same: true, a: a === null ? null : summarizeStep(a), b: b === null ? null : summarizeStep(b) };
    const difference = this.firstEventDifference(a ?? [], b ?? []);
    if (difference !== null || a === null || b === null) {
      diff.same = false;
      diff.firstDifference = difference ?? { index: 0, typeA: null, typeB: null, path: '(event)', a: undefined, b: undefined };
    }
    return diff;
  }

  /** The first event (by position in the step) whose behaviour differs, and its first differing field. */
  firstEventDifference(a: readonly RunEvent[], b: readonly RunEvent[]): EventDifference | null {
    // Every event is labelled (and every request's conversation followed) before any is compared,
    // so a difference early in the step leaves the labels of the steps after it as they should be.
    const left = a.map((event) => this.a.prepare(event));
    const right = b.map((event) => this.b.prepare(event));
    this.noteSettings(left, right);
    for (let index = 0; index < Math.max(left.length, right.length); index++) {
      const eventA = left[index];
      const eventB = right[index];
      const typeA = eventA?.type ?? null;
      const typeB = eventB?.type ?? null;
      if (eventA === undefined || eventB === undefined) {
        return { index, typeA, typeB, path: '(event)', a: eventA?.normalized, b: eventB?.normalized };
      }
      if (typeA !== typeB) return { index, typeA, typeB, path: 'type', a: typeA, b: typeB };
      const [x, y] = this.comparable(eventA, eventB);
      const found = behaviourDifference(x, y);
      if (found === null) continue;
      if (found.path === 'hash') return { index, typeA, typeB, ...this.hashDifference(eventA, eventB, x, y) };
      return { index, typeA, typeB, path: found.path, a: found.recorded, b: found.replayed };
    }
    return null;
  }

  /**
   * What makes two requests' hashes differ, named as the replay names it (request-difference.ts): a
   * field the tape shows that sorts after `hash` (`prefix`, `params`, `tools`…); else the first
   * message of the conversations so far that differs beyond ids (`messages[i]`: one an earlier
   * step sent, since this step's own are compared in `append`), found from the digests each side
   * keeps as they stand after the step; else what the hash covers and the tape does not show. The
   * values given for the last two are the hashes.
   */
  private hashDifference(a: Prepared, b: Prepared, x: Record<string, unknown>, y: Record<string, unknown>): Pick<EventDifference, 'path' | 'a' | 'b'> {
    const { hash: hashA, ...shownA } = x;
    const { hash: hashB, ...shownB } = y;
    const shown = firstDifference(shownA, shownB);
    if (shown !== null) return { path: shown.path, a: shown.recorded, b: shown.replayed };
    const message = firstDifferingMessage(this.a.conversation(a), this.b.conversation(b));
    return { path: message === null ? UNSEEN_DIFFERENCE : `messages[${message}]`, a: hashA, b: hashB };
  }

  /** Requests whose conversations so far are the same text show, by their hashes, whether the unseen settings agree. */
  private noteSettings(a: readonly Prepared[], b: readonly Prepared[]): void {
    const requestsA = a.filter((p) => p.request !== undefined);
    const requestsB = b.filter((p) => p.request !== undefined);
    for (let i = 0; i < Math.min(requestsA.length, requestsB.length); i++) {
      const x = requestsA[i]?.request;
      const y = requestsB[i]?.request;
      if (x !== undefined && y !== undefined && x.text === y.text) this.settings.note(x.event, y.event);
    }
  }

  /**
   * The two normalized events to compare. A request keeps its hash when the conversations so far
   * are the same text; when they differ only in ids (the labelled ones are the same) and the unseen
   * settings agree, the hashes say nothing more and are left out.
   */
  private comparable(a: Prepared, b: Prepared): [Record<string, unknown>, Record<string, unknown>] {
    const x = a.request;
    const y = b.request;
    if (x === undefined || y === undefined || x.text === y.text) return [a.normalized, b.normalized];
    if (x.labelled !== y.labelled || !this.settings.agree(x.event, y.event)) return [a.normalized, b.normalized];
    const { hash: _a, ...withoutA } = a.normalized;
    const { hash: _b, ...withoutB } = b.normalized;
    return [withoutA, withoutB];
  }
}

/** An event ready to compare: normalized, ids labelled; for a request, digests of its conversation so far and its length. */
interface Prepared {
  type: RunEventType;
  normalized: Record<string, unknown>;
  request?: { event: LlmRequestEvent; text: string; labelled: string; messages: number };
}

/**
 * The first field two normalized events differ in: an MCP tool result's own fields (its outcome, its
 * server) before the reply it holds (`mcp`), which repeats the outcome in the protocol's terms, so
 * a differing output is named as a built-in tool's is.
 */
function behaviourDifference(a: Record<string, unknown>, b: Record<string, unknown>): ReturnType<typeof firstDifference> {
  if (!('mcp' in a) && !('mcp' in b)) return firstDifference(a, b);
  const { mcp: replyA, ...restA } = a;
  const { mcp: replyB, ...restB } = b;
  return firstDifference(restA, restB) ?? firstDifference(replyA, replyB, 'mcp');
}

/** The index of the first entry two digest chains differ at (a chain's digest covers every message up to it), or null. */
function firstDifferingMessage(a: readonly string[], b: readonly string[]): number | null {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return null;
}

/** One run's side of a comparison: its id labels and its conversation (as message digests). */
class RunSide {
  readonly labels = new IdLabels();
  /** Digest of the conversation up to each message, as written and as labelled (like the request hash's chain). */
  private readonly text: string[] = [];
  private readonly labelled: string[] = [];

  prepare(event: RunEvent): Prepared {
    const labelled = this.labels.event(event);
    const prepared: Prepared = { type: event.type, normalized: normalize(labelled) };
    if (event.type === 'llm_request' && labelled.type === 'llm_request') {
      this.text.length = Math.min(this.text.length, event.prefix);
      this.labelled.length = this.text.length;
      event.append.forEach((message, i) => {
        const digest = sha256(canonicalJson(message));
        const other = labelled.append[i];
        this.text.push(sha256(`${this.text.at(-1) ?? ''}:${digest}`));
        const labelledDigest = other === undefined || other === message ? digest : sha256(canonicalJson(other));
        this.labelled.push(sha256(`${this.labelled.at(-1) ?? ''}:${labelledDigest}`));
      });
      prepared.request = { event, text: this.text.at(-1) ?? '', labelled: this.labelled.at(-1) ?? '', messages: this.labelled.length };
    }
    return prepared;
  }

  /** The labelled digests of a prepared request's conversation, as far as it went. */
  conversation(prepared: Prepared): readonly string[] {
    return this.labelled.slice(0, prepared.request?.messages ?? 0);
  }
}

/** Compare one step of two runs on its own (ids labelled within the step); a null side has no such step. */
export function diffStep(step: number, a: readonly RunEvent[] | null, b: readonly RunEvent[] | null): StepDiff {
  return new RunComparison().step(step, a, b);
}

/** The first event (by position in the step) whose behaviour differs, and its first differing field; ids labelled within the step. */
export function firstEventDifference(a: readonly RunEvent[], b: readonly RunEvent[]): EventDifference | null {
  return new RunComparison().firstEventDifference(a, b);
}

/** What is compared: behaviour, not timing or numbering (ids are labelled before, see RunComparison). */
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

/**
 * A run's events grouped by step (core/steps.ts: the events that only close a step join the one
 * they close), forward only; replay divergence notes dropped. In a run recorded at the transport
 * (`overlapping`) calls may overlap, so an event can come after a later step's: it goes with the
 * step under way. In any other run that is a bad tape.
 */
async function* stepGroups(events: AsyncIterable<RunEvent>, side: string, overlapping: boolean): AsyncGenerator<StepGroup> {
  // The step read before `group`, held back while `group` holds only events that may close it.
  let held: StepGroup | null = null;
  let group: StepGroup | null = null;
  // Whether `group` holds an event that does not close a step: then it is a step of its own.
  let opened = false;
  for await (const event of events) {
    if (group !== null && event.step < group.step && !overlapping) {
      throw new TapeFormatError(`run ${side}: event ${event.seq} goes back from step ${group.step} to ${event.step}`);
    }
    if (event.type === 'divergence') continue;
    if (group !== null && event.step <= group.step) group.events.push(event);
    else {
      if (group !== null && held !== null && !opened) held.events.push(...group.events);
      else if (group !== null) held = group;
      group = { step: event.step, events: [event] };
      opened = false;
    }
    if (!opened && !closesStep(event)) {
      opened = true;
      if (held !== null) yield held;
      held = null;
    }
  }
  if (group !== null && held !== null && !opened) held.events.push(...group.events);
  else if (group !== null) yield group;
  if (held !== null) yield held;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
