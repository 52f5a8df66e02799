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
 * Build a DecisionRecord with a fixed field order and no `undefined` members. Records are written
 * to tapes and compared between a recording and its replay, so two equal decisions must produce
 * byte-identical JSON whatever the caller passed for the absent fields.
 */
export function decisionRecord(input: DecisionInput): DecisionRecord {
  const record: DecisionRecord = {
    gate: input.gate,
    verdict: input.verdict,
    rule: input.rule,
    counters: { before: input.before, after: input.after },
    reason: input.reason,
  };
  if (input.tool !== undefined) record.tool = input.tool;
  if (input.key !== undefined) record.key = input.key;
  if (input.threshold !== undefined) record.threshold = input.threshold;
  return record;
}
