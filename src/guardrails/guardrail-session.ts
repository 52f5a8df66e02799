/**
 * The guardrails of one agent run, driven from outside: by a hand-written loop or a framework adapter
 * (live), or by the analysis of a recorded run (offline). The rules are the built-in loop's — the
 * per-call gates of call-gates.ts and the step guardrails of LoopGuardrails — with the same settings
 * (`guardrails.*`), so a threshold tuned on recorded runs is the one a live run enforces.
 *
 * A run is a sequence of steps (one model answer each) grouped in turns (one user message each).
 * The driver says what happens in the order it happens:
 *
 *   startStep(calls)?  → the repetition check, before the calls run, when the driver sees them all
 *   beforeTool(call)   → allow, skip (a duplicate of an earlier success) or block
 *   afterTool(call, outcome)
 *   endStep()          → continue, or stop (repetition, or a tool that kept failing)
 *   newTurn()          → a new user message: the per-turn memories start afresh
 *
 * A driver that cannot see a step's calls before they run (a framework that runs each tool as the
 * model names it) leaves startStep out: the calls are gathered as they come and the repetition check
 * runs in endStep, after them. Every decision is reported, allowed ones and near-misses included,
 * with the step it belongs to and the call it is about.
 */
import type { DecisionRecord } from '../core/decisions.js';
import { InvalidOptionError } from '../core/errors.js';
import type { ToolCall } from '../core/messages.js';
import type { ToolSpec } from '../core/tools.js';
import { denyCall, gateCall, settleCall, type CallContext, type CallGates, type PassedCall } from './call-gates.js';
import { parseToolCall } from './call-key.js';
import { DEFAULT_LOOP_GUARD_CONFIG, DEFAULT_LOOP_GUARDRAILS_CONFIG, type LoopGuardConfig, type LoopGuardrailsConfig } from './config.js';
import { decisionRecord } from './decision-record.js';
import type { BudgetLimits, BudgetUsage } from './budget-proximity.js';
import { LoopGuard } from './loop-guard.js';
import { LoopGuardrails } from './loop-guardrails.js';
import { ReplayControl } from './replay-control.js';
import { RULES } from './rules.js';
import type { StepCall } from './step-signature.js';

/** What the guardrails need to know about a tool (docs/guardrails.md §2). Left out: the defaults of a tool with no spec. */
export interface ToolFlags {
  /** The same arguments have the same effect: an identical second call is a duplicate. */
  idempotent?: boolean;
  /** A success changes the world the other calls read: what they returned before is stale. */
  mutating?: boolean;
}

/** The settings, named as the config's `guardrails.*` keys; each left out takes its default. */
export interface GuardrailsConfig extends Partial<LoopGuardConfig>, Partial<LoopGuardrailsConfig> {
  /** Halts turned into a message to the model instead of the end of the run. */
  haltNudges?: number;
  /**
   * Tools by name. A tool not named here has the defaults of a tool with no spec (idempotent, not
   * mutating); one named without a flag is taken as not idempotent and mutating, as a custom tool is.
   */
  tools?: Readonly<Record<string, ToolFlags>>;
}

/** A decision with where it was made: the step, and the call it is about when it is about one. */
export type GuardrailDecision = DecisionRecord & { step: number; callId?: string };

/** What to do with a call before it runs. */
export type ToolCheck =
  | { action: 'allow'; decisions: GuardrailDecision[] }
  /** A duplicate of an earlier success: `earlier` names it, `message` is what the built-in loop tells the model. */
  | { action: 'skip'; message: string; earlier: { callId?: string; step?: number }; decisions: GuardrailDecision[] }
  /** Refused: `message` is for the model, in place of the tool's result. */
  | { action: 'block'; message: string; decisions: GuardrailDecision[] };

/** What the outcome of a call that ran came to. */
export interface ToolSettled {
  /** `warn` appends a warning to what the model receives; `halt` stops the run at the end of the step. */
  verdict: 'continue' | 'warn' | 'halt';
  /** The output as the model should receive it: with the warning at its end when there is one. */
  output: string;
  decisions: GuardrailDecision[];
}

