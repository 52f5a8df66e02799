/**
 * The names a guardrail decision uses: which gate decided, and its verdict. Plain arrays with no
 * imports, so the event schema (event-schema.ts) is made from them and the types (decisions.ts,
 * which re-exports them) come from the one list.
 */

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
