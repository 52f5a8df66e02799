/**
 * Analyses in words: one line per run, and the corpus sentence of `agentctl analyze` and of
 * `agentctl ci --set` over runs the built-in loop did not record:
 *
 *   3 of 40 recorded runs would have been stopped at the identical-call block, 12 steps and $0.1800
 *   earlier; 1 at the repetition stop, 2 steps earlier; 36 not stopped
 */
import type { Verdict } from '../core/decisions.js';
import { count } from '../core/plural.js';
import { recordedBy, type RunMeta } from '../core/run-meta.js';
import { RULES } from '../guardrails/rules.js';
import type { AnalysisStop, RunAnalysis, Spent } from './guardrail-analysis.js';

/** What a summary needs of an analysis (the decisions' verdicts counted). */
export interface AnalysisSummary {
  stop: AnalysisStop | null;
  saved: Spent;
  totals: Spent;
  outcomes: RunAnalysis['outcomes'];
  /** How many decisions of each verdict, most telling first; verdicts with none left out. */
  verdicts: Record<string, number>;
  decisions: number;
  /** The run's own guardrails ran (the built-in loop recorded it): what they decided is on its tape. */
  guarded: boolean;
}

/** The verdicts in the order a summary lists them: what stops or refuses first. */
const ORDER: readonly Verdict[] = ['block', 'stuck', 'halt', 'skip', 'warn', 'recover', 'allow', 'continue'];

export function summarise(analysis: RunAnalysis, meta: Pick<RunMeta, 'source' | 'config'>): AnalysisSummary {
  const counts = new Map<string, number>();
  for (const d of analysis.decisions) counts.set(d.verdict, (counts.get(d.verdict) ?? 0) + 1);
  const verdicts: Record<string, number> = {};
  for (const verdict of ORDER) if (counts.has(verdict)) verdicts[verdict] = counts.get(verdict) as number;
  const { stop, saved, totals, outcomes } = analysis;
  return { stop, saved, totals, outcomes, verdicts, decisions: analysis.decisions.length, guarded: recordedBy(meta) === 'cli' };
}

/** The rule a stop point is counted under: a refusal after a halt or a stop under the rule that stopped the run. */
export function stopRule(stop: AnalysisStop): string {
  return stop.rule === RULES.afterHalt || stop.rule === RULES.afterStop ? (stop.cause ?? stop.rule) : stop.rule;
}

const PHRASES: Record<string, string> = {
  [RULES.identicalCallBlock]: 'the identical-call block',
  [RULES.repetition]: 'the repetition stop',
  [RULES.consecutiveFailuresHalt]: 'the failure halt',
  [RULES.tokenBudgetExceeded]: 'the token budget',
  [RULES.costLimitExceeded]: 'the cost limit',
};

const phrase = (rule: string): string => PHRASES[rule] ?? rule;

/** `3 steps and $0.0021 earlier` (no cost when the run's model has no price). */
function earlier(saved: Spent): string {
  return `${count(saved.steps, 'step')}${saved.cost > 0 ? ` and $${saved.cost.toFixed(4)}` : ''} earlier`;
}

/**
 * One run: `would have been stopped at step 2 by identical_call_block (lookup: identical call 3 of 3:
 * blocked), 4 steps and $0.0021 earlier`, or `no guardrail would have stopped it (14 decisions: 1
 * skip, 13 allow)` — for a run whose own guardrails ran, `no guardrail would have stopped it beyond
 * what its recording shows`: they may have stopped it, as recorded.
 */
export function runSentence(summary: AnalysisSummary): string {
  const { stop } = summary;
  if (stop === null) {
    const verdicts = Object.entries(summary.verdicts).map(([verdict, n]) => `${n} ${verdict}`).join(', ');
    const shown = summary.guarded ? ' beyond what its recording shows' : '';
    return `no guardrail would have stopped it${shown} (${count(summary.decisions, 'decision')}${verdicts === '' ? '' : `: ${verdicts}`})`;
  }
  const about = stop.tool === undefined ? stop.reason : `${stop.tool}: ${stop.reason}`;
  return `would have been stopped at step ${stop.step} by ${stop.rule} (${about}), ${earlier(summary.saved)}`;
}

/** The stopped runs by rule, and how many were not stopped. */
export interface CorpusTotals {
  runs: number;
  stopped: { rule: string; phrase: string; runs: number; saved: Spent }[];
  notStopped: number;
}

export function corpusTotals(summaries: readonly AnalysisSummary[]): CorpusTotals {
  const byRule = new Map<string, CorpusTotals['stopped'][number]>();
  let notStopped = 0;
  for (const summary of summaries) {
    if (summary.stop === null) {
      notStopped++;
      continue;
    }
    const rule = stopRule(summary.stop);
    const entry = byRule.get(rule) ?? { rule, phrase: phrase(rule), runs: 0, saved: { steps: 0, tokens: 0, cost: 0 } };
    entry.runs++;
    entry.saved.steps += summary.saved.steps;
    entry.saved.tokens += summary.saved.tokens;
    entry.saved.cost += summary.saved.cost;
    byRule.set(rule, entry);
  }
  const stopped = [...byRule.values()].sort((a, b) => b.runs - a.runs || a.rule.localeCompare(b.rule));
  return { runs: summaries.length, stopped, notStopped };
}

/** The corpus sentence (see the module comment). */
export function corpusSentence(totals: CorpusTotals): string {
  const runs = `${totals.runs} recorded ${totals.runs === 1 ? 'run' : 'runs'}`;
  if (totals.stopped.length === 0) return `0 of ${runs} would have been stopped by the guardrails`;
  const parts = totals.stopped.map((s, i) => `${s.runs}${i === 0 ? ` of ${runs} would have been stopped` : ''} at ${s.phrase}, ${earlier(s.saved)}`);
  if (totals.notStopped > 0) parts.push(`${totals.notStopped} not stopped`);
  return parts.join('; ');
}
