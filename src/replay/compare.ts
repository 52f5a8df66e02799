/**
 * Compares a replay with its tape as the replay runs, step by step and event by event, ignoring
 * timing (`t`, `durationMs`) and numbering (`seq`). It reports where the replay first departs from
 * the tape — for a request, the first differing message and field, recorded vs replayed — whether
 * that was expected (at or after a patch, or under a what-if override), and when a later request is
 * identical to the recorded one again ("back in sync"). A guardrail decision that came to another
 * verdict or rule is reported as a `decision` divergence — the first one in place of the generic
 * event difference, later ones (after the replay has left the tape) as it keeps pairing each
 * replayed decision with the recorded one of the same step, gate, tool, call and key.
 *
 * Ids are compared by position, not text (id-labels.ts): the tape keeps its ids, and each id of the
 * replay is read as the tape's id at the same position (where it first appears), so events are
 * compared in the tape's terms. A replay takes its ids from the tape, so nothing needs relabelling as
 * long as it follows it; a patched answer, say, brings ids of its own, which count as the recorded
 * ones where they are used in the same places. Requests are compared through the two
 * conversations (request-pairs.ts), so one that differs from the tape's only in ids still matches.
 */
import type { DivergenceEvent, GuardrailEvent, RunEvent } from '../core/events.js';
import { decisionChange } from './decision-change.js';
import { firstDifference, type Difference } from '../core/first-difference.js';
import { IdLabels } from './id-labels.js';
import { RequestPairs } from './request-pairs.js';
import { StepDecisions } from './step-decisions.js';
import { sameJson } from '../core/same-json.js';
import { packedMap } from '../core/packed-map.js';
import type { LoopProgress } from './loop-progress.js';
import type { StepCursor, StepGroup } from './step-cursor.js';

/** Timing and numbering: never part of what a replay must reproduce. */
const TIMING = new Set(['seq', 't', 'durationMs']);
/** Under a what-if, thresholds (and the reasons that quote them) change on purpose. */
const WHAT_IF_GUARDRAIL = new Set([...TIMING, 'threshold', 'reason']);
/** Under a what-if, the config, and so the tools it leaves out (`--set tools=…`), change on purpose. */
const WHAT_IF_START = new Set([...TIMING, 'config', 'toolsLeftOut']);
/**
 * A replacement config (`--config`): run_start's config and what it takes from it — its model, seed,
 * the custom tools its modules define and the tools it no longer leaves out — are the user's, not news.
 */
const REPLACED_START = new Set([...TIMING, 'config', 'model', 'seed', 'customTools', 'toolsLeftOut']);
/** Notes about the replay's course, not departures from the tape: never the first divergence. */
const NOT_FIRST: ReadonlySet<DivergenceEvent['kind']> = new Set(['resync', 'exhausted', 'live']);

export type DivergenceInput = Omit<DivergenceEvent, 'seq' | 't'>;

export interface CompareOptions {
  cursor: StepCursor;
  state: LoopProgress;
  /** Iterations whose response was patched. Divergences from the first of them on are expected. */
  patched: ReadonlySet<number>;
  /** The config was overridden on purpose (`--set`): every divergence is expected, config not compared. */
  whatIf: boolean;
  /**
   * The replay runs with a config the user gave (`--config`): the config itself is not compared
   * (the user knows it changed); what it does to the run is, and that is unexpected.
   */
  configReplaced?: boolean;
  fallback: 'error' | 'live';
  /** False for a tape whose recording never finished (no run_end): its end is not a divergence. */
  complete: boolean;
}