/** Whether the run goes on after a step. */
export type StepCheck =
  | { action: 'continue'; decisions: GuardrailDecision[]; nudge?: string }
  | { action: 'stop'; rule: string; reason: string; decisions: GuardrailDecision[] };

/** A call's outcome as the driver saw it. */
export interface ToolOutcome {
  status: 'ok' | 'error' | 'timeout';
  output?: string;
}

export interface GuardrailSessionOptions {
  /** Told of every decision as it is made. */
  onDecision?: (decision: GuardrailDecision) => void;
  /** Looks a tool up before `config.tools`; for a driver that has full specs (the analysis of a built-in-loop run). */
  lookup?: (name: string) => ToolSpec | undefined;
}

/** Every setting with its value: the defaults filled in, each checked. */
export type ResolvedGuardrailsConfig = LoopGuardConfig & LoopGuardrailsConfig & { haltNudges: number };

/** The settings a GuardrailsConfig may name: the config's `guardrails.*` keys, and `tools`. */
const SETTINGS: ReadonlySet<string> = new Set([...Object.keys(DEFAULT_LOOP_GUARD_CONFIG), ...Object.keys(DEFAULT_LOOP_GUARDRAILS_CONFIG), 'haltNudges', 'tools']);

/**
 * The settings with their defaults; a bad value is an InvalidOptionError naming its `guardrails.*`
 * key. A key that is no setting is one too: a misspelt threshold would otherwise be its default,
 * unnoticed; so is a tool flag other than true or false, which would read as whatever it is truthy as.
 */
export function resolveGuardrailsConfig(config: GuardrailsConfig = {}): ResolvedGuardrailsConfig {
  for (const key of Object.keys(config)) {
    if (!SETTINGS.has(key)) throw new InvalidOptionError(`guardrails.${key} is not a guardrails setting`, { hint: `the settings: ${[...SETTINGS].join(', ')}` });
  }
  checkToolFlags(config.tools);
  const haltNudges = config.haltNudges ?? 0;
  if (!(Number.isInteger(haltNudges) && haltNudges >= 0)) {
    throw new InvalidOptionError(`guardrails.haltNudges must be a non-negative integer, got ${JSON.stringify(haltNudges) ?? String(haltNudges)}`);
  }
  // The classes check their own keys.
  const loop = new LoopGuard(config).config;
  const session = new LoopGuardrails(config).config;
  return { ...DEFAULT_LOOP_GUARD_CONFIG, ...loop, ...DEFAULT_LOOP_GUARDRAILS_CONFIG, ...session, haltNudges };
}

