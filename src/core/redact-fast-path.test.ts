/**
 * The redactor's keyword prefilter (a rule runs only on a text that holds one of its keywords, a rule
 * for a key standing alone only where a long enough run of base64 characters starts) must never keep
 * a rule from a text it would redact: on random texts built from pieces of secrets, plain, JSON-escaped
 * and colour-coded, the redactor finds exactly the spans that every rule searched for on its own finds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor } from './redact.js';
import { SECRET_RULES } from './secret-rules.js';
import { everyRuleSpans } from './test-support/every-rule.js';
import { RULE_SAMPLES } from './test-support/secrets.js';

/** Pieces that make up secrets (every keyword, every sample cut in two) and near misses, among ordinary text. */
const piece = fc.oneof(
  fc.constantFrom(...new Set(SECRET_RULES.flatMap((rule) => rule.keywords))),
  fc.constantFrom(...RULE_SAMPLES.flatMap((s) => [s.text.slice(0, s.text.length >> 1), s.text.slice(s.text.length >> 1)])),
  fc.stringMatching(/^[A-Za-z0-9_\-/+=.]{1,45}$/),
  fc.constantFrom(' ', '\n', '"', ':', '=', '\\n', '\\"', '\x1b[32m', '\\u001b[0m', '@', '://'),
);
const text = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));
const caseFlipped = text.chain((t) => fc.constantFrom(t, t.toUpperCase(), t.toLowerCase()));

describe('redactor keyword prefilter', () => {
  it('finds the same spans as searching for every rule', () => {
    const plain = createRedactor();
    fc.assert(
      fc.property(caseFlipped, (input) => {
        expect(plain.spans(input)).toEqual(everyRuleSpans(input));
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves a value with nothing to redact as the very same object', () => {
    const redact = createRedactor();
    const value = { role: 'tool', content: 'export const v1 = 1; // line 2\n', tool_call_id: 'call_1' };
    expect(redact(value)).toBe(value);
  });
});
