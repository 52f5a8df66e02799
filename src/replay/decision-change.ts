/**
 * Guardrail decisions compared across two runs of the same tape: which recorded decision a
 * replayed one stands for, and — when its verdict or rule changed — one line saying how, e.g.
 * `read_file loop_guard decision changed: recorded allow (2 of 3) → now block (2 of 2)`.
 * Pure functions over decision records, so any consumer of two event streams (replay, a what-if
 * over many tapes, a terminal view) can name "the decision that changed" the same way.
 */
import type { DecisionRecord, Gate, Verdict } from '../core/decisions.js';
import type { GuardrailEvent, RunEvent } from '../core/events.js';

/** A decision as a guardrail event carries it: the record plus the call it was about, if any. */
export type DecisionLike = DecisionRecord & { callId?: string };

/** What a decision came to: its verdict and rule, the counters after it, and its threshold. */
export interface DecisionSummary {
  verdict: Verdict;
  rule: string;
  /** `counters.after` of the decision. */
  counters: Record<string, number>;
  /** Present only when the decision has one. */
  threshold?: number;
}

/** How a decision changed between the tape and the replay, ready for a divergence event. */
export interface DecisionChange {
  message: string;
  detail: { path: 'verdict'; recorded: DecisionSummary; replayed: DecisionSummary };
}

/**
 * Gates that judge a whole step rather than one call. Their `tool` (the repetition gate records the
 * step's only tool) is not what the decision is about, so messages leave it out.
 */
const STEP_GATES: ReadonlySet<Gate> = new Set<Gate>(['repetition', 'max_tokens', 'budget']);

/** Counters compared with a threshold, in the order to pick one when a decision has several. */
const THRESHOLD_COUNTERS = ['attempts', 'failures', 'repeated'] as const;

/** The verdict, rule, counters after and threshold of a decision. */
export function decisionSummary(decision: DecisionRecord): DecisionSummary {
  const summary: DecisionSummary = { verdict: decision.verdict, rule: decision.rule, counters: { ...decision.counters.after } };
  if (decision.threshold !== undefined) summary.threshold = decision.threshold;
  return summary;
}

/**
 * The counter a decision's threshold applies to: its only counter, or else the first of
 * attempts, failures, repeated that it has; undefined when none fits.
 */
export function thresholdCounter(counters: Readonly<Record<string, number>>): number | undefined {
  const names = Object.keys(counters);
  if (names.length === 1) return counters[names[0]!];
  for (const name of THRESHOLD_COUNTERS) if (counters[name] !== undefined) return counters[name];
  return undefined;
}

/** `allow (2 of 3)`: the verdict, and the counter against its threshold when both are known. */
export function describeDecision(summary: DecisionSummary): string {
  const counter = summary.threshold === undefined ? undefined : thresholdCounter(summary.counters);
  return counter === undefined ? summary.verdict : `${summary.verdict} (${counter} of ${summary.threshold})`;
}

/**
 * What identifies a decision within a step: gate, tool, call id and call key (absent ones
 * included as absent). The n-th replayed decision with a key stands for the n-th recorded one.
 */
export function decisionMatchKey(decision: DecisionLike): string {
  return JSON.stringify([decision.gate, decision.tool ?? null, decision.callId ?? null, decision.key ?? null]);
}

/** `read_file loop_guard` for a decision about one call, `repetition` for one about a step. */
export function decisionSubject(decision: DecisionLike): string {
  return decision.tool === undefined || STEP_GATES.has(decision.gate) ? decision.gate : `${decision.tool} ${decision.gate}`;
}

/**
 * How the replayed decision differs from its recorded counterpart, or null when they are not the
 * same decision (different match key) or it came out the same (same verdict and rule: counters,
 * thresholds and reasons alone are not a changed decision).
 */
export function decisionChange(recorded: DecisionLike, replayed: DecisionLike): DecisionChange | null {
  if (decisionMatchKey(recorded) !== decisionMatchKey(replayed)) return null;
  if (recorded.verdict === replayed.verdict && recorded.rule === replayed.rule) return null;
  const before = decisionSummary(recorded);
  const after = decisionSummary(replayed);
  return {
    message: `${decisionSubject(replayed)} decision changed: recorded ${describeDecision(before)} → now ${describeDecision(after)}`,
    detail: { path: 'verdict', recorded: before, replayed: after },
  };
}

/** One step's guardrail events by match key, each list in the order they happened. */
export function indexDecisions(events: Iterable<RunEvent>): Map<string, GuardrailEvent[]> {
  const index = new Map<string, GuardrailEvent[]>();
  for (const event of events) {
    if (event.type !== 'guardrail') continue;
    const key = decisionMatchKey(event);
    const list = index.get(key);
    if (list === undefined) index.set(key, [event]);
    else list.push(event);
  }
  return index;
}
