/**
 * Every built-in rule against samples written without its pattern (test-support/secrets.ts): each
 * rule has samples, each rule finds exactly the secret of its samples, and the run's redactor
 * replaces every sample — in a text and in a value, at a line start, inside a line and inside JSON
 * text. A rule made weaker than the secrets it is for (a longer minimum, an alternative dropped, a
 * prefix broken) leaves a sample here unmatched, even where another rule would cover for it.
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, runRedactor, type Span } from './redact.js';
import { SECRET_RULES, type SecretRule } from './secret-rules.js';
import { RULE_SAMPLES, type RuleSample } from './test-support/secrets.js';

/** Where a text stands: how it is written around it. */
const CONTEXTS: Record<string, (text: string) => string> = {
  alone: (text) => text,
  'at a line start': (text) => `${text}\nthe next line`,
  'inside a line': (text) => `the key is ${text} (rotated daily)`,
  'quoted in JSON text': (text) => JSON.stringify({ token: text }),
  // As a tool call's arguments carry a file's content: each line after an escaped newline.
  'at a line start in JSON text': (text) => JSON.stringify({ path: '.env', content: `# keys\n${text}\n` }),
};

const secretOf = (sample: RuleSample): string => sample.secret ?? sample.text;

/** The text with every secret of the sample replaced, as a redactor must leave it. */
const redacted = (sample: RuleSample): string =>
  [secretOf(sample), ...(sample.also ?? [])].reduce((text, secret) => text.replaceAll(secret, REDACTED), sample.text);

/** Where a string stands in a text, every time. */
function occurrences(text: string, part: string): Span[] {
  const out: Span[] = [];
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) out.push([at, at + part.length]);
  return out;
}

/** What one rule, compiled as the redactor compiles it, replaces in a text. */
function ruleSpans(rule: SecretRule, text: string): Span[] {
  const out: Span[] = [];
  for (const match of text.matchAll(new RegExp(rule.source, `gd${rule.flags ?? ''}`))) {
    const where = match.indices?.[rule.group ?? 0];
    if (where !== undefined) out.push([where[0], where[1]]);
  }
  return out;
}

const ruleById = (id: string): SecretRule => {
  const rule = SECRET_RULES.find((r) => r.id === id);
  if (rule === undefined) throw new Error(`no rule ${id}`);
  return rule;
};

const named = RULE_SAMPLES.map((sample, i) => [`${sample.rule} #${i}`, sample] as const);

describe('the samples of the secret rules', () => {
  it('cover every rule, name only rules there are, and hold what they say is secret', () => {
    expect(new Set(RULE_SAMPLES.map((s) => s.rule))).toEqual(new Set(SECRET_RULES.map((r) => r.id)));
    for (const sample of RULE_SAMPLES) {
      for (const part of [secretOf(sample), ...(sample.also ?? [])]) expect(sample.text, sample.rule).toContain(part);
    }
  });
});

describe('each secret rule on its own', () => {
  it.each(named)('%s: finds exactly the secret, wherever the text stands', (_name, sample) => {
    const rule = ruleById(sample.rule);
    for (const [where, wrap] of Object.entries(CONTEXTS)) {
      const text = wrap(sample.text);
      // The secret as it is written there (escaped, in JSON text).
      const secret = where.includes('JSON') ? JSON.stringify(secretOf(sample)).slice(1, -1) : secretOf(sample);
      expect(ruleSpans(rule, text), `${where}: ${text}`).toEqual(occurrences(text, secret));
    }
  });
});

describe('the run\'s redactor on every sample', () => {
  const redactors = {
    'the run\'s redactor': runRedactor({ env: {} }),
    // A pattern of the user's changes what the quick test before the rules is made of.
    'with a pattern of the user\'s': runRedactor({ env: {}, patterns: ['tok3n-[0-9]+'] }),
  };

  it.each(named)('%s: leaves nothing of the secret in a text, wherever it stands', (_name, sample) => {
    for (const [who, redact] of Object.entries(redactors)) {
      for (const [where, wrap] of Object.entries(CONTEXTS)) {
        const out = redact.text(wrap(sample.text));
        expect(out, `${who}, ${where}`).toBe(wrap(redacted(sample)));
      }
    }
  });

  it.each(named)('%s: leaves nothing of the secret in a value, and the rest of it as it was', (_name, sample) => {
    for (const [who, redact] of Object.entries(redactors)) {
      const untouched = { role: 'system', content: 'no secret here' };
      const value = { messages: [untouched, { role: 'tool', content: [{ type: 'text', text: sample.text }] }], n: 1 };
      const out = redact(value);
      expect(out, who).toEqual({ messages: [untouched, { role: 'tool', content: [{ type: 'text', text: redacted(sample) }] }], n: 1 });
      expect(out.messages[0], who).toBe(untouched);
    }
  });
});