export class ReplayComparator {
  private inSync = true;
  private step = -1;
  private position = 0;
  /** The conversation so far on each side, and whether a replayed request is the recorded one. */
  private readonly requests = new RequestPairs();
  private readonly recordedLabels = IdLabels.keepingIds();
  /** The replay's ids as the tape's: a step is labelled only once the tape's step is (recordedStep). */
  private readonly replayedLabels = IdLabels.translatingInto(this.recordedLabels);
  /** The tape's current step (the cursor's group), its events without divergences, as written and labelled. */
  private recordedGroup: StepGroup | null = null;
  private recorded: { raw: RunEvent[]; labelled: RunEvent[] } = { raw: [], labelled: [] };
  private exhaustionReported = false;
  /** Past the last event of an unfinished tape: nothing left to compare with. */
  private beyondTape = false;
  /** The first divergence (not counting resyncs or the end of the tape). */
  first: DivergenceInput | null = null;
  backInSyncAt: number | null = null;
  /** Every divergence reported, in order. */
  readonly all: DivergenceInput[] = [];
  /**
   * Where the first divergence is on the tape: the recorded event it concerns (its `seq`, so a
   * report can point at the tape file's line) and the type of the replayed event, when there are such.
   */
  firstAt: { recordedSeq: number | null; replayedType: RunEvent['type'] | null } | null = null;
  /** Guardrail decisions whose verdict or rule changed, the first divergence included if it was one. */
  decisionChanges = 0;
  /** The replay's decisions in the current step, to pair with the tape's out of sync. */
  private readonly decisions = new StepDecisions();

  constructor(private readonly options: CompareOptions) {}

  /**
   * Check one replayed event; returns the divergence events to add to the replay's stream. The
   * cursor must have the event's step loaded (StepCursor.load): the answer is then at hand.
   */
  observe(replayed: RunEvent): DivergenceInput[] {
    if (replayed.type === 'divergence') return [];
    const out: DivergenceInput[] = [];
    if (replayed.step !== this.step) {
      // The step the replay leaves: whatever of it the tape still has, the replay never produced.
      if (this.inSync && this.step >= 0) this.leftovers(out, this.recorded.labelled);
      this.enterStep(replayed.step);
    }
    const recorded = this.labelledStep(this.options.cursor.group(replayed.step)).labelled;
    // Every replayed event is labelled, in order, whether or not it is compared — after the tape's
    // step, whose ids its new ones are named after.
    const event = this.replayedLabels.event(replayed);
    const exhausted = this.isExhaustedAt(event.step);
    // The tape is over: what follows is beyond it, which the model side reports as exhaustion.
    const tapeOver = !exhausted && recorded.length === 0 && this.options.cursor.endsBy(event.step - 1);
    // An unfinished tape (its recorder died) just stops here; the model side reports exhaustion.
    const stopsHere = !exhausted && !tapeOver && this.mayStopHere(recorded) && this.options.cursor.endsBy(event.step);
    return this.compare(replayed, event, recorded, tapeOver, stopsHere, out);
  }

  private enterStep(step: number): void {
    this.step = step;
    this.position = 0;
    this.decisions.reset();
  }

  private isExhaustedAt(step: number): boolean {
    const { exhaustedAt } = this.options.state;
    return exhaustedAt !== null && step >= exhaustedAt;
  }

  /** Whether, in sync, the tape has nothing more for this step and, unfinished, may end here. */
  private mayStopHere(recorded: readonly RunEvent[]): boolean {
    return !this.beyondTape && this.inSync && recorded[this.position] === undefined && !this.options.complete;
  }

