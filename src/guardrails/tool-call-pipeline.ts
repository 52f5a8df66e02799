import { run, wait, type Co } from '../core/coroutine.js';
import type { DecisionRecord, Gate, Verdict } from '../core/decisions.js';
import type { ToolCall } from '../core/messages.js';
import type { ToolOutcomeStatus, ToolSpec } from '../core/tools.js';
import { parseToolCall } from './call-key.js';
import { decisionRecord } from './decision-record.js';
import type { LoopGuard, OutcomeDecision } from './loop-guard.js';
import { afterHaltMessage, failureWarnMessage } from './messages.js';
import type { CallPolicy } from './call-policy.js';
import type { RecordContext, ReplayControl } from './replay-control.js';
import { RULES } from './rules.js';
import { resolveTool } from './tool-semantics.js';

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
  const { replay, guard } = options;
  const policies = toPolicyList(options.policy);
  const outcome: StepToolOutcome = { results: [], halt: null, stateChanged: false };

  function finish(callId: string, tool: string, status: ToolOutcomeStatus, output: string): PipelineItem {
    outcome.results.push({ callId, tool, status, output });
    return { kind: 'result', callId, tool, status, output };
  }

  for (const call of calls) {
    const callId = call.id;
    const tool = call.function.name;
    const parsed = parseToolCall(call);
    const { key } = parsed;
    const context: RecordContext = options.step === undefined ? { callId, key } : { step: options.step, callId, key };
    yield { kind: 'call', callId, tool, call, key };

    if (outcome.halt !== null) {
      const reason = `not run: ${outcome.halt.tool} halted the run earlier in this step`;
      yield decide(callId, 'policy', 'block', RULES.afterHalt, tool, key, reason);
      replay.recordDenied(tool, parsed.ok ? parsed.args : parsed.raw, context);
      yield finish(callId, tool, 'denied', afterHaltMessage(outcome.halt.tool));
      continue;
    }

    // 1. Arguments.
    if (!parsed.ok) {
      yield decide(callId, 'arguments', 'block', parsed.rule, tool, key, parsed.error);
      const failure = guard.evaluateOutcome(tool, false);
      yield { kind: 'decision', callId, record: failure.record };
      if (failure.decision.kind === 'halt') outcome.halt = { callId, tool, record: failure.record, message: failure.decision.message };
      yield finish(callId, tool, 'error', withWarning(parsed.error, failure.decision));
      continue;
    }
    const { args } = parsed;
    yield decide(callId, 'arguments', 'allow', RULES.validArguments, tool, key, 'arguments parsed');
    const resolved = resolveTool(tool, options.lookup);
    const { spec } = resolved;

    // 2. Identical attempts: every attempt counts, including those the dedup gate will skip.
    const attempt = guard.evaluateAttempt(tool, args, { key });
    yield { kind: 'decision', callId, record: attempt.record };
    if (attempt.decision.kind === 'block') {
      yield finish(callId, tool, 'denied', attempt.decision.message);
      continue;
    }

    // 3. Dedup: a skip leaves ReplayControl as it is, so identical calls keep being skipped.
    const dedup = replay.evaluate(tool, args, spec, { key });
    yield { kind: 'decision', callId, record: dedup.record };
    if (dedup.skip) {
      yield finish(callId, tool, 'denied', dedup.reason ?? dedup.record.reason);
      continue;
    }

    // Other policies (unknown tool, replay's side-effect policy).
    let denial: string | undefined;
    for (const policy of policies) {
      const verdict = yield* wait(policy(call, args, resolved));
      if (verdict === undefined) continue;
      const rule = verdict.rule ?? (verdict.verdict === 'allow' ? RULES.policyAllow : RULES.policyBlock);
      yield decide(callId, 'policy', verdict.verdict, rule, tool, key, verdict.reason);
      if (verdict.verdict === 'block') {
        denial = verdict.message ?? verdict.reason;
        break;
      }
    }
    if (denial !== undefined) {
      replay.recordDenied(tool, args, context);
      yield finish(callId, tool, 'denied', denial);
      continue;
    }

    // 4. Execute, then record the outcome in both gates.
    yield { kind: 'execute', callId, tool, spec };
    const result = yield* wait(options.execute(call, args, spec));
    if (result.status === 'ok') replay.recordSuccess(tool, args, context);
    else if (result.status === 'timeout') replay.recordTimeout(tool, args, context);
    else replay.recordFailure(tool, args, context);
    const watched = guard.evaluateOutcome(tool, result.status === 'ok');
    yield { kind: 'decision', callId, record: watched.record };
    if (watched.decision.kind === 'halt') outcome.halt = { callId, tool, record: watched.record, message: watched.decision.message };
    yield finish(callId, tool, result.status, withWarning(result.output, watched.decision));

    if (result.status === 'ok' && resolved.mutating) {
      // The mutating call's own key survives the reset: see LoopGuard.noteStateChanged.
      guard.noteStateChanged(key);
      replay.noteStateChanged(key);
      outcome.stateChanged = true;
      yield { kind: 'state_changed', callId, tool };
    }
  }

  yield { kind: 'end', outcome };
  return outcome;
}

/** A warning goes at the end of the tool message so the model reads it with the result. */
function withWarning(output: string, decision: OutcomeDecision): string {
  if (decision.kind !== 'warn') return output;
  return output === '' ? decision.message : `${output}

${decision.message}`;
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

/** A record of a gate that keeps no counters (arguments, policy); positional to stay cheap. */
function decide(
  callId: string, gate: Gate, verdict: Verdict, rule: string, tool: string, key: string, reason: string,
): PipelineItem {
  // The empty counters keep every record the same shape.
  return { kind: 'decision', callId, record: decisionRecord({ gate, verdict, rule, tool, key, before: {}, after: {}, reason }) };
}

function toPolicyList(policy: ToolCallPipelineOptions['policy']): readonly CallPolicy[] {
  if (policy === undefined) return [];
  return typeof policy === 'function' ? [policy] : policy;
}
