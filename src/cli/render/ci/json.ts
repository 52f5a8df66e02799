/** `--reporter json`: one object with every tape's result, the counts and the exit code. */
import { printableJson } from '../../../core/terminal-text.js';
import type { CiResult } from '../../../replay/ci-run.js';
import { countResults, whatIfOf, type CiReport } from './report.js';

export function jsonReport(report: CiReport): string {
  const whatIf = whatIfOf(report);
  return `${printableJson({
    type: 'ci',
    mode: report.mode,
    ...(report.mode === 'what-if' ? { overrides: report.overrides } : {}),
    shard: report.shard,
    exitCode: report.exitCode,
    durationMs: Math.round(report.durationMs),
    totals: countResults(report),
    ...(whatIf === null ? {} : { whatIf: { ...whatIf.totals, summary: whatIf.sentence } }),
    ...(whatIf === null || whatIf.analysis === null ? {} : { analysis: { ...whatIf.analysis.totals, summary: whatIf.analysis.sentence } }),
    results: report.results.map(resultJson),
    skipped: report.skipped.map((t) => t.relativePath),
  })}\n`;
}

function resultJson(result: CiResult): Record<string, unknown> {
  return {
    tape: result.tape.relativePath,
    name: result.name,
    outcome: result.outcome,
    message: result.message,
    durationMs: Math.round(result.durationMs),
    ...(result.drift === undefined ? {} : { drift: result.drift }),
    ...(result.exhaustedAt === undefined ? {} : { exhaustedAt: result.exhaustedAt }),
    ...(result.code === undefined ? {} : { code: result.code }),
    ...(result.line === undefined ? {} : { line: result.line }),
    ...(result.whatIf === undefined ? {} : { whatIf: result.whatIf }),
    ...(result.analysis === undefined ? {} : { analysis: result.analysis }),
    ...(result.update === undefined ? {} : { update: result.update }),
  };
}
