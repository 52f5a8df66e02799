/**
 * `--reporter junit`: JUnit XML as GitHub, GitLab and Jenkins read it — one `testsuite` for the run,
 * a `testcase` per tape (`classname` its relative path, `name` the run's name or task), `failure`
 * for drift and exhaustion (and changes under --fail-on-change), `error` for bad tapes and errors.
 */
import { printable } from '../../../core/terminal-text.js';
import type { CiResult } from '../../../replay/ci-run.js';
import { isFailure } from '../../../replay/ci-run.js';
import { countResults, driftLines, whatIfOf, type CiReport } from './report.js';

export function junitReport(report: CiReport, timestamp: string): string {
  const counts = countResults(report);
  const errors = report.results.filter((r) => r.outcome === 'invalid' || r.outcome === 'error').length;
  const failures = counts.failed - errors;
  const seconds = (ms: number): string => (ms / 1000).toFixed(3);
  const suite = report.shard === null ? 'agentctl ci' : `agentctl ci (shard ${report.shard.index}/${report.shard.count})`;
  const attributes = `name="${xml(suite)}" tests="${counts.tapes}" failures="${failures}" errors="${errors}" skipped="${counts.skipped}" time="${seconds(report.durationMs)}"`;
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites ${attributes}>`, `  <testsuite ${attributes} timestamp="${xml(timestamp)}">`];
  const whatIf = whatIfOf(report);
  if (whatIf !== null) lines.push(`    <properties><property name="what-if" value="${xml(`${report.overrides.join(' ')}: ${whatIf.sentence}`)}"/></properties>`);
  for (const result of report.results) lines.push(...testcase(result, report.failOnChange, seconds(result.durationMs)));
  for (const tape of report.skipped) {
    lines.push(`    <testcase classname="${xml(tape.relativePath)}" name="${xml(tape.relativePath)}" time="0.000"><skipped message="not run: --bail reached"/></testcase>`);
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}

function testcase(result: CiResult, failOnChange: boolean, time: string): string[] {
  const open = `    <testcase classname="${xml(result.tape.relativePath)}" name="${xml(result.name)}" time="${time}"`;
  const body = (result.drift === undefined ? [result.message] : driftLines(result.drift)).join('\n');
  if (result.outcome === 'invalid' || result.outcome === 'error') {
    return [`${open}>`, `      <error type="${result.outcome}" message="${xml(result.message)}">${xml(body)}</error>`, '    </testcase>'];
  }
  if (isFailure(result, failOnChange)) {
    return [`${open}>`, `      <failure type="${result.outcome}" message="${xml(result.message)}">${xml(body)}</failure>`, '    </testcase>'];
  }
  // Reported but not failed: a change, an undecidable what-if, a rewritten tape.
  if (result.outcome !== 'pass' || result.update === 'updated') return [`${open}>`, `      <system-out>${xml(result.message)}</system-out>`, '    </testcase>'];
  return [`${open}/>`];
}

/**
 * XML text and attribute escaping. Control characters (which XML 1.0 cannot hold, or a terminal
 * showing the report would obey) are shown as escapes, as everywhere (core/terminal-text.ts); the
 * two other characters XML 1.0 cannot hold are dropped.
 */
export function xml(text: string): string {
  return printable(text)
    .replace(/[\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
