import type { DecisionRecord } from '../core/decisions.js';
import { callKey } from './call-key.js';
import { resolveLoopGuardConfig, type LoopGuardConfig } from './config.js';
import { decisionRecord } from './decision-record.js';
import { failureHaltMessage, failureWarnMessage, identicalCallBlockMessage } from './messages.js';
import { RULES } from './rules.js';
import { readCount, readObject, readPairs, readVersion, GUARDRAIL_STATE_VERSION } from './state-codec.js';

/** The answer to an attempt: run it, or refuse it with a message for the model. */
export type AttemptDecision = { kind: 'proceed' } | { kind: 'block'; message: string };

/** The answer to an outcome: carry on, carry on with a warning, or stop. */
export type OutcomeDecision = { kind: 'continue' } | { kind: 'warn'; message: string } | { kind: 'halt'; message: string };

// Shared, frozen: the common answers carry no data, so one object each will do.
const PROCEED: AttemptDecision = Object.freeze({ kind: 'proceed' });
const CONTINUE: OutcomeDecision = Object.freeze({ kind: 'continue' });

/** An AttemptDecision with the record that explains it. */
export interface AttemptEvaluation {
  decision: AttemptDecision;
  record: DecisionRecord;
}

/** An OutcomeDecision with the record that explains it. */
export interface OutcomeEvaluation {
  decision: OutcomeDecision;
  record: DecisionRecord;
}

/** LoopGuard's counters as plain JSON, for tape checkpoints. Pairs keep the Maps' order. */
export interface LoopGuardState {
  version: 1;
  /** `[callKey, attempts]`. */
  attempts: Array<[string, number]>;
  /** `[tool, consecutive failures]`; tools at zero are left out. */
  failures: Array<[string, number]>;
}

/**
 * The repeat gate and outcome watcher of one turn (docs/guardrails.md §4). It counts identical attempts per
 * call key and blocks from the `identicalCallBlock`-th on, and counts consecutive failures per
 * tool name to warn and then halt. Maps, not objects: their iteration order is insertion order,
 * so serialised state does not depend on key shapes.
 */
export class LoopGuard {
  readonly config: Readonly<LoopGuardConfig>;
  private readonly attempts = new Map<string, number>();
  private readonly failures = new Map<string, number>();

  constructor(config: Partial<LoopGuardConfig> = {}) {
    this.config = Object.freeze(resolveLoopGuardConfig(config));
  }

  /** Count an attempt of `tool` with `args`; blocked attempts count too (docs/guardrails.md §4). */
  recordAttempt(tool: string, args: unknown): AttemptDecision {
    return this.evaluateAttempt(tool, args).decision;
  }

  /**
   * recordAttempt with its DecisionRecord. `context.key` is the call key when the caller already
   * has it (the pipeline does), which saves hashing the arguments twice.
   */
  evaluateAttempt(tool: string, args: unknown, context: { key?: string } = {}): AttemptEvaluation {
    const key = context.key ?? callKey(tool, args);
    const before = this.attempts.get(key) ?? 0;
    const after = before + 1;
    this.attempts.set(key, after);
    const threshold = this.config.identicalCallBlock;
    let decision: AttemptDecision = PROCEED;
    let verdict: 'allow' | 'block' = 'allow';
    let rule: string;
    let reason: string;
    if (after >= threshold) {
      decision = { kind: 'block', message: identicalCallBlockMessage(tool, after) };
      verdict = 'block';
      rule = RULES.identicalCallBlock;
      reason = `identical call ${after <= threshold ? `${after} of ${threshold}` : `${after}, over the limit of ${threshold}`}: blocked`;
    } else if (after === 1) {
      rule = RULES.firstAttempt;
      reason = `first attempt with these arguments (blocks at ${threshold})`;
    } else {
      rule = RULES.identicalCall;
      reason = `identical call ${after} of ${threshold}`;
    }
    // Literal arguments, not object spreads: this runs for every call and spreads cost microseconds.
    const record = decisionRecord({
      gate: 'loop_guard', verdict, rule, tool, key, before: { attempts: before }, after: { attempts: after }, threshold, reason,
    });
    return { decision, record };
  }

