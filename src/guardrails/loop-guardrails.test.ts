import { describe, expect, it } from 'vitest';
import { InvalidOptionError, TapeFormatError } from '../core/errors.js';
import { LoopGuardrails } from './loop-guardrails.js';
import { describeStep, stepSignature, stepSignatureDigest } from './step-signature.js';

const readA = [{ name: 'read_file', arguments: { path: 'a' } }];

describe('repetition (docs/guardrails.md §6)', () => {
  it('stops at the 4th identical step in a row with the default of 3', () => {
    const g = new LoopGuardrails();
    const verdicts = [1, 2, 3, 4].map(() => g.observeToolCalls(readA));
    expect(verdicts.map((r) => r.verdict)).toEqual(['continue', 'continue', 'continue', 'stuck']);
    expect(verdicts.map((r) => r.rule)).toEqual(['new_tool_step', 'repeated_tool_step', 'repeated_tool_step', 'repetition']);
    expect(verdicts.map((r) => r.counters.after.repeated)).toEqual([0, 1, 2, 3]);
    expect(g.isStuck()).toBe(true);
    const stuck = verdicts[3];
    expect(stuck).toMatchObject({ gate: 'repetition', tool: 'read_file', threshold: 3, key: stepSignatureDigest(readA) });
    expect(stuck?.reason).toContain('4 steps in a row');
    expect(stuck?.reason).toContain('read_file(path=a)');
  });

  it('records near misses', () => {
    const g = new LoopGuardrails();
    g.observeToolCalls(readA);
    expect(g.observeToolCalls(readA).reason).toBe('same tool calls as the previous step (repeat 1 of 3)');
    expect(g.isStuck()).toBe(false);
  });

  it('a different step resets the counter and becomes the new reference', () => {
    const g = new LoopGuardrails();
    for (let i = 0; i < 3; i++) g.observeToolCalls(readA);
    const other = [{ name: 'read_file', arguments: { path: 'b' } }];
    expect(g.observeToolCalls(other)).toMatchObject({ verdict: 'continue', rule: 'new_tool_step', counters: { before: { repeated: 2 }, after: { repeated: 0 } } });
    expect(g.observeToolCalls(readA).counters.after.repeated).toBe(0);
    expect(g.observeToolCalls(readA).counters.after.repeated).toBe(1);
  });

  it('a step with no tool calls changes nothing', () => {
    const g = new LoopGuardrails();
    g.observeToolCalls(readA);
    g.observeToolCalls(readA);
    expect(g.observeToolCalls([])).toMatchObject({ verdict: 'continue', rule: 'no_tool_calls' });
    expect(g.observeToolCalls(readA).counters.after.repeated).toBe(2);
  });

  it('honours a configured maximum', () => {
    const g = new LoopGuardrails({ maxRepeatedToolSteps: 1 });
    expect(g.observeToolCalls(readA).verdict).toBe('continue');
    expect(g.observeToolCalls(readA).verdict).toBe('stuck');
  });

  it('the signature keeps call order, sorts argument keys, and ignores differences beyond 200 characters', () => {
    const a = { name: 'read_file', arguments: { path: 'a' } };
    const b = { name: 'list_dir', arguments: { path: '.' } };
    expect(stepSignature([a, b])).not.toBe(stepSignature([b, a]));
    expect(stepSignature([{ name: 't', arguments: { x: 1, y: 2 } }])).toBe(stepSignature([{ name: 't', arguments: { y: 2, x: 1 } }]));
    const long = 'x'.repeat(200);
    expect(stepSignature([{ name: 'w', arguments: { content: `${long}A` } }])).toBe(stepSignature([{ name: 'w', arguments: { content: `${long}B` } }]));
    expect(stepSignature([{ name: 'w', arguments: { content: `${'x'.repeat(199)}A` } }])).not.toBe(
      stepSignature([{ name: 'w', arguments: { content: `${'x'.repeat(199)}B` } }]),
    );
    expect(stepSignature([a])).toBe('[["read_file",[["path","a"]]]]');
  });

  it('renders non-string values as canonical JSON, so nested key order does not matter', () => {
    const one = [{ name: 't', arguments: { opts: { b: 1, a: [1, 2] }, n: 3, s: '3' } }];
    const two = [{ name: 't', arguments: { s: '3', n: 3, opts: { a: [1, 2], b: 1 } } }];
    expect(stepSignature(one)).toBe(stepSignature(two));
    expect(stepSignature(one)).toBe('[["t",[["n","3"],["opts","{\\"a\\":[1,2],\\"b\\":1}"],["s","3"]]]]');
    expect(describeStep(one)).toBe('t(n=3, opts={"a":[1,2],"b":1}, s=3)');
  });

  it('handles arguments that are not an object', () => {
    expect(stepSignature([{ name: 't', arguments: '{broken' }])).toBe('[["t",[["","{broken"]]]]');
    expect(describeStep([{ name: 't', arguments: '{broken' }])).toBe('t({broken)');
  });
});

