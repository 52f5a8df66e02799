import { run, wait, type Co } from '../core/coroutine.js';
import type { DecisionRecord } from '../core/decisions.js';
import type { ToolCall } from '../core/messages.js';
import type { ToolOutcomeStatus, ToolSpec } from '../core/tools.js';
import { decide, denyCall, gateCall, settleCall, type CallContext, type CallGates } from './call-gates.js';
import type { LoopGuard } from './loop-guard.js';
import { failureWarnMessage } from './messages.js';
import type { CallPolicy } from './call-policy.js';
import type { ReplayControl } from './replay-control.js';
import { RULES } from './rules.js';

/** What an executor reports; denials never reach it. */
export interface ExecutorResult {
  status: 'ok' | 'error' | 'timeout';
  output: string;
}

/** Runs one call that passed every gate, enforcing `spec.timeoutMs` itself; an outcome in hand may be returned as it is. */
export type ToolExecutor = (call: ToolCall, args: Record<string, unknown>, spec: ToolSpec | undefined) => ExecutorResult | Promise<ExecutorResult>;

/** How one call of the step ended, in the form the loop turns into a tool message. */
export interface ToolCallResult {
  callId: string;
  tool: string;
  status: ToolOutcomeStatus;
  /** The tool message content: the output, a denial text, or the output plus a warning. */
  output: string;
}

/** The call whose failures halted the run. */
export interface HaltReport {
  callId: string;
  tool: string;
  record: DecisionRecord;
  /** The halt text: the run's end reason, or the nudge the loop injects when haltNudges allow. */
  message: string;
}

/** What the step's calls amounted to. */
export interface StepToolOutcome {
  /** One per call, in the order of the calls. */
  results: ToolCallResult[];
  /** Set when a call's consecutive failures reached the halt threshold. */
  halt: HaltReport | null;
  /** True when a mutating tool succeeded (both gates' memories were reset). */
  stateChanged: boolean;
}

/** One thing that happened, yielded as it happens so a UI can show it at once. */
export type PipelineItem =
  | { kind: 'call'; callId: string; tool: string; call: ToolCall; key: string }
  | { kind: 'decision'; callId: string; record: DecisionRecord }
  | { kind: 'execute'; callId: string; tool: string; spec: ToolSpec | undefined }
  | { kind: 'result'; callId: string; tool: string; status: ToolOutcomeStatus; output: string }
  | { kind: 'state_changed'; callId: string; tool: string }
  | { kind: 'end'; outcome: StepToolOutcome };

/** What the pipeline needs; `replay` and `guard` are the turn's, shared across its steps. */
export interface ToolCallPipelineOptions {
  lookup: (name: string) => ToolSpec | undefined;
  replay: ReplayControl;
  guard: LoopGuard;
  execute: ToolExecutor;
  /** Other policies, asked in order after the dedup gate; the first `block` denies the call. */
  policy?: CallPolicy | readonly CallPolicy[];
  /** The loop step, remembered with each outcome so a later duplicate can name it. */
  step?: number;
}

/**
 * The per-call pipeline of docs/guardrails.md §5 for one step's tool calls, in order: parse the arguments, count
 * the attempt (LoopGuard), deduplicate (ReplayControl), ask the other policies, execute, record the
 * outcome in both gates, and reset both after a mutating tool succeeds. Every gate's decision is
 * yielded, allowed ones and near-misses included; the executor is never called for a denied call.
 *
 * Invalid arguments are a tool error without running; they also count as a failure of that tool,
 * so a model that keeps sending broken JSON to a tool is warned and then halted like any other.
 *
 * After a halt, the remaining calls of the step are not run: each is denied (policy gate, rule
 * `after_halt`) and recorded with ReplayControl.recordDenied, so nothing else happens after the
 * run was told to stop, and a continuation granted by haltNudges may retry them. The halting call
 * itself gets its own output; the halt text goes to the loop through `halt`, not into the output.
 *
 * The last item is `{ kind: 'end', outcome }`; the same outcome is the generator's return value.
 * An executor that throws ends the generator with that error: the pipeline does not guess at what
 * a broken executor did.
 */