  /**
   * The comparison proper, synchronous: `tapeOver` (the tape ended before this step) and
   * `stopsHere` (an unfinished tape ends at this event) are what the cursor said.
   */
  private compare(
    replayed: RunEvent, event: RunEvent, recorded: RunEvent[], tapeOver: boolean, stopsHere: boolean, out: DivergenceInput[] = [],
  ): DivergenceInput[] {
    // Kept in sync too: the replay may leave the tape mid-step, and a decision after that point
    // pairs with the recorded one by how many of its kind came before it in the step.
    if (event.type === 'guardrail') this.decisions.note(event);
    if (event.type === 'llm_request' && replayed.type === 'llm_request') {
      this.requests.replayed(replayed, event);
      this.requests.recorded(event.step, this.recorded);
    }

    const { exhaustedAt } = this.options.state;
    if (exhaustedAt !== null && event.step >= exhaustedAt) {
      this.reportEnd(out, exhaustedAt);
      return out;
    }
    if (tapeOver) return out;

    if (this.beyondTape) return out;
    if (!this.inSync) {
      if (event.type === 'guardrail') {
        this.compareDecision(out, event, recorded);
        return out;
      }
      const match = event.type === 'llm_request'
        ? recorded.findIndex((e) => e.type === 'llm_request' && (e.hash === event.hash || (this.requests.isCurrent(e) && this.requests.same(e, event))))
        : -1;
      if (match >= 0) {
        this.inSync = true;
        this.position = match + 1;
        this.backInSyncAt ??= event.step;
        this.push(out, { kind: 'resync', iteration: event.step, expected: true, message: `back in sync at step ${event.step}: the request matches the tape again` }, event);
      }
      return out;
    }

    const expected = recorded[this.position];
    this.position++;
    if (stopsHere) {
      this.beyondTape = true;
      return out;
    }
    if (expected === undefined) {
      this.diverge(out, event, 'event', `the replay has ${describe(event)} where the tape has nothing more at step ${event.step}`);
      return out;
    }
    if (expected.type === 'llm_request' && event.type === 'llm_request') {
      if (!this.requests.same(expected, event)) {
        const detail = this.requests.difference(expected, event);
        this.diverge(out, event, 'request', `request ${event.iteration} differs at ${detail.path}`, detail, expected);
      }
      return out;
    }
    if (sameJson(expected, event, this.ignored(event))) return out;
    const change = expected.type === 'guardrail' && event.type === 'guardrail' ? decisionChange(expected, event) : null;
    if (change !== null) {
      this.diverge(out, event, 'decision', change.message, change.detail, expected);
      return out;
    }
    const detail = firstDifference(this.normalize(expected), this.normalize(event));
    if (detail !== null && event.type === 'llm_response' && expected.type === 'llm_response' && this.options.patched.has(event.step)) {
      // Show what the model said, not the finish reason that follows from it.
      const said = firstDifference(expected.response.message, event.response.message, 'response.message') ?? detail;
      this.diverge(out, event, 'patched', `the response at iteration ${event.step} was patched`, said, expected);
    } else if (detail !== null) {
      const kind = expected.type === 'tool_result' && event.type === 'tool_result' ? 'tool_output' : 'event';
      const what = expected.type === event.type ? `${event.type} differs at ${detail.path}` : `the tape has ${describe(expected)}, the replay ${describe(event)}`;
      this.diverge(out, event, kind, what, detail, expected);
    }
    return out;
  }

  /**
   * The recorded event the replay should produce next, while it follows the tape; undefined once
   * it has left it (diverged, or past the tape's end).
   */
  peek(): RunEvent | undefined {
    if (!this.inSync || this.beyondTape || this.options.state.exhaustedAt !== null || this.step < 0) return undefined;
    const next = this.recorded.labelled[this.position] ?? this.options.cursor.next();
    return next?.type === 'divergence' ? undefined : next;
  }

  /** Call when the replay has ended: the tape must not go on. */
  finish(lastStep: number): DivergenceInput[] {
    const out: DivergenceInput[] = [];
    if (this.inSync && !this.beyondTape && this.options.state.exhaustedAt === null) {
      this.leftovers(out, this.recorded.labelled);
      if (out.length === 0 && !this.options.cursor.endsBy(lastStep)) {
        this.push(out, { kind: 'event', iteration: lastStep, expected: this.isExpected(lastStep), message: `the replay ended at step ${lastStep} but the tape goes on` }, null);
      }
    }
    return out;
  }

  /** A divergence for the first of the step's recorded events (`recorded`) the replay never produced. */
  private leftovers(out: DivergenceInput[], recorded: readonly RunEvent[]): void {
    const missing = recorded[this.position];
    if (missing !== undefined && this.options.state.exhaustedAt === null) {
      this.inSync = false;
      const input = { kind: 'event' as const, iteration: this.step, expected: this.isExpected(this.step), message: `the tape has ${describe(missing)} at step ${this.step} that the replay never produced` };
      this.push(out, input, null, this.step, missing);
    }
  }

  private reportEnd(out: DivergenceInput[], at: number): void {
    if (this.exhaustionReported) return;
    this.exhaustionReported = true;
    const live = this.options.fallback === 'live';
    this.push(out, {
      kind: live ? 'live' : 'exhausted',
      iteration: at,
      expected: true,
      message: live ? `the tape ends before iteration ${at}: calls from here on go to the live model` : `tape exhausted at iteration ${at}`,
    }, null, at);
  }

