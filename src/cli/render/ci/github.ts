/**
 * `--reporter github`: workflow-command annotations (`::error file=…,line=…,title=…::…`) for the
 * failed tapes — at most ten, the rest summed up in one more — and a Markdown summary for the job
 * page (appended to `$GITHUB_STEP_SUMMARY` by the command). The log shows the annotations as a
 * terminal would (colours included), so what they quote from a tape has its control characters as escapes.
 */
import { printable, printableLine } from '../../../core/terminal-text.js';
import type { CiResult } from '../../../replay/ci-run.js';
import { isFailure } from '../../../replay/ci-run.js';
import { clip } from '../../format.js';
import { closingLine, countResults, driftLines, location, whatIfOf, type CiReport } from './report.js';

/** Annotations shown at most; GitHub itself keeps only ten errors per step. */
export const MAX_ANNOTATIONS = 10;

export function githubAnnotations(report: CiReport): string {
  const failed = report.results.filter((r) => isFailure(r, report.failOnChange));
  const lines = failed.slice(0, MAX_ANNOTATIONS).map(annotation);
  if (failed.length > MAX_ANNOTATIONS) {
    lines.push(`::error title=agentctl ci::${data(`${failed.length - MAX_ANNOTATIONS} more tapes failed: ${failed.slice(MAX_ANNOTATIONS).map((r) => r.tape.relativePath).join(', ')}`)}`);
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function annotation(result: CiResult): string {
  const props = [`file=${property(result.tape.relativePath)}`];
  const line = result.drift?.line ?? result.line ?? null;
  if (line !== null) props.push(`line=${line}`);
  props.push(`title=${property(`agentctl ci: ${result.outcome}${result.drift === undefined ? '' : ` at step ${result.drift.step}`}`)}`);
  const message = result.drift === undefined ? result.message : driftLines(result.drift).join('\n');
  return `::error ${props.join(',')}::${data(message)}`;
}

/** The job summary in Markdown. */
export function githubSummary(report: CiReport): string {
  const counts = countResults(report);
  const lines = [`### agentctl ci${report.shard === null ? '' : ` — shard ${report.shard.index}/${report.shard.count}`}`, '', `**${closingLine(counts)}**`, ''];
  const whatIf = whatIfOf(report);
  if (whatIf !== null) lines.push(`What-if \`${report.overrides.join(' ')}\`: ${whatIf.sentence}`, '');
  const shown = report.results.filter((r) => r.outcome !== 'pass' || r.update !== undefined);
  if (shown.length > 0) {
    lines.push('| result | tape | detail |', '|---|---|---|');
    for (const r of shown) lines.push(`| ${r.update ?? r.outcome} | \`${cell(location(r))}\` | ${cell(clip(r.message, 200))} |`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

const cell = (text: string): string => printableLine(text.replace(/\n/g, ' ')).replace(/\|/g, '\\|');
/** Escaping of a workflow command's message. */
const data = (text: string): string => printable(text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
/** Escaping of a workflow command's property value. */
const property = (text: string): string => data(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
