/** The guardrail engine (docs/guardrails.md): pure code, no I/O, no clock, no randomness. */
export { canonicalJson } from './canonical-json.js';
export { callKey, rawCallKey, parseCallArguments, parseToolCall, type ParsedArguments } from './call-key.js';
export { toolSemantics, resolveTool, type ToolSemantics, type ResolvedTool } from './tool-semantics.js';
export {
  DEFAULT_LOOP_GUARD_CONFIG, DEFAULT_LOOP_GUARDRAILS_CONFIG, resolveLoopGuardConfig, resolveLoopGuardrailsConfig,
  type LoopGuardConfig, type LoopGuardrailsConfig,
} from './config.js';
export { RULES, type RuleName } from './rules.js';
export { decisionRecord, describeDecision, type DecisionInput } from './decision-record.js';
export {
  ReplayControl, type CallHistoryEntry, type CallHistoryStatus, type RecordContext, type ReplayControlState,
  type SkipDecision, type SkipEvaluation,
} from './replay-control.js';
export {
  LoopGuard, type AttemptDecision, type AttemptEvaluation, type LoopGuardState, type OutcomeDecision, type OutcomeEvaluation,
} from './loop-guard.js';
export { LoopGuardrails, type LoopGuardrailsState } from './loop-guardrails.js';
export { stepSignature, stepSignatureDigest, describeStep, SIGNATURE_VALUE_LIMIT, type StepCall } from './step-signature.js';
export { evaluateBudget, type BudgetLimits, type BudgetUsage } from './budget-proximity.js';
export { denyUnknownTools, type CallPolicy, type PolicyDecision } from './call-policy.js';
export {
  withoutWarning,
  runToolCalls, toolCalls, type ExecutorResult, type HaltReport, type PipelineItem, type StepToolOutcome, type ToolCallPipelineOptions,
  type ToolCallResult, type ToolExecutor,
} from './tool-call-pipeline.js';
export { GUARDRAIL_STATE_VERSION } from './state-codec.js';
export {
  gateCall, settleCall, denyCall, type CallGates, type CallContext, type GateResult, type PassedCall, type RefusedCall, type SettledCall,
} from './call-gates.js';
export {
  GuardrailSession, resolveGuardrailsConfig, type GuardrailDecision, type GuardrailSessionOptions, type GuardrailsConfig,
  type ResolvedGuardrailsConfig, type StepCheck, type ToolCheck, type ToolFlags, type ToolOutcome, type ToolSettled,
} from './guardrail-session.js';
