/**
 * `agentctl ci --set` over a run the built-in loop did not record (the library's, the proxy's,
 * `agentctl run`'s): such a run cannot be replayed by agentctl — its agent is not here — so the
 * what-if is an analysis (guardrail-analysis.ts), under the tape's own settings and under the
 * override. It `changed` when the override moves the stop point or changes a decision (its verdict
 * or rule; counters, thresholds and reasons alone are no change, as in a replay's what-if).
 *
 * Before is what the recording spent and how it ended; after is where the analysis under the
 * override stops it — the step of its stop point, and what was spent up to it. A repetition stop or
 * a failure halt ends the built-in loop's run in ERROR, a limit gone over in BUDGET_EXCEEDED; a
 * refused call (the identical-call block)
 * leaves the end as it was: the run is cut short there, but what the agent would have done next is
 * not on the tape.
 */
import type { GuardrailEvent, RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { RULES } from '../guardrails/rules.js';
import type { AnalysisOptions } from './analysis-settings.js';
import { runSentence, stopRule, summarise, type AnalysisSummary } from './analysis-summary.js';
import { decisionChange, decisionMatchKey, decisionSubject, decisionSummary, describeDecision } from './decision-change.js';
import { analyseRun } from './guardrail-analysis.js';
import type { WhatIf } from './what-if.js';

export interface AnalysisWhatIf {
  outcome: 'pass' | 'changed';
  message: string;
  whatIf: WhatIf;
  /** The analysis under the override. */
  analysis: AnalysisSummary;
}

export function analysisWhatIf(meta: RunMeta, events: readonly RunEvent[], options: AnalysisOptions): AnalysisWhatIf {
  const before = analyseRun(meta, events);
  const after = analyseRun(meta, events, options);
  const analysis = summarise(after, meta);
  const changes = changedDecisions(before.decisions, after.decisions);
  const stop = after.stop;
  const { totals, saved } = after;
  const recorded = meta.finalState ?? null;
  const whatIf: WhatIf = {
    firstChange: changes.first,
    decisionChanges: changes.count,
    state: { before: recorded, after: stop === null ? recorded : (endState(stopRule(stop)) ?? recorded) },
    steps: { before: totals.steps, after: totals.steps - saved.steps },
    tokens: { before: totals.tokens, after: totals.tokens - saved.tokens },
    cost: { before: totals.cost, after: totals.cost - saved.cost },
  };
  const changed = changes.count > 0 || JSON.stringify(before.stop) !== JSON.stringify(stop);
  if (!changed) return { outcome: 'pass', message: 'unchanged', whatIf, analysis };
  const parts: string[] = [];
  if (changes.first !== null) parts.push(`step ${changes.first.step}: ${changes.first.rule} ${changes.first.before} → ${changes.first.after}`);
  parts.push(runSentence(analysis));
  return { outcome: 'changed', message: parts.join('; '), whatIf, analysis };
}

/** How the built-in loop ends a run stopped by `rule`; undefined when it would not end it (a refused call). */
function endState(rule: string): RunMeta['finalState'] | undefined {
  if (rule === RULES.repetition || rule === RULES.consecutiveFailuresHalt) return 'ERROR';
  if (rule === RULES.tokenBudgetExceeded || rule === RULES.costLimitExceeded) return 'BUDGET_EXCEEDED';
  return undefined;
}

/** How many decisions differ in verdict or rule (or are only on one side), and the first in the run's order. */
function changedDecisions(before: readonly GuardrailEvent[], after: readonly GuardrailEvent[]): { count: number; first: WhatIf['firstChange'] } {
  const key = (d: GuardrailEvent): string => `${d.step} ${decisionMatchKey(d)}`;
  const unpaired = new Map<string, GuardrailEvent[]>();
  for (const d of before) unpaired.set(key(d), [...(unpaired.get(key(d)) ?? []), d]);
  let count = 0;
  let first: WhatIf['firstChange'] = null;
  for (const d of after) {
    const twin = unpaired.get(key(d))?.shift();
    const now = describeDecision(decisionSummary(d));
    if (twin === undefined) {
      count++;
      first ??= { step: d.step, message: `${decisionSubject(d)} decision added: now ${now}`, rule: d.rule, before: 'none', after: now };
      continue;
    }
    const change = decisionChange(twin, d);
    if (change === null) continue;
    count++;
    first ??= { step: d.step, message: change.message, rule: d.rule, before: describeDecision(change.detail.recorded), after: now };
  }
  for (const left of unpaired.values()) count += left.length;
  return { count, first };
}
