/**
 * createGuardrails: the built-in loop's guardrails for any agent's loop (docs/guardrails.md, "Any
 * agent"). A GuardrailSession with the calls in the shapes agents have them (an id, a name, and
 * arguments as JSON text or as an object), and `guard`, which runs one call through the gates,
 * one call at a time in the order the calls were made — so a framework that runs a step's tools
 * at once gets the decisions a recorded run's analysis and the built-in loop make, which take the
 * calls in order.
 */
import { InvalidOptionError } from '../core/errors.js';
import type { ToolCall } from '../core/messages.js';
import type { Redactor } from '../core/redact.js';
import { parseToolCall } from '../guardrails/call-key.js';
import { canonicalJson } from '../guardrails/canonical-json.js';
import {
  GuardrailSession, type GuardrailDecision, type GuardrailsConfig, type ResolvedGuardrailsConfig, type StepCheck, type ToolCheck,
  type ToolOutcome, type ToolSettled,
} from '../guardrails/guardrail-session.js';
import { DecisionWriter, finishedRunError } from './decision-writer.js';
import { internalsOf, type SessionInternals } from './session-internals.js';
import type { TapeSession } from './tape-options.js';

/** A tool call as an agent has it: `arguments` as the model's JSON text, or already parsed. */
export interface GuardedCall {
  /** The model's id for the call (tool_call_id, call_id, tool_use id). */
  id: string;
  name: string;
  arguments: string | unknown;
}

export interface GuardrailsOptions extends GuardrailsConfig {
  /** Told of every decision as it is made. */
  onDecision?: (decision: GuardrailDecision) => void;
  /**
   * The session the agent is recorded with (what record(), withTape() or recordOpenAI() gave). When it
   * records, every decision is written onto its run as a `guardrail` event, at the step of the model
   * call that asked for the call; the calls are judged as the tape keeps them (redacted), and
   * startStep numbers its step by the run's model calls. A replay writes nothing.
   */
  tape?: Omit<TapeSession, 'fetch'>;
}

/** What `guard` did with a call. */
export type GuardedRun<T> =
  | { action: 'ran'; value: T; settled: ToolSettled }
  /** A duplicate of an earlier success: not run, `value` is what the earlier call returned. */
  | { action: 'skip'; value: T; message: string }
  /**
   * Refused, or a duplicate whose twin's value it cannot be given (the two differ in a secret the
   * tape redacts, or guard() did not run the twin): not run, `message` is for the model in place of a result.
   */
  | { action: 'block'; message: string };

export interface Guardrails {
  readonly config: Readonly<ResolvedGuardrailsConfig>;
  /** Every decision so far, in order. */
  readonly decisions: readonly GuardrailDecision[];
  /** Set once the guardrails stopped the run: the rule and why. */
  readonly stopped: { rule: string; reason: string } | null;
  /** The step the next decisions belong to. */
  readonly step: number;
  /**
   * The repetition check of a step whose calls are known before they run; `stop`: do not run them.
   * With a `tape` that records, the step is numbered by the run's model calls (the one that asked).
   */
  startStep(calls: readonly GuardedCall[]): StepCheck;
  beforeTool(call: GuardedCall): ToolCheck;
  afterTool(call: GuardedCall, outcome: ToolOutcome): ToolSettled;
  /** The step is over: `stop` ends the run (repetition, or failures past the halt with no nudge left). */
  endStep(): StepCheck;
  /** A new user message: the per-turn gates start afresh. */
  newTurn(): void;
  /**
   * Run one call through the guardrails: `run` is called only when the gates allow it, after every
   * call guarded before it has settled (and, with a `tape` that records, once the decisions about it
   * are written). A throw of `run` is the call's failure (counted, then thrown on); a skip gives back
   * what the earlier identical call returned. `outcome` says how a value `run` returned ended, for a
   * tool that reports a failure in what it returns (default: `ok`, the value as text).
   */
  guard<T>(call: GuardedCall, run: () => T | Promise<T>, outcome?: (value: T) => ToolOutcome): Promise<GuardedRun<T>>;
}

/** The call as the gates read it: the arguments as JSON text. */
export function toolCallOf(call: GuardedCall): ToolCall {
  const text = typeof call.arguments === 'string' ? call.arguments : canonicalJson(call.arguments ?? {});
  return { id: call.id, type: 'function', function: { name: call.name, arguments: text } };
}

