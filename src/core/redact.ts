/**
 * Secret redaction: nothing key-shaped is ever written to a tape or a log. Applied to every value
 * before it is stored or printed, and to requests before they are hashed, so a replay (which only
 * ever sees redacted text) hashes its requests to the same values as the recording did.
 *
 * A redactor finds the *spans* of a text that are secret — exact secret values (the API key,
 * secret-named environment values), the key-shaped rules of secret-rules.ts, and the user's own
 * patterns — merges them, and replaces each with `[REDACTED]`. Working on spans of the original
 * text makes the result independent of the order of the rules (a secret that contains another is
 * replaced whole) and lets a stream be redacted as a whole and cut again (event-redactor.ts).
 */
import { SECRET_RULES } from './secret-rules.js';
import { compileUntrustedPattern, type UntrustedPattern } from './untrusted-pattern.js';

export const REDACTED = '[REDACTED]';

/** Environment variables whose values are secrets by their name. */
export const SECRET_ENV_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_?KEY)/i;

export interface RedactorOptions {
  /** Exact secret values (the API key, secret-named env values). Values under 8 characters are ignored. */
  secrets?: readonly string[];
  /** Extra patterns (`--redact`, the config's `redact`), as RE2 source text (untrusted-pattern.ts). */
  patterns?: readonly string[];
}

/** `[start, end)` of a secret in a text. */
export type Span = readonly [number, number];

export interface Redactor {
  /** A copy of any JSON value with every secret replaced (parts that hold none are shared, not copied). */
  <T>(value: T): T;
  /** One text with every secret replaced. */
  text(input: string): string;
  /** Where the secrets of a text are: sorted, merged spans. */
  spans(input: string): Span[];
  /**
   * True when it leaves every string of lowercase hex digits (a digest) as it is: the built-in rules
   * cannot match one (each needs another character), nor can a secret that has another character.
   * False when it has patterns of the user's, which might; absent (a redactor made elsewhere) counts
   * as false.
   */
  readonly keepsHex?: boolean;
}

interface Matcher {
  pattern: RegExp;
  group: number;
}

/**
 * Compile redact patterns (`--redact`, the config's and the library's `redact`) for linear-time
 * matching: a pattern may come from a tape; a bad one is reported with its text.
 */
export function compilePatterns(patterns: readonly string[]): UntrustedPattern[] {
  return patterns.map((source) => {
    try {
      return compileUntrustedPattern(source);
    } catch (error) {
      throw new SyntaxError(`bad redact pattern '${source}': ${(error as Error).message}`);
    }
  });
}

/** Secret values in an environment, by variable name. */
export function secretsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= 8 && SECRET_ENV_NAME.test(name)) out.push(value);
  }
  return out;
}

/**
 * The redactor of a run, for every path that writes or shows one (record, replay, the library's
 * recorder and replayer, the reporters): the model's API key, the secret-named environment values,
 * the built-in rules and the user's patterns.
 */
export function runRedactor(options: { apiKey?: string | null; env?: NodeJS.ProcessEnv; patterns?: readonly string[] } = {}): Redactor {
  const apiKey = options.apiKey === undefined || options.apiKey === null ? [] : [options.apiKey];
  const secrets = [...apiKey, ...secretsFromEnv(options.env ?? process.env)];
  return createRedactor({ secrets, patterns: options.patterns ?? [] });
}