export function runToolCalls(
  calls: readonly ToolCall[],
  options: ToolCallPipelineOptions,
): AsyncGenerator<PipelineItem, StepToolOutcome, void> {
  return run(toolCalls(calls, options));
}

/** `runToolCalls` as a coroutine (core/coroutine.ts), for the loop. */
export function* toolCalls(
  calls: readonly ToolCall[],
  options: ToolCallPipelineOptions,
): Co<PipelineItem, StepToolOutcome> {
  const gates: CallGates = { replay: options.replay, guard: options.guard, lookup: options.lookup };
  const policies = toPolicyList(options.policy);
  const outcome: StepToolOutcome = { results: [], halt: null, stateChanged: false };

  function finish(callId: string, tool: string, status: ToolOutcomeStatus, output: string): PipelineItem {
    outcome.results.push({ callId, tool, status, output });
    return { kind: 'result', callId, tool, status, output };
  }

  for (const call of calls) {
    const callId = call.id;
    const tool = call.function.name;
    const context: CallContext = { step: options.step, haltedBy: outcome.halt?.tool };
    const gated = gateCall(call, gates, context);
    yield { kind: 'call', callId, tool, call, key: gated.key };
    for (const record of gated.records) yield { kind: 'decision', callId, record };
    if (gated.kind === 'refused') {
      if (gated.halt !== undefined) outcome.halt = { callId, tool, record: gated.halt.record, message: gated.halt.message };
      yield finish(callId, tool, gated.status, gated.output);
      continue;
    }

    // Other policies (unknown tool, replay's side-effect policy).
    let denial: string | undefined;
    for (const policy of policies) {
      const verdict = yield* wait(policy(call, gated.args, gated.resolved));
      if (verdict === undefined) continue;
      const rule = verdict.rule ?? (verdict.verdict === 'allow' ? RULES.policyAllow : RULES.policyBlock);
      yield { kind: 'decision', callId, record: decide('policy', verdict.verdict, rule, tool, gated.key, verdict.reason) };
      if (verdict.verdict === 'block') {
        denial = verdict.message ?? verdict.reason;
        break;
      }
    }
    if (denial !== undefined) {
      denyCall(call, gated, gates, context);
      yield finish(callId, tool, 'denied', denial);
      continue;
    }

    // Execute, then record the outcome in both gates.
    const { spec } = gated.resolved;
    yield { kind: 'execute', callId, tool, spec };
    const result = yield* wait(options.execute(call, gated.args, spec));
    const settled = settleCall(call, gated, result.status, result.output, gates, context);
    yield { kind: 'decision', callId, record: settled.record };
    if (settled.decision.kind === 'halt') outcome.halt = { callId, tool, record: settled.record, message: settled.decision.message };
    yield finish(callId, tool, result.status, settled.output);
    if (settled.stateChanged) {
      outcome.stateChanged = true;
      yield { kind: 'state_changed', callId, tool };
    }
  }

  yield { kind: 'end', outcome };
  return outcome;
}

/**
 * The tool's own output from what the model saw: a recorded result that carried a failure warning
 * (its decision warned at `failures`) without that warning, so a replay that returns the recorded
 * outcome lets the pipeline decide about the warning again instead of adding a second one.
 */
export function withoutWarning(shown: string, tool: string, failures: number): string {
  const message = failureWarnMessage(tool, failures);
  if (shown === message) return '';
  const suffix = `\n\n${message}`;
  return shown.endsWith(suffix) ? shown.slice(0, -suffix.length) : shown;
}

function toPolicyList(policy: ToolCallPipelineOptions['policy']): readonly CallPolicy[] {
  if (policy === undefined) return [];
  return typeof policy === 'function' ? [policy] : policy;
}
