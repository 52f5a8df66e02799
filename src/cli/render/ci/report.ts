/**
 * What `agentctl ci` reports, whatever the format: every tape's result, the tapes not run, the
 * counts, and the exit code. The text, JSON, JUnit and GitHub reporters each render this.
 */
import type { CiResult } from '../../../replay/ci-run.js';
import { isFailure } from '../../../replay/ci-run.js';
import type { CorpusTape, Shard } from '../../../replay/corpus.js';
import { describeDecision } from '../../../replay/decision-change.js';
import type { Drift } from '../../../replay/tape-check.js';
import { whatIfSentence, whatIfTotals, type WhatIfTotals } from '../../../replay/what-if-summary.js';
import { corpusSentence, corpusTotals, type CorpusTotals } from '../../../replay/analysis-summary.js';

export interface CiReport {
  mode: 'check' | 'what-if';
  results: readonly CiResult[];
  skipped: readonly CorpusTape[];
  shard: Shard | null;
  failOnChange: boolean;
  durationMs: number;
  exitCode: number;
  /** The `--set` overrides of a what-if. */
  overrides: readonly string[];
}

export interface CiCounts {
  tapes: number;
  passed: number;
  failed: number;
  skipped: number;
  drift: number;
  exhausted: number;
  invalid: number;
  error: number;
  changed: number;
  updated: number;
}

export function countResults(report: CiReport): CiCounts {
  const counts: CiCounts = {
    tapes: report.results.length + report.skipped.length, passed: 0, failed: 0, skipped: report.skipped.length,
    drift: 0, exhausted: 0, invalid: 0, error: 0, changed: 0, updated: 0,
  };
  for (const result of report.results) {
    if (result.outcome !== 'pass') counts[result.outcome]++;
    // A rewritten tape did not pass: it drifted, and is counted apart, as updated.
    if (result.update === 'updated') counts.updated++;
    else if (isFailure(result, report.failOnChange)) counts.failed++;
    else counts.passed++;
  }
  return counts;
}

/** 7 when a tape failed for any reason but being invalid, else 9 when one was invalid, else 0. */
export function exitCodeOf(report: CiReport): number {
  const failed = report.results.filter((result) => isFailure(result, report.failOnChange));
  if (failed.some((result) => result.outcome !== 'invalid')) return 7;
  return failed.length > 0 ? 9 : 0;
}

/**
 * `41 passed, 2 failed` — with `, 1 updated` after the passed when `--update` rewrote tapes, and
 * `, 3 skipped` at the end when some were not run: the closing line CI systems read.
 */
export function closingLine(counts: CiCounts): string {
  const updated = counts.updated > 0 ? `, ${counts.updated} updated` : '';
  return `${counts.passed} passed${updated}, ${counts.failed} failed${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ''}`;
}

export interface WhatIfReport {
  totals: WhatIfTotals;
  sentence: string;
  /** The runs the built-in loop did not record, analysed (analysis-what-if.ts): where the guardrails would have stopped them. */
  analysis: { totals: CorpusTotals; sentence: string } | null;
}

export function whatIfOf(report: CiReport): WhatIfReport | null {
  if (report.mode !== 'what-if') return null;
  const totals = whatIfTotals(report.results);
  const analysed = report.results.flatMap((result) => (result.analysis === undefined ? [] : [result.analysis]));
  const corpus = analysed.length === 0 ? null : corpusTotals(analysed);
  return { totals, sentence: whatIfSentence(totals), analysis: corpus === null ? null : { totals: corpus, sentence: corpusSentence(corpus) } };
}

/** A drift as lines for people: where (step, event, field, line) and recorded vs replayed. */
export function driftLines(drift: Drift): string[] {
  const where = [`step ${drift.step}`];
  if (drift.eventType !== null) where.push(drift.eventType);
  if (drift.path !== null) where.push(`at ${drift.path}`);
  const lines = [`${where.join(', ')}: ${drift.message}`];
  if (drift.decision !== null) {
    const side = (d: Drift['decision'] & object, key: 'recorded' | 'replayed'): string => {
      const s = d[key];
      const counters = Object.entries(s.counters).map(([k, v]) => `${k} ${v}`).join(', ');
      return `${describeDecision(s)} — rule ${s.rule}${counters === '' ? '' : `, ${counters}`}${s.threshold === undefined ? '' : `, threshold ${s.threshold}`}`;
    };
    lines.push(`recorded: ${side(drift.decision, 'recorded')}`);
    lines.push(`replayed: ${side(drift.decision, 'replayed')}`);
  } else if (drift.path !== null) {
    lines.push(`recorded: ${show(drift.recorded)}`);
    lines.push(`replayed: ${show(drift.replayed)}`);
  }
  return lines;
}

/** A value on one line, cut to a readable length. */
export function show(value: unknown, max = 200): string {
  if (value === undefined) return '(absent)';
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** `tapes/x.tape.jsonl:42` when the line is known. */
export function location(result: CiResult): string {
  const line = result.drift?.line ?? result.line ?? null;
  return line === null ? result.tape.relativePath : `${result.tape.relativePath}:${line}`;
}