  private diverge(out: DivergenceInput[], event: RunEvent, kind: DivergenceEvent['kind'], message: string, detail?: Difference, recorded?: RunEvent): void {
    this.inSync = false;
    const input: Omit<DivergenceInput, 'type' | 'step'> = { kind, iteration: event.step, expected: this.isExpected(event.step), message };
    if (detail !== undefined) input.detail = detail;
    this.push(out, input, event, event.step, recorded);
  }

  private push(out: DivergenceInput[], input: Omit<DivergenceInput, 'type' | 'step'>, event: RunEvent | null, step = event?.step ?? this.step, recorded?: RunEvent): void {
    const divergence: DivergenceInput = { type: 'divergence', step, ...input };
    const wasFirst = this.first;
    this.emit(out, divergence, true);
    if (wasFirst === null && this.first === divergence) this.firstAt = { recordedSeq: recorded?.seq ?? null, replayedType: event?.type ?? null };
  }

  /** Report a divergence; `mayBeFirst` is false for those found only after the replay left the tape. */
  private emit(out: DivergenceInput[], divergence: DivergenceInput, mayBeFirst: boolean): void {
    if (mayBeFirst && !NOT_FIRST.has(divergence.kind)) this.first ??= divergence;
    if (divergence.kind === 'decision') this.decisionChanges++;
    this.all.push(divergence);
    out.push(divergence);
  }

  /**
   * Out of sync, events no longer line up by position, but a decision still has its recorded
   * counterpart (same match key, same rank in the step): report it if its verdict or rule changed.
   * Such reports leave `first` and the way back into sync alone.
   */
  private compareDecision(out: DivergenceInput[], event: GuardrailEvent, recorded: readonly RunEvent[]): void {
    const counterpart = this.decisions.counterpart(event, recorded);
    const change = counterpart === undefined ? null : decisionChange(counterpart, event);
    if (change === null) return;
    const divergence: DivergenceInput = {
      type: 'divergence', step: event.step, kind: 'decision', iteration: event.step, expected: this.isExpected(event.step), message: change.message, detail: change.detail,
    };
    this.emit(out, divergence, false);
  }

  private isExpected(step: number): boolean {
    if (this.options.whatIf) return true;
    for (const patched of this.options.patched) if (step >= patched) return true;
    return false;
  }

  /** Each step of the tape is labelled once, when first reached, in the order the replay reaches them. */
  private labelledStep(group: StepGroup): { raw: RunEvent[]; labelled: RunEvent[] } {
    if (group !== this.recordedGroup) {
      this.recordedGroup = group;
      const raw = group.events.filter((e) => e.type !== 'divergence');
      this.recorded = { raw, labelled: packedMap(raw, (e) => this.recordedLabels.event(e)) };
    }
    return this.recorded;
  }

  /** The keys an event is not compared on: behaviour counts, not timing or numbering. */
  private ignored(event: RunEvent): ReadonlySet<string> {
    if (this.options.configReplaced === true) {
      // The thresholds (and reasons quoting them) are the user's config too; verdicts and counters are behaviour.
      if (event.type === 'run_start') return REPLACED_START;
      if (event.type === 'guardrail') return WHAT_IF_GUARDRAIL;
    }
    if (!this.options.whatIf) return TIMING;
    if (event.type === 'guardrail') return WHAT_IF_GUARDRAIL;
    return event.type === 'run_start' ? WHAT_IF_START : TIMING;
  }

  /** A copy without the ignored keys, for reporting where two events differ. */
  private normalize(event: RunEvent): unknown {
    const ignored = this.ignored(event);
    return Object.fromEntries(Object.entries(event).filter(([key]) => !ignored.has(key)));
  }
}

function describe(event: RunEvent): string {
  switch (event.type) {
    case 'state':
      return `state ${event.to}`;
    case 'guardrail':
      return `guardrail ${event.verdict} (${event.gate}/${event.rule})`;
    case 'tool_call':
      return `tool call ${event.tool}`;
    case 'tool_result':
      return `tool result ${event.tool} ${event.status}`;
    case 'run_end':
      return `run end ${event.state}`;
    default:
      return `a ${event.type} event`;
  }
}
