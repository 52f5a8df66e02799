/**
 * Tools on replay (docs/recording-and-replay.md). `recorded` (default): a call that is on the tape gets its recorded
 * outcome and nothing runs; a call that is not (after a patch) runs live only when its tool is
 * idempotent and not mutating, otherwise it is denied unless side effects are allowed. `live`: tools
 * run again, but a non-idempotent or mutating one only with `--allow-side-effects` (without it, the
 * recorded outcome is used when there is one, and the call is denied when there is not). `tape`
 * (`agentctl ci`): outcomes come from the tape and nothing ever runs; a call the tape has no outcome
 * for is denied and the replay counts as exhausted there (it needs something the tape does not have)
 * — unless the tape lacks it only because its recording stopped during that call: then the replay
 * has reached the end of an unfinished tape, as when the recording stopped during a model call.
 *
 * In every mode a tool known only by its recorded spec (a custom tool of the tape: its code is never
 * loaded from a tape, replay-tools.ts) never runs: its calls get their recorded outcomes, and one the
 * tape has no outcome for is denied (rule `replay_tool_not_loaded`).
 */
import type { RunEvent, ToolCallEvent, ToolResultEvent } from '../core/events.js';
import type { ToolCall } from '../core/messages.js';
import type { CallPolicy, PolicyDecision } from '../guardrails/index.js';
import { parseToolCall, withoutWarning } from '../guardrails/index.js';
import type { ToolHost, ToolRunResult } from '../agent/tool-host.js';
import type { LoopProgress } from './loop-progress.js';

export interface ReplayToolOptions {
  live: ToolHost;
  /** The tape's events of a step (the one the loop is at, which the replay has loaded). */
  recorded: (step: number) => readonly RunEvent[];
  state: LoopProgress;
  mode: 'recorded' | 'live' | 'tape';
  /** Tools known only by their recorded spec: they never run. */
  recordedOnly: ReadonlySet<string>;
  allowSideEffects: boolean;
  /** Move the replay clock by a recorded tool duration. */
  advance?: (ms: number) => void;
  /**
   * Given only for a tape whose recording never finished: whether it has no events after `step`
   * (its recording stopped in that step).
   */
  recordingStoppedBy?: (step: number) => boolean;
}

