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
 * The budget-proximity check of docs/guardrails.md §6 as a DecisionRecord: `warn` when a set token budget has
 * `reserveTokens` or fewer left, or a set cost limit has `reserveCostFraction` of itself or less
 * left; `continue` otherwise. It never stops anything: the loop enforces the hard limits.
 */
export function evaluateBudget(usage: BudgetUsage, limits: BudgetLimits, reserve: Reserve): DecisionRecord {
  const counters = { tokens: usage.tokens, cost: usage.cost };
  const warn = (rule: string, threshold: number, reason: string): DecisionRecord =>
    decisionRecord({ gate: 'budget', verdict: 'warn', rule, before: counters, after: counters, threshold, reason });
  const tokenBudget = limits.tokenBudget ?? 0;
  if (tokenBudget > 0) {
    const left = tokenBudget - usage.tokens;
    if (left <= reserve.reserveTokens) {
      const reason = `${Math.max(left, 0)} of ${tokenBudget} tokens left (reserve ${reserve.reserveTokens})`;
      return warn(RULES.nearTokenBudget, reserve.reserveTokens, reason);
    }
  }
  const costLimit = limits.costLimit ?? 0;
  if (costLimit > 0) {
    const left = costLimit - usage.cost;
    const reserveCost = reserve.reserveCostFraction * costLimit;
    if (left <= reserveCost) {
      const reason = `${formatCost(Math.max(left, 0))} of ${formatCost(costLimit)} cost left (reserve ${formatCost(reserveCost)})`;
      return warn(RULES.nearCostLimit, reserveCost, reason);
    }
  }
  return decisionRecord({
    gate: 'budget', verdict: 'continue', rule: RULES.withinBudget, before: counters, after: counters, reason: 'within budget',
  });
}

// Costs are dollars with many decimals; six significant digits is enough to read and stays stable.
function formatCost(value: number): string {
  return `$${Number(value.toPrecision(6))}`;
}
