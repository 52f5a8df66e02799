/**
 * `--reporter text`: failures as a table with their details, then the closing line `N passed, M failed`.
 * A result quotes its tape (a name, a drifted value), so each line shows control characters as escapes.
 */
import { printableLine } from '../../../core/terminal-text.js';
import { clip, table } from '../../format.js';
import type { CiResult } from '../../../replay/ci-run.js';
import { isFailure } from '../../../replay/ci-run.js';
import { closingLine, countResults, driftLines, location, whatIfOf, type CiReport } from './report.js';

const LABEL: Record<CiResult['outcome'], string> = {
  pass: 'pass',
  drift: 'DRIFT',
  exhausted: 'EXHAUSTED',
  invalid: 'INVALID',
  error: 'ERROR',
  changed: 'changed',
};

export function textReport(report: CiReport): string {
  const lines: string[] = [];
  const counts = countResults(report);
  const shard = report.shard === null ? '' : ` (shard ${report.shard.index}/${report.shard.count})`;
  const whatIf = whatIfOf(report);
  if (whatIf !== null) {
    lines.push(`what-if ${report.overrides.join(' ')} over ${report.results.length} tape${report.results.length === 1 ? '' : 's'}${shard}:`);
    const changed = report.results.filter((r) => r.outcome !== 'pass');
    for (const row of table(changed.map((r) => [r.outcome === 'changed' ? 'changed' : LABEL[r.outcome], r.tape.relativePath, clip(r.message, 140)]))) lines.push(`  ${row}`);
    if (changed.length === 0) lines.push('  no tape changes');
    lines.push(whatIf.sentence);
    if (whatIf.analysis !== null) lines.push(`runs recorded without the built-in loop, analysed: ${whatIf.analysis.sentence}`);
  } else {
    const failed = report.results.filter((r) => isFailure(r, report.failOnChange));
    if (failed.length > 0) lines.push(`${failed.length} tape${failed.length === 1 ? '' : 's'} did not pass${shard}:`);
    for (const result of failed) lines.push(...resultLines(result.update === 'cannot' ? 'NOT UPDATED' : LABEL[result.outcome], result));
    const updated = report.results.filter((r) => r.update === 'updated');
    if (updated.length > 0) {
      lines.push(`${updated.length} tape${updated.length === 1 ? '' : 's'} updated from ${updated.length === 1 ? 'its replay' : 'their replays'}${shard}: review the diff before you commit`);
    }
    for (const result of updated) lines.push(...resultLines('UPDATED', result));
  }
  if (report.skipped.length > 0) lines.push(`stopped after ${counts.failed} failure${counts.failed === 1 ? '' : 's'} (--bail): ${report.skipped.length} tape${report.skipped.length === 1 ? '' : 's'} not run`);
  lines.push(closingLine(counts));
  return `${lines.map(printableLine).join('\n')}\n`;
}

/** A tape in the report: its tag, where it is, its name, and what happened. */
function resultLines(tag: string, result: CiResult): string[] {
  const lines = [`  ${tag.padEnd(11)} ${location(result)}  ${result.name === result.tape.relativePath ? '' : `“${clip(result.name, 60)}”`}`];
  const detail = result.drift === undefined ? [result.message] : driftLines(result.drift);
  for (const line of detail) lines.push(`              ${clip(line, 240)}`);
  return lines;
}

/** The progress line while the tapes run (a terminal only). */
export function progressLine(done: number, total: number, failed: number): string {
  return `agentctl ci: ${done}/${total} tapes${failed > 0 ? `, ${failed} failed` : ''}`;
}
