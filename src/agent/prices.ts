/**
 * Token prices per million tokens, by model. Overridable with the config's `prices`. A model with no
 * price costs 0 (local servers), which also turns the cost limit into a no-op for it.
 */
import type { Usage } from '../core/llm.js';

export interface Price {
  input: number;
  output: number;
}

/** A small built-in table; USD per million tokens. */
export const DEFAULT_PRICES: Readonly<Record<string, Price>> = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
};

/** The price of `model`: the config's table first, then the built-in one, else free. */
export function priceOf(model: string, overrides: Readonly<Record<string, Price>>): Price {
  return overrides[model] ?? DEFAULT_PRICES[model] ?? { input: 0, output: 0 };
}

/** The cost of one call's usage. */
export function costOf(usage: Usage, price: Price): number {
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}
