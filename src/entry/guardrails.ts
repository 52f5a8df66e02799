/**
 * `agentctl/guardrails`: the guardrail engine (docs/guardrails.md) — pure code, no I/O, no clock —
 * and the decision records it writes.
 */
export {
  canonicalJson, callKey, parseToolCall, ReplayControl, LoopGuard, LoopGuardrails, runToolCalls, RULES,
  type CallPolicy, type DecisionInput, type LoopGuardConfig, type LoopGuardrailsConfig, type PipelineItem, type RuleName,
  type StepCall, type ToolCallPipelineOptions, type ToolExecutor,
} from '../guardrails/index.js';
export { GATES, VERDICTS, type DecisionRecord, type Gate, type Verdict } from '../core/decisions.js';
