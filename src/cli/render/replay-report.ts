/**
 * The closing report of a replay: the verdict, and the first divergence side by side. A divergence
 * quotes the tape and the replay, so its control characters are shown as escapes (core/terminal-text.ts).
 */
import { printableLine } from '../../core/terminal-text.js';
import type { DivergenceInput } from '../../replay/compare.js';
import { describeDecision, type DecisionSummary } from '../../replay/decision-change.js';
import type { ReplayResult } from '../../replay/replay-run.js';
import { clip } from '../format.js';
import { count } from '../../core/plural.js';

export function replayReport(result: ReplayResult, runId: string | null): string[] {
  const lines: string[] = [];
  const first = result.firstDivergence;
  if (result.verdict === 'reproduced') {
    lines.push(`reproduced: every event matches the tape${result.liveCalls > 0 ? `, then ${count(result.liveCalls, 'call')} went live` : ''}`);
  } else if (result.verdict === 'exhausted') {
    lines.push(`tape exhausted at iteration ${result.exhaustedAt ?? '?'}${first === null ? ' (everything before it matched)' : ''}`);
    lines.push('hint: use --fallback live to send the calls past the end of the tape to the model');
  }
  if (first !== null) {
    lines.push(`${first.expected ? 'diverged as expected' : 'diverged unexpectedly'} at step ${first.step}: ${first.message}`);
    const decision = first.kind === 'decision' ? decisionLines(first) : null;
    if (decision !== null) {
      lines.push(...decision);
    } else if (first.detail !== undefined) {
      lines.push(`  ${first.detail.path}`);
      lines.push(`    recorded: ${show(first.detail.recorded)}`);
      lines.push(`    replayed: ${show(first.detail.replayed)}`);
    }
    if (result.backInSyncAt !== null) lines.push(`back in sync at step ${result.backInSyncAt}`);
  }
  // Later changed decisions are in the event stream; the count says whether to look for them.
  const later = result.decisionChanges - (first?.kind === 'decision' ? 1 : 0);
  if (later > 0) lines.push(`${count(result.decisionChanges, 'guardrail decision')} changed in all`);
  if (result.liveCalls > 0 && result.verdict !== 'reproduced') lines.push(`${count(result.liveCalls, 'model call')} went live`);
  if (result.stoppedByStrict) lines.push('stopped: --strict stops at the first unexpected divergence');
  const end = result.state === null ? 'no final state' : `final state ${result.state}`;
  lines.push(`${end}; exit ${result.exitCode}${runId === null ? '' : `; saved as run ${runId}`}`);
  return lines.map(printableLine);
}

/**
 * A changed decision as a person reads it: `recorded: allow (2 of 3) → now: block (2 of 2)`, then
 * the rules when they differ. Null when the detail is not a pair of decision summaries.
 */
function decisionLines(divergence: DivergenceInput): string[] | null {
  const recorded = divergence.detail?.recorded;
  const replayed = divergence.detail?.replayed;
  if (!isSummary(recorded) || !isSummary(replayed)) return null;
  const lines = [`  recorded: ${describeDecision(recorded)} → now: ${describeDecision(replayed)}`];
  if (recorded.rule !== replayed.rule) lines.push(`  rule: ${recorded.rule} → ${replayed.rule}`);
  return lines;
}

function isSummary(value: unknown): value is DecisionSummary {
  if (value === null || typeof value !== 'object') return false;
  const summary = value as Partial<DecisionSummary>;
  return typeof summary.verdict === 'string' && typeof summary.rule === 'string' && summary.counters !== null && typeof summary.counters === 'object';
}

function show(value: unknown): string {
  if (value === undefined) return '(absent)';
  return clip(typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value), 160);
}
