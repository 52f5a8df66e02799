/**
 * Guardrail decision records: every gate evaluation produces one, allowed calls and near-misses
 * included. The tape stores them; the TUI, the text reporter and `--json` show them.
 */

/** Which gate decided. */
export type Gate =
  | 'arguments' // argument parsing (invalid JSON → tool error)
  | 'loop_guard' // identical-call counter (LoopGuard.recordAttempt)
  | 'replay_control' // idempotency-aware dedup (ReplayControl.shouldSkip)
  | 'failures' // consecutive-failure counter (LoopGuard.recordOutcome)
  | 'repetition' // identical tool steps (LoopGuardrails.observeToolCalls)
  | 'max_tokens' // length recovery (LoopGuardrails.onMaxTokens)
  | 'budget' // token/cost limits and proximity
  | 'policy'; // other denials: unknown tool, replay side-effect policy

export const VERDICTS = ['allow', 'skip', 'block', 'continue', 'warn', 'halt', 'stuck', 'recover'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** One guardrail evaluation, with enough context to explain it without the code. */
export interface DecisionRecord {
  gate: Gate;
  verdict: Verdict;
  /** Stable machine name of the rule that fired, e.g. `identical_call_block`, `duplicate_success`. */
  rule: string;
  /** The tool concerned, when the gate looks at one call. */
  tool?: string;
  /** The call key (docs/guardrails.md §1) of the call concerned. */
  key?: string;
  /** Counter values before and after this evaluation, e.g. `{ attempts: 1 }` → `{ attempts: 2 }`. */
  counters: { before: Record<string, number>; after: Record<string, number> };
  /** The threshold the counter is compared with, when there is one. */
  threshold?: number;
  /** One line for a person: "identical call 2 of 3", "prior call succeeded at step 2". */
  reason: string;
}
