import { InvalidOptionError } from '../core/errors.js';

/** LoopGuard thresholds (docs/guardrails.md §4). */
export interface LoopGuardConfig {
  /** The attempt number of an identical call from which it is blocked. */
  identicalCallBlock: number;
  /** The consecutive-failure count of a tool that produces a warning. */
  failureWarn: number;
  /** The consecutive-failure count of a tool from which the run halts. */
  failureHalt: number;
}

/** LoopGuardrails settings (docs/guardrails.md §6). */
export interface LoopGuardrailsConfig {
  /** How many `finish_reason: "length"` responses are answered with a continuation request. */
  maxTokensRecoveries: number;
  /** Repeats of the previous step's tool calls at which the run is stuck. */
  maxRepeatedToolSteps: number;
  /** Remaining tokens at or below which nearBudget() is true. */
  reserveTokens: number;
  /** Fraction of the cost limit that, once it is all that remains, makes nearBudget() true. */
  reserveCostFraction: number;
}

export const DEFAULT_LOOP_GUARD_CONFIG: Readonly<LoopGuardConfig> = Object.freeze({
  identicalCallBlock: 3,
  failureWarn: 3,
  failureHalt: 8,
});

export const DEFAULT_LOOP_GUARDRAILS_CONFIG: Readonly<LoopGuardrailsConfig> = Object.freeze({
  maxTokensRecoveries: 2,
  maxRepeatedToolSteps: 3,
  reserveTokens: 512,
  reserveCostFraction: 0.1,
});

/**
 * Defaults filled in and every value checked. The values usually come from a config file or a
 * `--set guardrails.x=…` what-if, so a bad one is the user's to fix (InvalidOptionError, exit 2) and is
 * named by its config key.
 */
export function resolveLoopGuardConfig(partial: Partial<LoopGuardConfig> = {}): LoopGuardConfig {
  const config = pick(DEFAULT_LOOP_GUARD_CONFIG, partial);
  positiveInteger('identicalCallBlock', config.identicalCallBlock);
  positiveInteger('failureWarn', config.failureWarn);
  positiveInteger('failureHalt', config.failureHalt);
  return config;
}

/** As resolveLoopGuardConfig, for LoopGuardrails. */
export function resolveLoopGuardrailsConfig(partial: Partial<LoopGuardrailsConfig> = {}): LoopGuardrailsConfig {
  const config = pick(DEFAULT_LOOP_GUARDRAILS_CONFIG, partial);
  nonNegativeInteger('maxTokensRecoveries', config.maxTokensRecoveries);
  positiveInteger('maxRepeatedToolSteps', config.maxRepeatedToolSteps);
  nonNegativeInteger('reserveTokens', config.reserveTokens);
  if (!(Number.isFinite(config.reserveCostFraction) && config.reserveCostFraction >= 0 && config.reserveCostFraction <= 1)) {
    throw invalid('reserveCostFraction', config.reserveCostFraction, 'a number from 0 to 1');
  }
  return config;
}

/**
 * The defaults overridden by `partial`, known keys only. The loop passes its whole `guardrails`
 * config section to each class, so keys meant for the other one are left out rather than carried
 * along; `{ x: undefined }` from an optional config field keeps the default.
 */
function pick<T extends object>(defaults: Readonly<T>, partial: Partial<T>): T {
  const out = { ...defaults } as T;
  for (const name of Object.keys(defaults) as Array<keyof T>) {
    const value = partial[name];
    if (value !== undefined) out[name] = value as T[keyof T];
  }
  return out;
}

function positiveInteger(name: string, value: number): void {
  if (!(Number.isInteger(value) && value >= 1)) throw invalid(name, value, 'a positive integer');
}

function nonNegativeInteger(name: string, value: number): void {
  if (!(Number.isInteger(value) && value >= 0)) throw invalid(name, value, 'a non-negative integer');
}

function invalid(name: string, value: unknown, expected: string): InvalidOptionError {
  return new InvalidOptionError(`guardrails.${name} must be ${expected}, got ${JSON.stringify(value) ?? String(value)}`);
}
