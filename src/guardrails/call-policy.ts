import type { ToolCall } from '../core/messages.js';
import { unknownToolMessage } from './messages.js';
import { RULES } from './rules.js';
import type { ResolvedTool } from './tool-semantics.js';

/** A policy's answer about one call. */
export interface PolicyDecision {
  verdict: 'allow' | 'block';
  /** Stable snake_case rule name; defaults to `policy_allow` / `policy_block`. */
  rule?: string;
  /** One line for the step log. */
  reason: string;
  /** The text the model receives when blocked; defaults to `reason`. */
  message?: string;
}

/**
 * A policy beyond the built-in gates: an unknown tool, replay's side-effect rules. Return
 * undefined to have no opinion (nothing is recorded); a decision is recorded under the `policy`
 * gate, and a `block` denies the call (ReplayControl.recordDenied, executor not called).
 */
export type CallPolicy = (
  call: ToolCall,
  args: Record<string, unknown>,
  tool: ResolvedTool,
) => PolicyDecision | undefined | Promise<PolicyDecision | undefined>;

/** Denies calls to tools the registry does not know, instead of handing them to the executor. */
export const denyUnknownTools: CallPolicy = (_call, _args, tool) =>
  tool.registryMiss
    ? { verdict: 'block', rule: RULES.unknownTool, reason: `no tool named ${tool.name}`, message: unknownToolMessage(tool.name) }
    : undefined;
