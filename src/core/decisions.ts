/**
 * Guardrail decision records: every gate evaluation produces one, allowed calls and near-misses
 * included. The tape stores them; the TUI, the text reporter and `--json` show them.
 *
 * The record's shape is decisionRecordSchema (event-schema.ts), and DecisionRecord is inferred from
 * it; the gates and verdicts it names are plain arrays (decision-names.ts), which the schema uses.
 */
import type { z } from 'zod';
import type { decisionRecordSchema } from './event-schema.js';

export { GATES, VERDICTS, type Gate, type Verdict } from './decision-names.js';

/** One guardrail evaluation, with enough context to explain it without the code. */
export type DecisionRecord = z.infer<typeof decisionRecordSchema>;