/** The session's internals; a `tape` agentctl did not make (a copy of a session) is refused, not ignored. */
function tapeInternals(tape: GuardrailsOptions['tape']): SessionInternals | undefined {
  if (tape === undefined) return undefined;
  const inner = typeof tape === 'object' && tape !== null ? internalsOf(tape) : undefined;
  if (inner !== undefined) return inner;
  throw new InvalidOptionError('createGuardrails: `tape` is not a session agentctl opened', {
    hint: 'pass what record(), replay(), withTape() or recordOpenAI() gave, itself: a copy of it does not record',
  });
}

/** The guardrails of one run, configured with the `guardrails.*` settings (docs/guardrails.md, "Settings"). */
export function createGuardrails(options: GuardrailsOptions = {}): Guardrails {
  const decisions: GuardrailDecision[] = [];
  const { onDecision, tape, ...config } = options;
  if (onDecision !== undefined && typeof onDecision !== 'function') throw new InvalidOptionError('createGuardrails: `onDecision` must be a function');
  const inner = tapeInternals(tape);
  const recording = inner?.recording;
  if (recording?.isFinished === true) throw finishedRunError(recording.runId);
  const writer = recording === undefined ? undefined : new DecisionWriter(recording);
  // The calls as the tape keeps them, so the keys and texts of the decisions are the recording's.
  const redact: Redactor | undefined = inner?.redact;
  const judged = (call: GuardedCall): ToolCall => (redact === undefined ? toolCallOf(call) : redact(toolCallOf(call)));
  const session = new GuardrailSession(config, {
    onDecision: (decision) => {
      decisions.push(decision);
      writer?.write(decision);
      onDecision?.(decision);
    },
  });
  // What each successful call returned, by call id, with the key of its arguments as given (not
  // redacted), so a duplicate is given its twin's value only when it is the very same call.
  const values = new Map<string, { value: unknown; key: string }>();
  const givenKey = (call: GuardedCall): string => parseToolCall(toolCallOf(call)).key;
  let queue: Promise<unknown> = Promise.resolve();

  const guardrails: Guardrails = {
    config: session.config,
    decisions,
    get stopped() {
      return session.stop;
    },
    get step() {
      return session.step;
    },
    startStep: (calls) => session.startStep(calls.map(judged), recording?.currentStep),
    beforeTool: (call) => session.beforeTool(judged(call)),
    afterTool: (call, outcome) => session.afterTool(judged(call), outcome),
    endStep: () => session.endStep(),
    newTurn: () => {
      values.clear();
      session.newTurn();
    },
    guard<T>(call: GuardedCall, run: () => T | Promise<T>, outcome?: (value: T) => ToolOutcome): Promise<GuardedRun<T>> {
      const turn = queue.then(async (): Promise<GuardedRun<T>> => {
        const asked = judged(call);
        const check = session.beforeTool(asked);
        // On the tape before the tool runs; a write that failed stops here, before any side effect.
        await writer?.written();
        if (check.action === 'block') return { action: 'block', message: check.message };
        if (check.action === 'skip') {
          const earlier = check.earlier.callId === undefined ? undefined : values.get(check.earlier.callId);
          // The gates judge the calls as the tape keeps them: two that differ only in a secret it
          // redacts are one call to them. Its twin's value would be another call's answer — the
          // model is told of the duplicate instead, as the built-in loop tells it. So is a call whose
          // twin guard() did not run (its value is not known).
          if (earlier === undefined || earlier.key !== givenKey(call)) return { action: 'block', message: check.message };
          return { action: 'skip', value: earlier.value as T, message: check.message };
        }
        let value: T;
        try {
          value = await run();
        } catch (error) {
          session.afterTool(asked, { status: 'error', output: error instanceof Error ? error.message : text(error) });
          // The tool's error is the one to see; a write that failed is the session's finish() to report.
          await writer?.written().catch(() => undefined);
          throw error;
        }
        values.set(call.id, { value, key: givenKey(call) });
        const settled = session.afterTool(asked, outcome?.(value) ?? { status: 'ok', output: outputText(value) });
        await writer?.written();
        return { action: 'ran', value, settled };
      });
      // The next call waits for this one to settle, whatever became of it.
      queue = turn.catch(() => undefined);
      return turn;
    },
  };
  return guardrails;
}

/** A returned value as the failure watch's warning is appended to it: text as it is, anything else as JSON. */
function outputText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return text(value);
  }
}

/** String(value), or for a value that has no text (an object without a prototype, a toString that throws) its tag. */
function text(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