/** `tools`: by name, each tool's flags, each true, false or left out. */
function checkToolFlags(tools: unknown): void {
  if (tools === undefined) return;
  if (!isRecord(tools)) throw new InvalidOptionError(`guardrails.tools must be an object of tools by name, got ${shown(tools)}`);
  for (const [name, flags] of Object.entries(tools)) {
    if (!isRecord(flags)) throw new InvalidOptionError(`guardrails.tools.${name} must be an object of flags (idempotent, mutating), got ${shown(flags)}`);
    for (const [flag, value] of Object.entries(flags)) {
      if (flag !== 'idempotent' && flag !== 'mutating') throw new InvalidOptionError(`guardrails.tools.${name}.${flag} is not a tool flag: idempotent or mutating`);
      if (value !== undefined && typeof value !== 'boolean') throw new InvalidOptionError(`guardrails.tools.${name}.${flag} must be true or false, got ${shown(value)}`);
    }
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** A bad value as the message quotes it (JSON when it has one, else its kind). */
function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/** A tool's spec from its flags: a named tool's missing flags are the cautious ones. */
function specOf(name: string, flags: ToolFlags): ToolSpec {
  return { name, description: '', parameters: {}, idempotent: flags.idempotent ?? false, mutating: flags.mutating ?? true, timeoutMs: 0 };
}

export class GuardrailSession {
  readonly config: Readonly<ResolvedGuardrailsConfig>;
  private readonly guardrails: LoopGuardrails;
  private readonly lookup: (name: string) => ToolSpec | undefined;
  private readonly onDecision: ((decision: GuardrailDecision) => void) | undefined;
  private gates!: CallGates;
  private currentStep = 0;
  /** The step's calls so far, for a repetition check at its end; null once startStep checked the step. */
  private gathered: StepCall[] | null = [];
  private haltedBy: { tool: string; message: string } | null = null;
  private stopped: { rule: string; reason: string } | null = null;
  private nudgesUsed = 0;
  private readonly passed = new Map<string, PassedCall>();

  constructor(config: GuardrailsConfig = {}, options: GuardrailSessionOptions = {}) {
    this.config = Object.freeze(resolveGuardrailsConfig(config));
    this.guardrails = new LoopGuardrails(this.config);
    const specs = new Map(Object.entries(config.tools ?? {}).map(([name, flags]) => [name, specOf(name, flags)]));
    const lookup = options.lookup;
    this.lookup = (name) => lookup?.(name) ?? specs.get(name);
    this.onDecision = options.onDecision;
    this.newTurn();
  }

  /** The step the next decisions belong to (0-based: the model answer that asked for the calls). */
  get step(): number {
    return this.currentStep;
  }

  /** Set when the guardrails stopped the run: the rule and why. */
  get stop(): { rule: string; reason: string } | null {
    return this.stopped;
  }

  /** A new user message: the dedup and repeat gates start afresh (their memory is one turn's). */
  newTurn(): void {
    this.gates = { replay: new ReplayControl(), guard: new LoopGuard(this.config), lookup: this.lookup };
    this.passed.clear();
  }

  /**
   * The repetition check of a step whose calls are all known before any runs (docs/guardrails.md §6).
   * `step` numbers it when the driver counts steps itself (a step without tool calls counts too).
   * A `stop` means the calls must not run: the run ends.
   */
  startStep(calls: readonly ToolCall[], step?: number): StepCheck {
    this.beginStep(step);
    this.gathered = null;
    if (this.stopped !== null) return { action: 'stop', rule: this.stopped.rule, reason: this.stopped.reason, decisions: [] };
    if (calls.length === 0) return { action: 'continue', decisions: [] };
    return this.checkRepetition(calls.map(stepCall));
  }

  /** The gates before a call runs (docs/guardrails.md §5 steps 1–3). */
  beforeTool(call: ToolCall): ToolCheck {
    this.gathered?.push(stepCall(call));
    const tool = call.function.name;
    if (this.stopped !== null) {
      const reason = `not run: the guardrails stopped the run (${this.stopped.rule})`;
      const record = decisionRecord({ gate: 'policy', verdict: 'block', rule: RULES.afterStop, tool, key: parseToolCall(call).key, before: {}, after: {}, reason });
      return { action: 'block', message: `Not run: the run was stopped: ${this.stopped.reason}`, decisions: [this.report(record, call.id)] };
    }
    const gated = gateCall(call, this.gates, this.context());
    const decisions = gated.records.map((record) => this.report(record, call.id));
    if (gated.kind === 'run') {
      this.passed.set(call.id, gated);
      return { action: 'allow', decisions };
    }
    if (gated.halt !== undefined) this.haltedBy ??= { tool, message: gated.halt.message };
    if (gated.verdict === 'skip') return { action: 'skip', message: gated.output, earlier: gated.earlier ?? {}, decisions };
    return { action: 'block', message: gated.output, decisions };
  }

  /** How a call that beforeTool allowed ended: remembered, counted, and a mutating success resets the gates. */
  afterTool(call: ToolCall, outcome: ToolOutcome): ToolSettled {
    const passed = this.passed.get(call.id);
    if (passed === undefined) throw new InvalidOptionError(`afterTool: call ${JSON.stringify(call.id)} was not allowed by beforeTool (or was settled already)`);
    this.passed.delete(call.id);
    const settled = settleCall(call, passed, outcome.status, outcome.output ?? '', this.gates, this.context());
    if (settled.decision.kind === 'halt') this.haltedBy ??= { tool: call.function.name, message: settled.decision.message };
    return { verdict: settled.decision.kind, output: settled.output, decisions: [this.report(settled.record, call.id)] };
  }

  /**
   * A call beforeTool allowed that the driver refused for reasons of its own (a policy): remembered
   * as a denial, which an identical call may retry.
   */
  deniedTool(call: ToolCall): void {
    const passed = this.passed.get(call.id);
    if (passed === undefined) return;
    this.passed.delete(call.id);
    denyCall(call, passed, this.gates, this.context());
  }

  /**
   * The step is over. `stop` when its repetition check (run here when startStep was not called) found
   * the run stuck, or when a tool's failures halted it and no halt nudge is left; with one left, the
   * failure counts start over and `nudge` is the message the model should read next.
   */
  endStep(): StepCheck {
    if (this.stopped !== null) {
      // The run was stopped already: every step after says so, as startStep does.
      this.beginStep(this.currentStep + 1);
      return { action: 'stop', rule: this.stopped.rule, reason: this.stopped.reason, decisions: [] };
    }
    let check: StepCheck = { action: 'continue', decisions: [] };
    if (this.gathered !== null && this.gathered.length > 0) check = this.checkRepetition(this.gathered);
    if (check.action === 'continue' && this.haltedBy !== null) {
      if (this.nudgesUsed < this.config.haltNudges) {
        this.nudgesUsed++;
        this.gates.guard.resetFailures();
        check = { action: 'continue', decisions: check.decisions, nudge: this.haltedBy.message };
      } else {
        this.stopped = { rule: RULES.consecutiveFailuresHalt, reason: `tool_failures: ${this.haltedBy.message}` };
        check = { action: 'stop', rule: this.stopped.rule, reason: this.stopped.reason, decisions: check.decisions };
      }
    }
    this.beginStep(this.currentStep + 1);
    return check;
  }

  /** An answer cut off at the token limit, with no tool calls: `recover` (ask it to go on) or `continue` (the turn is over). */
  maxTokens(): GuardrailDecision {
    return this.report(this.guardrails.onMaxTokens());
  }

  /** Budget proximity after a model call: a decision only when the run is near its budget (as the built-in loop records it). */
  budget(usage: BudgetUsage, limits: BudgetLimits): GuardrailDecision | null {
    const record = this.guardrails.evaluateBudget(usage, limits);
    return record.verdict === 'warn' ? this.report(record) : null;
  }

  private beginStep(step: number | undefined): void {
    if (step !== undefined) this.currentStep = step;
    this.gathered = [];
    this.haltedBy = null;
  }

  private checkRepetition(calls: readonly StepCall[]): StepCheck {
    const record = this.guardrails.observeToolCalls(calls);
    const decision = this.report(record);
    if (record.verdict !== 'stuck') return { action: 'continue', decisions: [decision] };
    this.stopped = { rule: record.rule, reason: `repetition: ${record.reason}` };
    return { action: 'stop', rule: record.rule, reason: this.stopped.reason, decisions: [decision] };
  }

  private context(): CallContext {
    return { step: this.currentStep, haltedBy: this.haltedBy?.tool };
  }

  private report(record: DecisionRecord, callId?: string): GuardrailDecision {
    const decision: GuardrailDecision = callId === undefined ? { step: this.currentStep, ...record } : { step: this.currentStep, callId, ...record };
    this.onDecision?.(decision);
    return decision;
  }
}

/** A call as the repetition check reads it: its name and its parsed arguments (the raw text when they do not parse). */
function stepCall(call: ToolCall): StepCall {
  const parsed = parseToolCall(call);
  return { name: call.function.name, arguments: parsed.ok ? parsed.args : parsed.raw };
}
