import type { DecisionRecord } from '../core/decisions.js';
import type { LoopGuardrailsConfig } from './config.js';
import { decisionRecord } from './decision-record.js';
import { RULES } from './rules.js';

/** What the run has used so far. */
export interface BudgetUsage {
  tokens: number;
  cost: number;
}

/** The run's hard limits; absent or 0 means no limit (as in the config). */
export interface BudgetLimits {
  tokenBudget?: number | undefined;
  costLimit?: number | undefined;
}

type Reserve = Pick<LoopGuardrailsConfig, 'reserveTokens' | 'reserveCostFraction'>;

/**
 * The budget-proximity check of SPEC §6 as a DecisionRecord: `warn` when a set token budget has
 * `reserveTokens` or fewer left, or a set cost limit has `reserveCostFraction` of itself or less
 * left; `continue` otherwise. It never stops anything: the loop enforces the hard limits.
 */
export function evaluateBudget(usage: BudgetUsage, limits: BudgetLimits, reserve: Reserve): DecisionRecord {
  const counters = { tokens: usage.tokens, cost: usage.cost };
  const base = { gate: 'budget' as const, before: counters, after: counters };
  const tokenBudget = limits.tokenBudget ?? 0;
  if (tokenBudget > 0) {
    const left = tokenBudget - usage.tokens;
    if (left <= reserve.reserveTokens) {
      return decisionRecord({
        ...base, verdict: 'warn', rule: RULES.nearTokenBudget, threshold: reserve.reserveTokens,
        reason: `${Math.max(left, 0)} of ${tokenBudget} tokens left (reserve ${reserve.reserveTokens})`,
      });
    }
  }
  const costLimit = limits.costLimit ?? 0;
  if (costLimit > 0) {
    const left = costLimit - usage.cost;
    const reserveCost = reserve.reserveCostFraction * costLimit;
    if (left <= reserveCost) {
      return decisionRecord({
        ...base, verdict: 'warn', rule: RULES.nearCostLimit, threshold: reserveCost,
        reason: `${formatCost(Math.max(left, 0))} of ${formatCost(costLimit)} cost left (reserve ${formatCost(reserveCost)})`,
      });
    }
  }
  return decisionRecord({ ...base, verdict: 'continue', rule: RULES.withinBudget, reason: 'within budget' });
}

// Costs are dollars with many decimals; six significant digits is enough to read and stays stable.
function formatCost(value: number): string {
  return `$${Number(value.toPrecision(6))}`;
}
