/**
 * What the UI knows about a run, built from its RunEvents as they arrive (live) or all at once (a
 * recorded run): the step rows, the current state, usage against the budgets, the replay's running
 * verdict and, once the command is done, its end. `addEvents` is pure: it returns a new model and
 * shares every row that did not change, so a batch costs O(batch + rows touched).
 */
import type { BudgetEvent, DivergenceEvent, RunEndEvent, RunEvent, RunStartEvent } from '../../core/events.js';
import type { Verdict } from '../../core/decisions.js';
import type { AgentState } from '../../core/states.js';
import { closesStep } from '../../core/steps.js';
import { summarizeStep, type StepRow } from './step-row.js';

export type TuiMode = 'recording' | 'replaying' | 'viewing' | 'what-if';

/** Who is being shown, known before the first event. */
export interface SessionInfo {
  mode: TuiMode;
  /** The run being recorded or viewed, or the run/tape being replayed. */
  runId: string | null;
  name?: string;
  /** Where a replay's tape came from (a file path or run id), for the header. */
  source?: string;
  /** Iterations patched by `--patch`. */
  patched?: readonly number[];
}

/** What the command reports when it is done: the verdict and the exit code it will return. */
export interface RunEnding {
  exitCode: number;
  /** The replay verdict (reproduced, diverged, exhausted), absent for record and view. */
  verdict?: string;
  /** The plain closing lines the command prints without the UI (shown at the end, printed after quit). */
  report: readonly string[];
  /** For a run shown with its guardrail analysis (recorded without the guardrails): where they would have stopped it, if anywhere. */
  analysis?: { stop: AnalysedStop | null };
}

/** An analysis's stop point, as the header names it. */
export interface AnalysedStop {
  step: number;
  rule: string;
  verdict: Verdict;
}

/** What the loop is waiting for right now, when it is waiting (live runs). */
export type Waiting = { for: 'model' } | { for: 'tool'; tool: string } | { for: 'input' } | null;

export interface RunModel {
  session: SessionInfo;
  start: RunStartEvent | null;
  rows: readonly StepRow[];
  state: AgentState | null;
  stateReason: string;
  budget: BudgetEvent | null;
  end: RunEndEvent | null;
  /** The first divergence that is news (not a resync, exhaustion or live call). */
  firstDivergence: DivergenceEvent | null;
  divergences: number;
  backInSyncAt: number | null;
  exhaustedAt: number | null;
  /** Model calls answered live after the tape ran out (`--fallback live`). */
  liveCalls: number;
  waiting: Waiting;
  /** The `seq` of the event that started the current wait (a new wait restarts the clock). */
  waitingSince: number;
  /** Set by the command when it is done. */
  ending: RunEnding | null;
  eventCount: number;
}

export function emptyModel(session: SessionInfo): RunModel {
  return {
    session,
    start: null,
    rows: [],
    state: null,
    stateReason: '',
    budget: null,
    end: null,
    firstDivergence: null,
    divergences: 0,
    backInSyncAt: null,
    exhaustedAt: null,
    liveCalls: 0,
    waiting: null,
    waitingSince: -1,
    ending: null,
    eventCount: 0,
  };
}

const NOT_NEWS: ReadonlySet<DivergenceEvent['kind']> = new Set(['resync', 'exhausted', 'live']);

/** The model after `events` (in order). Rows of steps the batch does not touch are shared. */
export function addEvents(model: RunModel, events: readonly RunEvent[]): RunModel {
  if (events.length === 0) return model;
  const next: RunModel = { ...model, eventCount: model.eventCount + events.length };
  const rows = model.rows.slice();
  // Events of the batch grouped per step, appended to the step's row once at the end.
  let pendingStep = -1;
  let pending: RunEvent[] = [];
  const flush = (): void => {
    if (pending.length === 0) return;
    const last = rows[rows.length - 1];
    // The loop ends (or waits for input) at the step after its last one; that is not a step of its
    // own: it joins the step it closes (core/steps.ts).
    const joins = last !== undefined && (last.step === pendingStep || (last.step < pendingStep && pending.every(closesStep)));
    if (joins) rows[rows.length - 1] = summarizeStep(last.step, [...last.events, ...pending]);
    else rows.push(summarizeStep(pendingStep, pending));
    pending = [];
  };
  for (const event of events) {
    if (event.step !== pendingStep) {
      flush();
      pendingStep = event.step;
    }
    pending.push(event);
    observe(next, event);
  }
  flush();
  next.rows = rows;
  return next;
}

/** The header's facts, updated in place on the model being built. */
function observe(model: RunModel, event: RunEvent): void {
  switch (event.type) {
    case 'run_start':
      model.start = event;
      break;
    case 'state':
      model.state = event.to;
      model.stateReason = event.reason;
      if (event.to === 'WAITING_FOR_INPUT') wait(model, { for: 'input' }, event.seq);
      else if (event.to !== 'WAITING_FOR_TOOL') wait(model, null, event.seq);
      break;
    case 'llm_request':
      wait(model, { for: 'model' }, event.seq);
      break;
    case 'llm_response':
      if (model.exhaustedAt !== null && event.step >= model.exhaustedAt && model.session.mode !== 'viewing') model.liveCalls++;
      wait(model, null, event.seq);
      break;
    case 'tool_call':
      wait(model, { for: 'tool', tool: event.tool }, event.seq);
      break;
    case 'tool_result':
      wait(model, null, event.seq);
      break;
    case 'budget':
      model.budget = event;
      break;
    case 'divergence':
      model.divergences++;
      if (event.kind === 'resync') model.backInSyncAt ??= event.step;
      if (event.kind === 'exhausted' || event.kind === 'live') model.exhaustedAt ??= event.iteration;
      if (!NOT_NEWS.has(event.kind)) model.firstDivergence ??= event;
      break;
    case 'run_end':
      model.end = event;
      wait(model, null, event.seq);
      break;
    default:
      break;
  }
}

function wait(model: RunModel, waiting: Waiting, seq: number): void {
  model.waiting = waiting;
  model.waitingSince = seq;
}

/** The model once the command has finished (verdict, exit code, closing lines). */
export function endRun(model: RunModel, ending: RunEnding): RunModel {
  return { ...model, ending, waiting: null };
}

/** The replay's running verdict for the header: "reproduced so far", "diverged at 3 (expected)", … */
export function runningVerdict(model: RunModel): string | null {
  const { mode } = model.session;
  if (mode === 'recording' || mode === 'viewing') return null;
  const parts: string[] = [];
  const first = model.firstDivergence;
  if (first === null) parts.push(model.ending === null ? 'reproduced so far' : 'reproduced');
  else parts.push(`diverged at ${first.step} (${first.expected ? 'expected' : 'unexpected'})`);
  if (model.backInSyncAt !== null) parts.push(`back in sync at ${model.backInSyncAt}`);
  if (model.exhaustedAt !== null && model.liveCalls === 0) parts.push(`tape ends at ${model.exhaustedAt}`);
  if (model.liveCalls > 0) parts.push(`${model.liveCalls} live call${model.liveCalls === 1 ? '' : 's'}`);
  return parts.join(' · ');
}
