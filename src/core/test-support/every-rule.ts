/**
 * The reference the redactor's prefilter is checked against: every built-in rule searched for over a
 * text's deepest reading, whatever keywords the text holds (the rules for a key standing alone, tried
 * at each run, as the redactor tries them).
 */
import { compileRules, merge, type Span } from '../redact.js';
import { SECRET_RULES } from '../secret-rules.js';
import { readings } from '../text-readings.js';

/** Every printable ASCII character but the capitals: a rule with all of them for keywords runs on every text here. */
const EVERY_CHARACTER = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter((c) => !/[A-Z]/.test(c));

const everyRule = compileRules(SECRET_RULES.map((rule) => (rule.keywords.length === 0 ? rule : { ...rule, keywords: EVERY_CHARACTER })));

/** The spans every rule finds in a text (one with an ASCII character), sorted and merged. */
export function everyRuleSpans(text: string): Span[] {
  const found: [number, number][] = [];
  const views = readings(text);
  const deepest = views.length === 0 ? undefined : views[views.length - 1];
  everyRule.spans(deepest?.text ?? text, deepest, found);
  return merge(found);
}
