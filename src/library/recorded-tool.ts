/**
 * recordTool: a library agent's tool function, recorded and replayed with the policy of
 * `agentctl replay`. While recording, each call is written as `tool_call` (its arguments, redacted,
 * and their key) and `tool_result` (the value it returned, as JSON, or the error it threw). On
 * replay, a call recorded with the same arguments (in order among equal ones) gets its recorded
 * outcome and nothing runs; a call the tape does not have runs only when the tool is idempotent and
 * not mutating, or when side effects are allowed — otherwise it throws ToolNotReplayedError.
 */
import { AgentctlError } from '../core/errors.js';
import type { Redactor } from '../core/redact.js';
import { canonicalJson } from '../guardrails/canonical-json.js';
import { callKey } from '../guardrails/call-key.js';
import type { TapeToolOutcome } from '../replay/call-tape.js';
import type { RecordingSession } from './recording-session.js';

/** What a tool does, as agentctl's replay policy needs to know it. */
export interface ToolPolicy {
  /** Calling it twice with the same arguments does no more than once. Default false. */
  idempotent?: boolean;
  /** It changes something outside the agent (files, messages, payments). Default true. */
  mutating?: boolean;
  /**
   * Which arguments are the call's: `first` (default) — agent frameworks call a tool with its input
   * and then their own context (openai-agents-js: the run context; the Vercel AI SDK: the messages
   * and ids), which is neither the call's content nor safe to write down; `all` for a plain function
   * of several arguments.
   */
  arguments?: 'first' | 'all';
}

/** Any async (or sync) function of JSON-able arguments. */
export type ToolFunction = (...args: never[]) => unknown;

/** A replayed call that the tape has no outcome for, of a tool that may not run again. */
export class ToolNotReplayedError extends AgentctlError {
  constructor(tool: string) {
    super(
      `agentctl replay: the tape has no outcome for this call of '${tool}', and it is not run again on replay (it is mutating or not idempotent; pass allowSideEffects to run it)`,
      'AGENTCTL_TOOL_NOT_REPLAYED',
    );
    this.name = 'ToolNotReplayedError';
  }
}

/** The arguments as recorded: the first as itself, or all of them as an array. */
function argumentsOf(args: readonly unknown[], policy: ToolPolicy): unknown {
  if (policy.arguments === 'all') return args.length === 1 ? args[0] : [...args];
  return args[0];
}

/**
 * A returned value as the tape keeps it: its JSON (big integers as text). A value JSON cannot hold
 * (a cycle, a function) is kept as its text, and a replay returns that text.
 */
function outputOf(value: unknown): string {
  if (value === undefined) return 'null';
  try {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
  } catch {
    return JSON.stringify(String(value));
  }
}

/** Wrap `fn` so its calls are recorded onto the session's run. */
export function recordingTool<F extends ToolFunction>(session: RecordingSession, redact: Redactor, name: string, fn: F, policy: ToolPolicy = {}): F {
  const wrapped = async (...args: Parameters<F>): Promise<unknown> => {
    // The session numbers the calls: however many wrappers of `name` there are, each id is the run's only one.
    const callId = session.toolCallId(name);
    const safe = redact(argumentsOf(args, policy));
    const step = session.currentStep;
    await session.start({ model: 'unknown' });
    await session.write({ type: 'tool_call', step, callId, tool: name, arguments: canonicalJson(safe ?? null), key: callKey(name, safe ?? null) });
    const started = session.clock.now();
    let value: unknown;
    try {
      value = await fn(...args);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await session.write({ type: 'tool_result', step, callId, tool: name, status: 'error', output: message, durationMs: session.clock.now() - started });
      throw error;
    }
    // The tool succeeded: the agent gets its value, whatever the tape can keep of it.
    await session.write({ type: 'tool_result', step, callId, tool: name, status: 'ok', output: outputOf(value), durationMs: session.clock.now() - started });
    return value;
  };
  return wrapped as unknown as F;
}

/** Wrap `fn` so a replay answers its calls from the tape (see the module comment). */
export function replayingTool<F extends ToolFunction>(
  outcomes: readonly TapeToolOutcome[],
  used: Set<TapeToolOutcome>,
  redact: Redactor,
  name: string,
  fn: F,
  policy: ToolPolicy,
  allowSideEffects: boolean,
): F {
  const wrapped = async (...args: Parameters<F>): Promise<unknown> => {
    const key = callKey(name, redact(argumentsOf(args, policy)) ?? null);
    const recorded = outcomes.find((o) => !used.has(o) && o.call.tool === name && o.call.key === key && o.result !== undefined);
    if (recorded?.result !== undefined) {
      used.add(recorded);
      if (recorded.result.status !== 'ok') throw new Error(recorded.result.output);
      return JSON.parse(recorded.result.output) as unknown;
    }
    const safe = policy.idempotent === true && policy.mutating === false;
    if (!safe && !allowSideEffects) throw new ToolNotReplayedError(name);
    return fn(...args);
  };
  return wrapped as unknown as F;
}