export function createRedactor(options: RedactorOptions = {}): Redactor {
  const secrets = [...new Set((options.secrets ?? []).filter((s) => s.length >= 8))];
  const matchers: Matcher[] = SECRET_RULES.map((rule) => ({ pattern: new RegExp(rule.source, `gd${rule.flags ?? ''}`), group: rule.group ?? 0 }));
  const userPatterns = compilePatterns(options.patterns ?? []);

  const mightMatch = quickTest(userPatterns);

  /** No spans: one shared, frozen array for the common answer. */
  const NONE = Object.freeze([]) as unknown as Span[];
  const spans = (input: string): Span[] => {
    let found: [number, number][] | null = null;
    for (const secret of secrets) {
      for (let at = input.indexOf(secret); at >= 0; at = input.indexOf(secret, at + 1)) (found ??= []).push([at, at + secret.length]);
    }
    // Most text holds no secret: one cheap test skips the rules' match-with-indices scans.
    if (!mightMatch(input)) return found === null ? NONE : merge(found);
    found ??= [];
    for (const { pattern, group } of matchers) {
      pattern.lastIndex = 0;
      for (const match of input.matchAll(pattern)) {
        const where = match.indices?.[group];
        if (where !== undefined && where[1] > where[0]) found.push([where[0], where[1]]);
      }
    }
    for (const pattern of userPatterns) for (const span of pattern.spans(input)) found.push(span);
    return merge(found);
  };

  const text = (input: string): string => replaceSpans(input, spans(input));

  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const next = walk(value[i]);
        if (next !== value[i]) (out ??= value.slice())[i] = next;
      }
      return out ?? value;
    }
    if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      let out: Record<string, unknown> | null = null;
      // Keys, not entries: no [key, value] pair allocated per field of every event printed or written.
      for (const k of Object.keys(record)) {
        const v = record[k];
        const next = walk(v);
        if (next !== v) (out ??= { ...record })[k] = next;
      }
      return out ?? value;
    }
    return value;
  };

  const keepsHex = userPatterns.length === 0 && secrets.every((secret) => /[^0-9a-f]/.test(secret));
  return Object.assign(<T>(value: T): T => walk(value) as T, { text, spans, keepsHex });
}

/**
 * The built-in rules as alternations, one per set of flags (most rules have none; two ignore case):
 * together they match wherever a rule matches (an alternation matches where one of its branches
 * does), so a text none of them matches holds nothing a rule would redact. They test far faster than
 * the rules one by one with the `d` flag, and ignoring case only in the alternation of the rules
 * that do keeps the other one some three times faster than a single case-insensitive alternation.
 */
const ANY_RULE: readonly RegExp[] = (() => {
  const byFlags = new Map<string, string[]>();
  for (const rule of SECRET_RULES) {
    const flags = rule.flags ?? '';
    byFlags.set(flags, [...(byFlags.get(flags) ?? []), `(?:${rule.source})`]);
  }
  return [...byFlags].map(([flags, sources]) => new RegExp(sources.join('|'), flags));
})();

/** A test that is true for every text some matcher may match: ANY_RULE for the built-in rules, and each user pattern. */
function quickTest(userPatterns: readonly UntrustedPattern[]): (input: string) => boolean {
  const tests: readonly { test(input: string): boolean }[] = [...ANY_RULE, ...userPatterns];
  // A loop, not tests.some(): no closure allocated for every text tested.
  return (input) => {
    for (const pattern of tests) if (pattern.test(input)) return true;
    return false;
  };
}

/** A redactor that finds nothing: for values that hold no secrets by construction. */
export const NO_REDACTION: Redactor = Object.assign(<T>(value: T): T => value, {
  text: (input: string) => input,
  spans: (): Span[] => [],
  keepsHex: true,
});

/** Sorted spans with overlapping and touching ones merged. */
function merge(spans: [number, number][]): Span[] {
  if (spans.length <= 1) return spans;
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: [number, number][] = [];
  for (const span of spans) {
    const last = out[out.length - 1];
    if (last !== undefined && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else out.push([span[0], span[1]]);
  }
  return out;
}

/** `input` with each span replaced by `[REDACTED]`. */
export function replaceSpans(input: string, spans: readonly Span[]): string {
  if (spans.length === 0) return input;
  let out = '';
  let at = 0;
  for (const [start, end] of spans) {
    out += input.slice(at, start) + REDACTED;
    at = end;
  }
  return out + input.slice(at);
}
