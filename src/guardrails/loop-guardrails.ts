import type { DecisionRecord } from '../core/decisions.js';
import { evaluateBudget, type BudgetLimits, type BudgetUsage } from './budget-proximity.js';
import { resolveLoopGuardrailsConfig, type LoopGuardrailsConfig } from './config.js';
import { decisionRecord } from './decision-record.js';
import { maxTokensFollowupMessage } from './messages.js';
import { RULES } from './rules.js';
import { GUARDRAIL_STATE_VERSION, fail, readCount, readObject, readString, readVersion } from './state-codec.js';
import { describeStep, stepSignatureDigest, type StepCall } from './step-signature.js';

/** LoopGuardrails' counters as plain JSON: written to the tape after every step (docs/guardrails.md §6). */
export interface LoopGuardrailsState {
  version: 1;
  /** How many steps in a row repeated the one before them. */
  repeatedToolSteps: number;
  /** Digest of the last step's signature (see stepSignatureDigest), or null before the first. */
  lastSignature: string | null;
  /** Max-tokens recoveries used so far. */
  maxTokensRecoveriesUsed: number;
}

/**
 * The session-level guardrails of docs/guardrails.md §6: repetition of whole tool steps, recovery from
 * responses cut off by the token limit, and budget proximity. All counters are in toJSON(), so a
 * run restored from a tape checkpoint decides exactly as the uninterrupted run would have.
 */
export class LoopGuardrails {
  readonly config: Readonly<LoopGuardrailsConfig>;
  private repeated = 0;
  private lastSignature: string | null = null;
  private recoveriesUsed = 0;

  constructor(config: Partial<LoopGuardrailsConfig> = {}) {
    this.config = Object.freeze(resolveLoopGuardrailsConfig(config));
  }

  /**
   * Compare this step's tool calls with the previous step's. Verdict `stuck` means the step must
   * not run and the run ends with reason `repetition`; with the default of 3 that is the 4th
   * identical step in a row. An empty list is not a tool step and changes nothing.
   */
  observeToolCalls(calls: readonly StepCall[]): DecisionRecord {
    const max = this.config.maxRepeatedToolSteps;
    const before = this.repeated;
    if (calls.length === 0) {
      return decisionRecord({
        gate: 'repetition', verdict: 'continue', rule: RULES.noToolCalls, before: { repeated: before }, after: { repeated: before },
        threshold: max, reason: 'no tool calls in this step',
      });
    }
    const signature = stepSignatureDigest(calls);
    this.repeated = signature === this.lastSignature ? this.repeated + 1 : 0;
    this.lastSignature = signature;
    const after = this.repeated;
    let verdict: 'continue' | 'stuck' = 'continue';
    let rule: string = RULES.newToolStep;
    let reason = 'tool calls differ from the previous step';
    if (after >= max) {
      verdict = 'stuck';
      rule = RULES.repetition;
      reason = `the same tool calls ${after + 1} steps in a row (stops at ${max} repeats): ${describeStep(calls)}`;
    } else if (after > 0) {
      rule = RULES.repeatedToolStep;
      reason = `same tool calls as the previous step (repeat ${after} of ${max})`;
    }
    return decisionRecord({
      gate: 'repetition', verdict, rule, tool: calls.length === 1 ? calls[0]?.name : undefined, key: signature,
      before: { repeated: before }, after: { repeated: after }, threshold: max, reason,
    });
  }

  /** True when the last observed step repeated too often (see observeToolCalls). */
  isStuck(): boolean {
    return this.repeated >= this.config.maxRepeatedToolSteps;
  }

  /**
   * A response stopped at the token limit. Verdict `recover` (and one recovery used) while any
   * remain: inject maxTokensFollowup() and loop; `continue` when none remain: end of turn.
   */
  onMaxTokens(): DecisionRecord {
    const max = this.config.maxTokensRecoveries;
    const before = this.recoveriesUsed;
    if (before < max) {
      this.recoveriesUsed = before + 1;
      return decisionRecord({
        gate: 'max_tokens', verdict: 'recover', rule: RULES.maxTokensRecovery,
        before: { recoveries: before }, after: { recoveries: before + 1 }, threshold: max,
        reason: `response cut off at the token limit: recovery ${before + 1} of ${max}`,
      });
    }
    return decisionRecord({
      gate: 'max_tokens', verdict: 'continue', rule: RULES.maxTokensExhausted,
      before: { recoveries: before }, after: { recoveries: before }, threshold: max,
      reason: `response cut off at the token limit, no recoveries left (${max} used): end of turn`,
    });
  }

  /** The internal user message that asks the model to carry on after a cut-off response. */
  maxTokensFollowup(): string {
    return maxTokensFollowupMessage();
  }

  /** True when a set token budget or cost limit is within its reserve (docs/guardrails.md §6). */
  nearBudget(usage: BudgetUsage, limits: BudgetLimits): boolean {
    return this.evaluateBudget(usage, limits).verdict === 'warn';
  }

  /** nearBudget as a DecisionRecord (`warn` or `continue`), for the step log and the tape. */
  evaluateBudget(usage: BudgetUsage, limits: BudgetLimits): DecisionRecord {
    return evaluateBudget(usage, limits, this.config);
  }

  /** Steps in a row that repeated the one before. */
  get repeatedToolSteps(): number {
    return this.repeated;
  }

  /** Max-tokens recoveries used so far. */
  get maxTokensRecoveriesUsed(): number {
    return this.recoveriesUsed;
  }

  /** The counters as JSON (see LoopGuardrailsState). */
  toJSON(): LoopGuardrailsState {
    return {
      version: GUARDRAIL_STATE_VERSION,
      repeatedToolSteps: this.repeated,
      lastSignature: this.lastSignature,
      maxTokensRecoveriesUsed: this.recoveriesUsed,
    };
  }

  /** Guardrails that continue exactly where the ones that wrote `state` stopped, under `config`. */
  static fromJSON(state: unknown, config: Partial<LoopGuardrailsConfig> = {}): LoopGuardrails {
    const obj = readObject(state, 'loopGuardrails');
    readVersion(obj, 'loopGuardrails');
    const guardrails = new LoopGuardrails(config);
    guardrails.repeated = readCount(obj.repeatedToolSteps, 'loopGuardrails.repeatedToolSteps');
    guardrails.recoveriesUsed = readCount(obj.maxTokensRecoveriesUsed, 'loopGuardrails.maxTokensRecoveriesUsed');
    if (obj.lastSignature === null) {
      if (guardrails.repeated !== 0) fail('loopGuardrails.repeatedToolSteps', 'must be 0 before any step');
    } else {
      const signature = readString(obj.lastSignature, 'loopGuardrails.lastSignature');
      if (!/^[0-9a-f]{64}$/.test(signature)) fail('loopGuardrails.lastSignature', 'must be a sha-256 hex digest or null');
      guardrails.lastSignature = signature;
    }
    return guardrails;
  }
}