describe('max-tokens recovery (docs/guardrails.md §6)', () => {
  it('recovers while recoveries remain, then treats it as end of turn', () => {
    const g = new LoopGuardrails();
    const first = g.onMaxTokens();
    expect(first).toMatchObject({
      gate: 'max_tokens', verdict: 'recover', rule: 'max_tokens_recovery', threshold: 2,
      counters: { before: { recoveries: 0 }, after: { recoveries: 1 } },
    });
    expect(g.onMaxTokens().verdict).toBe('recover');
    const third = g.onMaxTokens();
    expect(third).toMatchObject({ verdict: 'continue', rule: 'max_tokens_exhausted', counters: { before: { recoveries: 2 }, after: { recoveries: 2 } } });
    expect(g.maxTokensRecoveriesUsed).toBe(2);
  });

  it('with 0 recoveries, never recovers', () => {
    expect(new LoopGuardrails({ maxTokensRecoveries: 0 }).onMaxTokens().verdict).toBe('continue');
  });

  it('asks the model to continue from exactly where it left off', () => {
    expect(new LoopGuardrails().maxTokensFollowup()).toContain('Continue from exactly where you left off');
  });
});

describe('budget proximity (docs/guardrails.md §6)', () => {
  const g = new LoopGuardrails();

  it('is false without limits', () => {
    expect(g.nearBudget({ tokens: 1e9, cost: 1e9 }, {})).toBe(false);
    expect(g.nearBudget({ tokens: 1e9, cost: 1e9 }, { tokenBudget: 0, costLimit: 0 })).toBe(false);
  });

  it('is true when the remaining tokens are at most reserveTokens', () => {
    expect(g.nearBudget({ tokens: 9487, cost: 0 }, { tokenBudget: 10_000 })).toBe(false);
    expect(g.nearBudget({ tokens: 9488, cost: 0 }, { tokenBudget: 10_000 })).toBe(true);
    expect(g.nearBudget({ tokens: 12_000, cost: 0 }, { tokenBudget: 10_000 })).toBe(true);
    expect(g.evaluateBudget({ tokens: 9488, cost: 0 }, { tokenBudget: 10_000 })).toMatchObject({
      gate: 'budget', verdict: 'warn', rule: 'near_token_budget', threshold: 512, reason: '512 of 10000 tokens left (reserve 512)',
    });
  });

  it('is true when the remaining cost is at most reserveCostFraction of the limit', () => {
    expect(g.nearBudget({ tokens: 0, cost: 1.5 }, { costLimit: 2 })).toBe(false);
    expect(g.nearBudget({ tokens: 0, cost: 1.75 }, { costLimit: 2 })).toBe(false);
    expect(g.nearBudget({ tokens: 0, cost: 1.8 }, { costLimit: 2 })).toBe(true);
    const quarter = new LoopGuardrails({ reserveCostFraction: 0.25 });
    expect(quarter.nearBudget({ tokens: 0, cost: 1.5 }, { costLimit: 2 })).toBe(true);
    expect(quarter.evaluateBudget({ tokens: 0, cost: 1.5 }, { costLimit: 2 })).toMatchObject({ rule: 'near_cost_limit', threshold: 0.5 });
  });

  it('checks each limit that is set', () => {
    expect(g.nearBudget({ tokens: 10, cost: 1.9 }, { tokenBudget: 10_000, costLimit: 2 })).toBe(true);
    expect(g.evaluateBudget({ tokens: 10, cost: 0.1 }, { tokenBudget: 10_000, costLimit: 2 })).toMatchObject({
      verdict: 'continue', rule: 'within_budget',
    });
  });
});

describe('LoopGuardrails config and state', () => {
  it('validates the config', () => {
    expect(new LoopGuardrails().config).toEqual({
      maxTokensRecoveries: 2, maxRepeatedToolSteps: 3, reserveTokens: 512, reserveCostFraction: 0.1,
    });
    expect(() => new LoopGuardrails({ maxRepeatedToolSteps: 0 })).toThrow(InvalidOptionError);
    expect(() => new LoopGuardrails({ reserveCostFraction: 2 })).toThrow(/reserveCostFraction/);
    expect(() => new LoopGuardrails({ maxTokensRecoveries: -1 })).toThrow(/maxTokensRecoveries/);
  });

  it('restores every counter from JSON', () => {
    const g = new LoopGuardrails();
    g.observeToolCalls(readA);
    g.observeToolCalls(readA);
    g.observeToolCalls(readA);
    g.onMaxTokens();
    const restored = LoopGuardrails.fromJSON(JSON.parse(JSON.stringify(g)));
    expect(restored.toJSON()).toEqual(g.toJSON());
    expect(restored.observeToolCalls(readA).verdict).toBe('stuck');
    expect(restored.onMaxTokens().verdict).toBe('recover');
    expect(restored.onMaxTokens().verdict).toBe('continue');
  });

  it('applies the config given on restore (a what-if replay)', () => {
    const g = new LoopGuardrails();
    g.observeToolCalls(readA);
    g.observeToolCalls(readA);
    const relaxed = LoopGuardrails.fromJSON(g.toJSON(), { maxRepeatedToolSteps: 5 });
    expect(relaxed.observeToolCalls(readA).verdict).toBe('continue');
  });

  it('refuses malformed state', () => {
    const good = new LoopGuardrails().toJSON();
    expect(() => LoopGuardrails.fromJSON('x')).toThrow(TapeFormatError);
    expect(() => LoopGuardrails.fromJSON({ ...good, repeatedToolSteps: 'a' })).toThrow(/repeatedToolSteps/);
    expect(() => LoopGuardrails.fromJSON({ ...good, repeatedToolSteps: 2 })).toThrow(/must be 0 before any step/);
    expect(() => LoopGuardrails.fromJSON({ ...good, lastSignature: 'abc' })).toThrow(/lastSignature/);
    expect(() => LoopGuardrails.fromJSON({ ...good, version: 0 })).toThrow(/version/);
  });
});
