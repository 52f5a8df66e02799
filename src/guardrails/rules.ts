/**
 * Stable machine names for every guardrail rule (the `rule` field of a DecisionRecord). They are
 * stored on tapes and matched by scripts reading `--json`, so a name, once shipped, never changes.
 */
export const RULES = {
  // arguments gate (docs/guardrails.md §1, §5 step 1)
  validArguments: 'valid_arguments',
  invalidJson: 'invalid_json',
  nonObjectArguments: 'non_object_arguments',
  // loop_guard gate: identical attempts (docs/guardrails.md §4)
  firstAttempt: 'first_attempt',
  identicalCall: 'identical_call',
  identicalCallBlock: 'identical_call_block',
  // replay_control gate: dedup (docs/guardrails.md §3)
  nonIdempotent: 'non_idempotent',
  firstCall: 'first_call',
  duplicateSuccess: 'duplicate_success',
  retryAfterFailure: 'retry_after_failure',
  retryAfterTimeout: 'retry_after_timeout',
  retryAfterDenial: 'retry_after_denial',
  successBeforeStateChange: 'success_before_state_change',
  // failures gate: consecutive failures per tool (docs/guardrails.md §4)
  failureReset: 'failure_reset',
  consecutiveFailures: 'consecutive_failures',
  consecutiveFailuresWarn: 'consecutive_failures_warn',
  consecutiveFailuresHalt: 'consecutive_failures_halt',
  // policy gate: denials by other policies (docs/guardrails.md §5)
  unknownTool: 'unknown_tool',
  afterHalt: 'after_halt',
  afterStop: 'after_stop',
  policyAllow: 'policy_allow',
  policyBlock: 'policy_block',
  // repetition gate (docs/guardrails.md §6)
  noToolCalls: 'no_tool_calls',
  newToolStep: 'new_tool_step',
  repeatedToolStep: 'repeated_tool_step',
  repetition: 'repetition',
  // max_tokens gate (docs/guardrails.md §6)
  maxTokensRecovery: 'max_tokens_recovery',
  maxTokensExhausted: 'max_tokens_exhausted',
  // budget gate (docs/guardrails.md §6)
  withinBudget: 'within_budget',
  nearTokenBudget: 'near_token_budget',
  nearCostLimit: 'near_cost_limit',
  // Over a hard limit (limits.tokenBudget, limits.costLimit): the built-in loop ends the run
  // (BUDGET_EXCEEDED) with no decision of its own; an analysis names its stop point by these.
  tokenBudgetExceeded: 'token_budget_exceeded',
  costLimitExceeded: 'cost_limit_exceeded',
} as const;

/** One of the rule names above. Policies may add their own names; these are the built-in ones. */
export type RuleName = (typeof RULES)[keyof typeof RULES];
