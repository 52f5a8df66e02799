/**
 * The redactor's quick test (one alternation of every rule, checked before the rules' own scans)
 * must never skip a text a rule would redact: on random texts built from pieces of secrets, the
 * redactor finds exactly the spans that every rule scanned on its own finds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, type Span } from './redact.js';
import { SECRET_RULES } from './secret-rules.js';

/** The straightforward spans: every rule and pattern scanned over the whole text, merged. */
function referenceSpans(input: string, patterns: readonly string[]): Span[] {
  const found: [number, number][] = [];
  const scans = [
    ...SECRET_RULES.map((rule) => ({ pattern: new RegExp(rule.source, `gd${rule.flags ?? ''}`), group: rule.group ?? 0 })),
    ...patterns.map((source) => ({ pattern: new RegExp(source, 'gd'), group: 0 })),
  ];
  for (const { pattern, group } of scans) {
    for (const match of input.matchAll(pattern)) {
      const where = match.indices?.[group];
      if (where !== undefined && where[1] > where[0]) found.push([where[0], where[1]]);
    }
  }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: [number, number][] = [];
  for (const span of found) {
    const last = out[out.length - 1];
    if (last !== undefined && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else out.push([span[0], span[1]]);
  }
  return out;
}

/** Pieces that make up secrets (and near misses), in either case, among ordinary text. */
const piece = fc.oneof(
  fc.constantFrom(
    'sk-', 'sk-ant-api03-', 'ghp_', 'github_pat_', 'glpat-', 'xoxb-', 'AKIA', 'ASIA', 'AIza', 'ey', '.ey', 'Bearer ', 'basic ', 'sk_live_',
    'hooks.slack.com/services/', 'secret_access_key = "', '-----BEGIN RSA PRIVATE KEY-----', '-----END RSA PRIVATE KEY-----', 'tok3n-',
  ),
  fc.stringMatching(/^[A-Za-z0-9_\-/+=.]{1,45}$/),
  fc.constantFrom(' ', '\n', '"', ':', '='),
);
const text = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));
const caseFlipped = text.chain((t) => fc.constantFrom(t, t.toUpperCase(), t.toLowerCase()));

describe('redactor quick test', () => {
  it('finds the same spans as scanning every rule, with and without user patterns', () => {
    const plain = createRedactor();
    const withPatterns = createRedactor({ patterns: ['tok3n-[a-z0-9]+', '(ab){2}'] });
    fc.assert(
      fc.property(caseFlipped, (input) => {
        expect(plain.spans(input)).toEqual(referenceSpans(input, []));
        expect(withPatterns.spans(input)).toEqual(referenceSpans(input, ['tok3n-[a-z0-9]+', '(ab){2}']));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves a value with nothing to redact as the very same object', () => {
    const redact = createRedactor();
    const value = { role: 'tool', content: 'export const v1 = 1; // line 2\n', tool_call_id: 'call_1' };
    expect(redact(value)).toBe(value);
  });
});
