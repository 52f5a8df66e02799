/**
 * The stop point of an analysis and what the recording spent past it.
 *
 * The stop point is the first decision of the analysis that would have ended the run or refused a
 * call for good — a block of the identical-call gate, a refusal after the run was halted or stopped,
 * a repetition stop, a failure halt that ended the run (one a halt nudge turned into a message did
 * not) — and that the recording does not show already (a recorded guardrail event with the same
 * gate, tool, call, key and verdict; a decision about no call also at the same step). A duplicate
 * skipped and a warning are shown, but stop nothing. A run no decision stopped that went over a
 * token budget or cost limit stops at the answer that took it over (overLimitStop).
 */
import type { GuardrailEvent, RunEvent } from '../core/events.js';
import { RULES } from '../guardrails/rules.js';

export interface AnalysisStop {
  step: number;
  /** The seq of the recorded answer that asked for the call (or whose step it is). */
  seq: number;
  callId?: string;
  tool?: string;
  gate: GuardrailEvent['gate'];
  rule: string;
  verdict: GuardrailEvent['verdict'];
  reason: string;
  /** For a refusal after a halt or a stop (`after_halt`, `after_stop`): the rule that stopped the run. */
  cause?: string;
}

/** Where the recording went over a limit the analysis was given: the answer that took it over. */
export interface OverLimit {
  step: number;
  seq: number;
  rule: typeof RULES.tokenBudgetExceeded | typeof RULES.costLimitExceeded;
  reason: string;
}

/**
 * The stop point of a run that went over its token budget or cost limit (and no decision stopped it
 * before): the answer that took it over, where the built-in loop ends the run. The recording shows
 * it already when it ended there itself, over its own limit (BUDGET_EXCEEDED, no model call after).
 */
export function overLimitStop(over: OverLimit, recorded: readonly RunEvent[]): AnalysisStop | null {
  const endedThere = recorded.some((e) => e.type === 'run_end' && e.state === 'BUDGET_EXCEEDED')
    && !recorded.some((e) => e.type === 'llm_request' && e.step > over.step);
  if (endedThere) return null;
  return { step: over.step, seq: over.seq, gate: 'budget', rule: over.rule, verdict: 'halt', reason: over.reason };
}

/** What a recording spent: model calls (steps), tokens, cost. */
export interface Spent {
  steps: number;
  tokens: number;
  cost: number;
}

/**
 * The stop point among `decisions`. `haltedAt`: the steps at which a halt ended the run; `stopRule`:
 * the rule the session stopped the run by, if it did.
 */
export function stopPoint(
  decisions: readonly GuardrailEvent[], recorded: readonly RunEvent[], haltedAt: ReadonlySet<number>, stopRule: string | undefined,
): AnalysisStop | null {
  const shown = recordedDecisions(recorded);
  for (const d of decisions) {
    const stops = stopsRun(d, haltedAt);
    if (stops === false || shown.has(identity(d))) continue;
    const cause = d.rule === RULES.afterHalt ? RULES.consecutiveFailuresHalt : d.rule === RULES.afterStop ? stopRule : undefined;
    const stop: AnalysisStop = { step: d.step, seq: d.seq, gate: d.gate, rule: d.rule, verdict: d.verdict, reason: d.reason };
    if (d.callId !== undefined) stop.callId = d.callId;
    if (d.tool !== undefined) stop.tool = d.tool;
    if (cause !== undefined) stop.cause = cause;
    return stop;
  }
  return null;
}

/** Whether a decision is one that stops (see the module comment). */
function stopsRun(d: GuardrailEvent, haltedAt: ReadonlySet<number>): boolean {
  if (d.verdict === 'stuck') return true;
  if (d.verdict === 'halt') return haltedAt.has(d.step);
  if (d.verdict !== 'block') return false;
  if (d.gate === 'loop_guard' || d.rule === RULES.afterStop) return true;
  return d.rule === RULES.afterHalt && haltedAt.has(d.step);
}

function recordedDecisions(events: readonly RunEvent[]): Set<string> {
  const shown = new Set<string>();
  for (const e of events) if (e.type === 'guardrail' && e.analysis !== true) shown.add(identity(e));
  return shown;
}

/** A decision as the recording would show it: gate, tool, call (or step), key and verdict. */
function identity(d: GuardrailEvent): string {
  return JSON.stringify([d.gate, d.tool ?? null, d.callId ?? `step ${d.step}`, d.key ?? null, d.verdict]);
}

/** What the recording spent, in all (`after` undefined) or after the step `after`. */
export function spent(events: readonly RunEvent[], costOf: (event: RunEvent & { type: 'llm_response' }) => number, after?: number): Spent {
  const steps = new Set<number>();
  let tokens = 0;
  let cost = 0;
  for (const event of events) {
    if (after !== undefined && event.step <= after) continue;
    if (event.type === 'llm_request') steps.add(event.step);
    if (event.type === 'llm_response') {
      tokens += event.response.usage.inputTokens + event.response.usage.outputTokens;
      cost += costOf(event);
    }
  }
  return { steps: steps.size, tokens, cost };
}