export function replayToolHost(options: ReplayToolOptions): ToolHost {
  const { live, state } = options;
  let usedStep = -1;
  const used = new Set<string>();

  /** The recorded result of the first unused call of this step with the same key that really ran. */
  function recordedOutcome(call: ToolCall, consume: boolean): ToolResultEvent | undefined {
    if (usedStep !== state.step) {
      usedStep = state.step;
      used.clear();
    }
    const events = options.recorded(state.step);
    const key = parseToolCall(call).key;
    for (const event of events) {
      if (event.type !== 'tool_call' || event.key !== key || used.has(event.callId)) continue;
      const result = events.find((e): e is ToolResultEvent => e.type === 'tool_result' && e.callId === event.callId);
      if (result === undefined || result.status === 'denied') continue;
      if (consume) used.add(event.callId);
      // What the model saw may end with a failure warning; the pipeline decides about that again.
      const warned = events.find((e) => e.type === 'guardrail' && e.callId === event.callId && e.gate === 'failures' && e.verdict === 'warn');
      if (warned?.type !== 'guardrail') return result;
      return { ...result, output: withoutWarning(result.output, result.tool, warned.counters.after.failures ?? 0) };
    }
    return undefined;
  }

  const sideEffects: CallPolicy = (call, _args, tool) => {
    const risky = !tool.idempotent || tool.mutating;
    // A call with side effects is refused for them; any other call of a tool the replay has no code for, for that.
    const sideEffect = risky && !options.allowSideEffects;
    if (!sideEffect && !options.recordedOnly.has(tool.name)) return undefined;
    if (recordedOutcome(call, false) !== undefined) return undefined;
    if (!sideEffect) return notLoaded(tool.name);
    return {
      verdict: 'block',
      rule: 'replay_side_effects',
      reason: `${tool.name} is not on the tape and has side effects: not run on replay`,
      message: `${tool.name} was not run: this is a replay and the call is not on the tape; it could change things (pass --allow-side-effects to run it).`,
    };
  };

  /** The decision on a call of a tool known only by its recorded spec that the tape has no outcome for. */
  const notLoaded = (tool: string): PolicyDecision => ({
    verdict: 'block',
    rule: 'replay_tool_not_loaded',
    reason: `${tool} is not on the tape, and the replay has only its recorded definition, not its code: not run`,
    message: `${tool} was not run: this is a replay and the call is not on the tape; a custom tool runs on replay only from your own config (--config).`,
  });

  /**
   * Whether the tape has no outcome for this call because its recording stopped during it: the tape
   * is unfinished, has nothing after this step, and holds nothing in it after the call's tool_call
   * but the decisions taken before the call ran (its `failures` decision and its result come after
   * it ran). A call whose tool_call is not on the tape at all was cut before it was written: a
   * replay in step with its tape has matched every event of the step before it with the tape's, so
   * none stands in its place (and one that is not has diverged already, which fails it anyway).
   */
  function stoppedDuring(call: ToolCall): boolean {
    const step = state.step;
    if (options.recordingStoppedBy === undefined || !options.recordingStoppedBy(step)) return false;
    const events = options.recorded(step);
    const key = parseToolCall(call).key;
    const resulted = new Set(events.flatMap((e) => (e.type === 'tool_result' ? [e.callId] : [])));
    const at = events.findIndex((e) => e.type === 'tool_call' && e.key === key && !used.has(e.callId) && !resulted.has(e.callId));
    if (at < 0) return true;
    const { callId } = events[at] as ToolCallEvent;
    return events.slice(at + 1).every((e) => e.type === 'guardrail' && e.callId === callId && e.gate !== 'failures');
  }

  /** The decision on a call the tape has no outcome for, with tools from the tape only. */
  function notOnTape(call: ToolCall, tool: string): PolicyDecision {
    const stopped = stoppedDuring(call);
    state.exhaustedAt ??= state.step;
    // Past the end of an unfinished tape nothing is missing: the replay reproduced all there is.
    if (!stopped) state.missing ??= `the tape has no outcome for ${tool} ${call.function.arguments} at step ${state.step}`;
    return {
      verdict: 'block',
      rule: 'not_on_tape',
      reason: stopped
        ? `${tool}: the tape ends here (its recording stopped during this call): tools never run here`
        : `${tool} has no recorded outcome for these arguments: tools never run here`,
      message: `${tool} was not run: the tape has no outcome for this call, and tools do not run in this replay.`,
    };
  }

  const tapeOnly: CallPolicy = (call, _args, tool) => {
    return recordedOutcome(call, false) === undefined ? notOnTape(call, tool.name) : undefined;
  };

  return {
    lookup: (name) => live.lookup(name),
    definitions: () => live.definitions(),
    policies: [...live.policies, options.mode === 'tape' ? tapeOnly : sideEffects],
    execute(call, args, spec, signal): ToolRunResult | Promise<ToolRunResult> {
      const risky = spec === undefined ? false : !spec.idempotent || spec.mutating;
      const runLive = options.mode === 'live' && !options.recordedOnly.has(call.function.name) ? !risky || options.allowSideEffects : false;
      // A recorded outcome is given as it is: the pipeline then does not wait.
      const recorded = recordedOutcome(call, true);
      if (!runLive && recorded !== undefined && recorded.status !== 'denied') {
        options.advance?.(recorded.durationMs);
        return { status: recorded.status, output: recorded.output, durationMs: recorded.durationMs };
      }
      // The tape policy let the call through only because it has an outcome; nothing runs here.
      if (options.mode === 'tape') return { status: 'error', output: 'not run: no recorded outcome', durationMs: 0 };
      return live.execute(call, args, spec, signal);
    },
  };
}