  /** Note how a call of `tool` ended; consecutive failures warn, then halt (docs/guardrails.md §4). */
  recordOutcome(tool: string, ok: boolean): OutcomeDecision {
    return this.evaluateOutcome(tool, ok).decision;
  }

  /** recordOutcome with its DecisionRecord. */
  evaluateOutcome(tool: string, ok: boolean): OutcomeEvaluation {
    const before = this.failures.get(tool) ?? 0;
    const { failureWarn: warn, failureHalt: halt } = this.config;
    if (ok) {
      // Deleting rather than storing 0 keeps checkpoints small; a missing tool reads as 0.
      this.failures.delete(tool);
      const reason = before === 0 ? 'succeeded' : `succeeded; ${before} consecutive failure${before === 1 ? '' : 's'} forgotten`;
      const record = decisionRecord({
        gate: 'failures', verdict: 'continue', rule: RULES.failureReset, tool, before: { failures: before }, after: { failures: 0 }, reason,
      });
      return { decision: CONTINUE, record };
    }
    const after = before + 1;
    this.failures.set(tool, after);
    let decision: OutcomeDecision = CONTINUE;
    let rule: string = RULES.consecutiveFailures;
    let threshold = after < warn ? warn : halt;
    let reason = `failure ${after} in a row (warns at ${warn}, halts at ${halt})`;
    if (after >= halt) {
      decision = { kind: 'halt', message: failureHaltMessage(tool, after) };
      rule = RULES.consecutiveFailuresHalt;
      threshold = halt;
      reason = `failed ${after} consecutive times (halts at ${halt})`;
    } else if (after === warn) {
      decision = { kind: 'warn', message: failureWarnMessage(tool, after) };
      rule = RULES.consecutiveFailuresWarn;
      threshold = warn;
      reason = `failed ${after} consecutive times (warns at ${warn}, halts at ${halt})`;
    }
    const verdict = decision.kind;
    const record = decisionRecord({
      gate: 'failures', verdict, rule, tool, before: { failures: before }, after: { failures: after }, threshold, reason,
    });
    return { decision, record };
  }

  /**
   * Forget failure counts only, so a granted continuation after a halt does not halt again on the
   * next failure; identical-call counts stay, so the same call repeated unchanged is still blocked.
   */
  resetFailures(): void {
    this.failures.clear();
  }

  /**
   * Forget identical-call counts (failure counts stay): after a mutating tool succeeded, re-running
   * a read or a test is new work, not a loop.
   *
   * `causeKey`, the call key of the mutating call that changed the state, keeps its own count: a
   * mutation repeated unchanged is not new work, and without this a mutating call such as
   * `exec_shell` would clear its own count on every success and could never be blocked.
   */
  noteStateChanged(causeKey?: string): void {
    const kept = causeKey === undefined ? undefined : this.attempts.get(causeKey);
    this.attempts.clear();
    if (causeKey !== undefined && kept !== undefined) this.attempts.set(causeKey, kept);
  }

  /** Attempts counted for this exact call since the last state change. */
  attemptCount(tool: string, args: unknown): number {
    return this.attempts.get(callKey(tool, args)) ?? 0;
  }

  /** Consecutive failures of `tool`. */
  failureCount(tool: string): number {
    return this.failures.get(tool) ?? 0;
  }

  /** The counters as JSON (see LoopGuardState). */
  toJSON(): LoopGuardState {
    return { version: GUARDRAIL_STATE_VERSION, attempts: [...this.attempts], failures: [...this.failures] };
  }

  /** A LoopGuard that continues exactly where the one that wrote `state` stopped. */
  static fromJSON(state: unknown, config: Partial<LoopGuardConfig> = {}): LoopGuard {
    const obj = readObject(state, 'loopGuard');
    readVersion(obj, 'loopGuard');
    const guard = new LoopGuard(config);
    for (const [key, n] of readPairs(obj.attempts, 'loopGuard.attempts', readCount)) guard.attempts.set(key, n);
    for (const [tool, n] of readPairs(obj.failures, 'loopGuard.failures', readCount)) guard.failures.set(tool, n);
    return guard;
  }
}
