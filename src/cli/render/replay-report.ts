/** The closing report of a replay: the verdict, and the first divergence side by side. */
import type { ReplayResult } from '../../replay/replay-run.js';
import { clip } from '../format.js';

export function replayReport(result: ReplayResult, runId: string | null): string[] {
  const lines: string[] = [];
  const first = result.firstDivergence;
  if (result.verdict === 'reproduced') {
    lines.push(`reproduced: every event matches the tape${result.liveCalls > 0 ? `, then ${result.liveCalls} call(s) went live` : ''}`);
  } else if (result.verdict === 'exhausted') {
    lines.push(`tape exhausted at iteration ${result.exhaustedAt ?? '?'}${first === null ? ' (everything before it matched)' : ''}`);
  }
  if (first !== null) {
    lines.push(`${first.expected ? 'diverged as expected' : 'diverged unexpectedly'} at step ${first.step}: ${first.message}`);
    if (first.detail !== undefined) {
      lines.push(`  ${first.detail.path}`);
      lines.push(`    recorded: ${show(first.detail.recorded)}`);
      lines.push(`    replayed: ${show(first.detail.replayed)}`);
    }
    if (result.backInSyncAt !== null) lines.push(`back in sync at step ${result.backInSyncAt}`);
  }
  if (result.liveCalls > 0 && result.verdict !== 'reproduced') lines.push(`${result.liveCalls} model call(s) went live`);
  if (result.stoppedByStrict) lines.push('stopped: --strict stops at the first unexpected divergence');
  const end = result.state === null ? 'no final state' : `final state ${result.state}`;
  lines.push(`${end}; exit ${result.exitCode}${runId === null ? '' : `; saved as run ${runId}`}`);
  return lines;
}

function show(value: unknown): string {
  if (value === undefined) return '(absent)';
  return clip(typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value), 160);
}
