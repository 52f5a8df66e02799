/**
 * Guardrail decision records: every gate evaluation produces one, allowed calls and near-misses
 * included. The tape stores them; the TUI, the text reporter and `--json` show them.
 *
 * The gates and verdicts are plain arrays here, so code that runs without the schema can use them;
 * the record's shape is decisionRecordSchema (event-schema.ts), which uses them, and DecisionRecord is
 * inferred from it.
 */
import type { z } from 'zod';
import type { decisionRecordSchema } from './event-schema.js';

/** Which gate decided. */
export const GATES = [
  'arguments', // argument parsing (invalid JSON → tool error)
  'loop_guard', // identical-call counter (LoopGuard.recordAttempt)
  'replay_control', // idempotency-aware dedup (ReplayControl.shouldSkip)
  'failures', // consecutive-failure counter (LoopGuard.recordOutcome)
  'repetition', // identical tool steps (LoopGuardrails.observeToolCalls)
  'max_tokens', // length recovery (LoopGuardrails.onMaxTokens)
  'budget', // token/cost limits and proximity
  'policy', // other denials: unknown tool, replay side-effect policy
] as const;
export type Gate = (typeof GATES)[number];

export const VERDICTS = ['allow', 'skip', 'block', 'continue', 'warn', 'halt', 'stuck', 'recover'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** One guardrail evaluation, with enough context to explain it without the code. */
export type DecisionRecord = z.infer<typeof decisionRecordSchema>;
