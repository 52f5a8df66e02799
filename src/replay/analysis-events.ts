/**
 * A recorded run's guardrail analysis as events among the run's own. Every renderer — view's lines,
 * its --json and the terminal UI, show's counts — reads the one stream made here, so they show the
 * same decisions at the same places. A run recorded without the guardrails (the library, the proxy,
 * `agentctl run`) has no decision on its tape: its analysis says what they would have decided, each
 * decision right after the recorded event it is about (its `seq`: the model answer that asked for
 * the call). A run whose tape holds decisions shows those, and no analysis.
 */
import type { GuardrailEvent, RunEvent } from '../core/events.js';
import { recordedBy, type RunMeta } from '../core/run-meta.js';
import { analyseRun, type RunAnalysis } from './guardrail-analysis.js';

/**
 * The run's events as every renderer shows them: with its analysis's decisions among them when it
 * was recorded without the guardrails (and the analysis), else as they are.
 */
export function analysedEvents(meta: RunMeta, events: readonly RunEvent[]): { events: readonly RunEvent[]; analysis: RunAnalysis | null } {
  if (!needsAnalysis(meta, events)) return { events, analysis: null };
  const analysis = analyseRun(meta, events);
  return { events: withAnalysis(events, analysis.decisions), analysis };
}

/** Whether the run's guardrail decisions are the analysis's: recorded without the guardrails, and none on its tape. */
export function needsAnalysis(meta: Pick<RunMeta, 'source' | 'config'>, events: readonly RunEvent[]): boolean {
  return recordedBy(meta) !== 'cli' && !events.some((event) => event.type === 'guardrail');
}

/**
 * The recorded events with the analysed decisions among them: each after the event whose `seq` it
 * has (and the decisions before it about that event), in the analysis's order.
 */
export function withAnalysis(events: readonly RunEvent[], decisions: readonly GuardrailEvent[]): RunEvent[] {
  // A stable sort: decisions about one event keep the order the analysis made them in.
  const sorted = [...decisions].sort((a, b) => a.seq - b.seq);
  const out: RunEvent[] = [];
  let next = 0;
  for (const event of events) {
    out.push(event);
    for (let decision = sorted[next]; decision !== undefined && decision.seq <= event.seq; decision = sorted[++next]) out.push(decision);
  }
  out.push(...sorted.slice(next));
  return out;
}

/** `would have been stopped at step 2 by identical_call_block`, or that it would not have been. */
export function stopText(stop: { step: number; rule: string } | null): string {
  return stop === null ? 'would not have been stopped' : `would have been stopped at step ${stop.step} by ${stop.rule}`;
}
