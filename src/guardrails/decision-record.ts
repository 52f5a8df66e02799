import type { DecisionRecord, Gate, Verdict } from '../core/decisions.js';

/** The fields of a DecisionRecord; optional ones may be left undefined. */
export interface DecisionInput {
  gate: Gate;
  verdict: Verdict;
  rule: string;
  tool?: string | undefined;
  key?: string | undefined;
  before: Record<string, number>;
  after: Record<string, number>;
  threshold?: number | undefined;
  reason: string;
}

/**
 * Build a DecisionRecord with a fixed field order (gate, verdict, rule, tool, key, counters,
 * threshold, reason — as the type lists them and `--json` shows them) and no `undefined` members.
 * Records are written to tapes and compared between a recording and its replay, so two equal
 * decisions must produce byte-identical JSON whatever the caller passed for the absent fields.
 */
export function decisionRecord(input: DecisionInput): DecisionRecord {
  // Built field by field: every present field goes in at its place, absent ones never appear.
  const record = { gate: input.gate, verdict: input.verdict, rule: input.rule } as DecisionRecord;
  if (input.tool !== undefined) record.tool = input.tool;
  if (input.key !== undefined) record.key = input.key;
  record.counters = { before: input.before, after: input.after };
  if (input.threshold !== undefined) record.threshold = input.threshold;
  record.reason = input.reason;
  return record;
}

/**
 * One line for a step log or a plain-text reporter:
 * `loop_guard allow identical_call read_file: identical call 2 of 3`.
 */
export function describeDecision(record: DecisionRecord): string {
  const tool = record.tool === undefined ? '' : ` ${record.tool}`;
  return `${record.gate} ${record.verdict} ${record.rule}${tool}: ${record.reason}`;
}
