/**
 * The per-call rules of docs/guardrails.md §5, as two halves around the run of a tool: `gateCall`
 * (before: arguments, the repeat gate, the dedup gate) and `settleCall` (after: the outcome in both
 * gates, the failure watch, the reset after a mutating success). The built-in loop's pipeline
 * (tool-call-pipeline.ts) and the guardrail session that other agents and the analysis of recorded
 * runs use (guardrail-session.ts) both call these, so a call is judged by one piece of code whoever
 * runs it.
 */
import type { DecisionRecord, Gate, Verdict } from '../core/decisions.js';
import type { ToolCall } from '../core/messages.js';
import type { ToolSpec } from '../core/tools.js';
import { parseToolCall } from './call-key.js';
import { decisionRecord } from './decision-record.js';
import type { LoopGuard, OutcomeDecision } from './loop-guard.js';
import { afterHaltMessage } from './messages.js';
import type { RecordContext, ReplayControl } from './replay-control.js';
import { RULES } from './rules.js';
import { resolveTool, type ResolvedTool } from './tool-semantics.js';

/** One turn's gates, and how a tool name finds its spec. */
export interface CallGates {
  replay: ReplayControl;
  guard: LoopGuard;
  lookup: (name: string) => ToolSpec | undefined;
}

/** Where the call is: its step, and the tool that halted the run earlier in this step, if one did. */
export interface CallContext {
  step?: number | undefined;
  haltedBy?: string | undefined;
}

/** A call the gates let through: what running it needs. */
export interface PassedCall {
  kind: 'run';
  key: string;
  args: Record<string, unknown>;
  resolved: ResolvedTool;
  records: DecisionRecord[];
}

/** A call the gates refused: it does not run, and `output` is what the model receives instead. */
export interface RefusedCall {
  kind: 'refused';
  key: string;
  /** `skip`: a duplicate of an earlier success; `block`: refused (repeat gate, bad arguments, after a halt). */
  verdict: 'skip' | 'block';
  /** `error` for arguments that do not parse (a failure of the tool), else `denied`. */
  status: 'denied' | 'error';
  output: string;
  records: DecisionRecord[];
  /** For a skip: the earlier success it duplicates, as far as it is known. */
  earlier?: { callId?: string; step?: number };
  /** Set when this refusal (a failure of bad arguments) halted the run. */
  halt?: { record: DecisionRecord; message: string };
}

export type GateResult = PassedCall | RefusedCall;

/** How a call that ran ended, in both gates. */
export interface SettledCall {
  record: DecisionRecord;
  decision: OutcomeDecision;
  /** The output as the model receives it: with the failure warning at its end when the watch warned. */
  output: string;
  /** A mutating tool succeeded: both gates forgot what the workspace made stale. */
  stateChanged: boolean;
}

/** The record context of a call: where a later duplicate will say its twin happened. */
export function recordContext(call: ToolCall, key: string, context: CallContext): RecordContext {
  return context.step === undefined ? { callId: call.id, key } : { step: context.step, callId: call.id, key };
}

/**
 * The gates before a call runs, in order: after a halt in its step the call is refused; then its
 * arguments (a bad one is a failure of the tool, counted by the failure watch); the repeat gate
 * (every attempt counts, skipped ones too); the dedup gate (a skip leaves its memory as it is, so
 * identical calls keep being skipped). Every decision is in `records`, allowed ones included.
 */
export function gateCall(call: ToolCall, gates: CallGates, context: CallContext = {}): GateResult {
  const tool = call.function.name;
  const parsed = parseToolCall(call);
  const { key } = parsed;
  if (context.haltedBy !== undefined) {
    const reason = `not run: ${context.haltedBy} halted the run earlier in this step`;
    const record = decide('policy', 'block', RULES.afterHalt, tool, key, reason);
    gates.replay.recordDenied(tool, parsed.ok ? parsed.args : parsed.raw, recordContext(call, key, context));
    return { kind: 'refused', key, verdict: 'block', status: 'denied', output: afterHaltMessage(context.haltedBy), records: [record] };
  }
  if (!parsed.ok) {
    const failure = gates.guard.evaluateOutcome(tool, false);
    const refused: RefusedCall = {
      kind: 'refused', key, verdict: 'block', status: 'error', output: withWarning(parsed.error, failure.decision),
      records: [decide('arguments', 'block', parsed.rule, tool, key, parsed.error), failure.record],
    };
    if (failure.decision.kind === 'halt') refused.halt = { record: failure.record, message: failure.decision.message };
    return refused;
  }
  const { args } = parsed;
  const records = [decide('arguments', 'allow', RULES.validArguments, tool, key, 'arguments parsed')];
  const resolved = resolveTool(tool, gates.lookup);
  const attempt = gates.guard.evaluateAttempt(tool, args, { key });
  records.push(attempt.record);
  if (attempt.decision.kind === 'block') {
    return { kind: 'refused', key, verdict: 'block', status: 'denied', output: attempt.decision.message, records };
  }
  const dedup = gates.replay.evaluate(tool, args, resolved.spec, { key });
  records.push(dedup.record);
  if (dedup.skip) {
    const twin = gates.replay.lookup(tool, args);
    const earlier: { callId?: string; step?: number } = {};
    if (twin?.callId !== undefined) earlier.callId = twin.callId;
    if (twin?.step !== undefined) earlier.step = twin.step;
    return { kind: 'refused', key, verdict: 'skip', status: 'denied', output: dedup.reason ?? dedup.record.reason, records, earlier };
  }
  return { kind: 'run', key, args, resolved, records };
}

/** A call another policy refused after the gates let it through: a denial is remembered, never as a success. */
export function denyCall(call: ToolCall, passed: PassedCall, gates: CallGates, context: CallContext = {}): void {
  gates.replay.recordDenied(call.function.name, passed.args, recordContext(call, passed.key, context));
}

/**
 * The outcome of a call that ran: remembered by the dedup gate, counted by the failure watch
 * (`continue`, `warn` or `halt`), and after a mutating success both gates forget what it made stale
 * — except the mutating call's own key (LoopGuard.noteStateChanged says why).
 */
export function settleCall(
  call: ToolCall, passed: PassedCall, status: 'ok' | 'error' | 'timeout', output: string, gates: CallGates, context: CallContext = {},
): SettledCall {
  const tool = call.function.name;
  const where = recordContext(call, passed.key, context);
  if (status === 'ok') gates.replay.recordSuccess(tool, passed.args, where);
  else if (status === 'timeout') gates.replay.recordTimeout(tool, passed.args, where);
  else gates.replay.recordFailure(tool, passed.args, where);
  const watched = gates.guard.evaluateOutcome(tool, status === 'ok');
  const stateChanged = status === 'ok' && passed.resolved.mutating;
  if (stateChanged) {
    gates.guard.noteStateChanged(passed.key);
    gates.replay.noteStateChanged(passed.key);
  }
  return { record: watched.record, decision: watched.decision, output: withWarning(output, watched.decision), stateChanged };
}

/** A warning goes at the end of the tool message so the model reads it with the result. */
function withWarning(output: string, decision: OutcomeDecision): string {
  if (decision.kind !== 'warn') return output;
  return output === '' ? decision.message : `${output}

${decision.message}`;
}

/** A record of a gate that keeps no counters (arguments, policy); positional to stay cheap. */
export function decide(gate: Gate, verdict: Verdict, rule: string, tool: string, key: string, reason: string): DecisionRecord {
  // The empty counters keep every record the same shape.
  return decisionRecord({ gate, verdict, rule, tool, key, before: {}, after: {}, reason });
}
