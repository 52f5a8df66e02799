import { describe, expect, it } from 'vitest';
import { analysisOptions } from './analysis-overrides.js';

describe('analysisOptions', () => {
  it('takes the flags of a tool by any name, `__proto__` and `constructor` too, as the tool\'s own', () => {
    const { config } = analysisOptions([
      'guardrails.tools.__proto__.idempotent=false', 'guardrails.tools.constructor.mutating=true', 'guardrails.tools.lookup.idempotent=true',
    ]);
    expect(Object.entries(config?.tools ?? {})).toEqual([
      ['__proto__', { idempotent: false }], ['constructor', { mutating: true }], ['lookup', { idempotent: true }],
    ]);
    expect(Object.getPrototypeOf(config?.tools)).toBe(Object.prototype);
  });
});
