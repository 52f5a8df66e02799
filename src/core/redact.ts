/**
 * Secret redaction: nothing key-shaped is ever written to a tape or a log. Applied to every value
 * before it is stored or printed, and to requests before they are hashed, so a replay (which only
 * ever sees redacted text) hashes its requests to the same values as the recording did.
 *
 * A redactor finds the *spans* of a text that are secret — exact secret values (the API key,
 * secret-named environment values), the rules of secret-rules.ts, and the user's own patterns —
 * merges them, and replaces each with `[REDACTED]`. Working on spans of the original text makes the
 * result independent of the order of the rules (a secret that contains another is replaced whole) and
 * lets a stream be redacted as a whole and cut again (event-redactor.ts).
 *
 * Every text is searched as it reads, not only as it is written (text-readings.ts): JSON string
 * escapes decoded, level after level, and terminal colour codes dropped. The rules search the
 * deepest reading; the exact values and the user's patterns the text as written too (a value may
 * hold a backslash that reads otherwise). A span found in a reading is replaced where it was written,
 * in its encoded form — one mechanism for a plain text, a tool call's JSON arguments, a reply body
 * and the raw text of a stream's events.
 */
import { KeywordIndex } from './keyword-index.js';
import { SECRET_RULES, type SecretRule } from './secret-rules.js';
import { originalSpan, readings, type Reading } from './text-readings.js';
import { compileUntrustedPattern, type UntrustedPattern } from './untrusted-pattern.js';

export const REDACTED = '[REDACTED]';

/** The shortest secret: an exact value shorter is ignored, and no built-in rule matches fewer characters. */
export const MIN_SECRET_LENGTH = 8;

/** Environment variables whose values are secrets by their name. */
export const SECRET_ENV_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_?KEY)/i;

export interface RedactorOptions {
  /** Exact secret values (the API key, secret-named env values). Values under 8 characters are ignored. */
  secrets?: readonly string[];
  /** Extra patterns (`--redact`, the config's `redact`), as regular-expression source text. */
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

/** Compile redact patterns (`--redact`, the config's and the library's `redact`); a bad one is reported with its text. */
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
 * the built-in rules and the user's patterns; `secrets`, more exact values (what a config gives its MCP servers).
 */
export function runRedactor(
  options: { apiKey?: string | null; env?: NodeJS.ProcessEnv; patterns?: readonly string[]; secrets?: readonly string[] } = {},
): Redactor {
  const apiKey = options.apiKey === undefined || options.apiKey === null ? [] : [options.apiKey];
  const secrets = [...apiKey, ...secretsFromEnv(options.env ?? process.env), ...(options.secrets ?? [])];
  return createRedactor({ secrets, patterns: options.patterns ?? [] });
}

export function createRedactor(options: RedactorOptions = {}): Redactor {
  const secrets = [...new Set((options.secrets ?? []).filter((s) => s.length >= MIN_SECRET_LENGTH))];
  const patterns = compilePatterns(options.patterns ?? []);
  const rules = builtInRules();

  /** No spans: one shared, frozen array for the common answer. */
  const NONE = Object.freeze([]) as unknown as Span[];
  const spans = (input: string): Span[] => {
    // Nothing shorter than a secret can be one (the rules' shortest match is as long: secret-rules.test.ts).
    if (input.length < MIN_SECRET_LENGTH && patterns.length === 0) return NONE;
    const found = scratch;
    // Left over only by a call that threw (a user's pattern, say): never let it spill into this one.
    if (found.length > 0) found.length = 0;
    const views = readings(input);
    // Not `views[views.length - 1]` on an empty list: an index of -1 is a slow property lookup.
    const deepest = views.length === 0 ? undefined : views[views.length - 1];
    for (const secret of secrets) {
      exactSpans(input, secret, undefined, found);
      for (const view of views) exactSpans(view.text, secret, view, found);
    }
    rules.spans(deepest?.text ?? input, deepest, found);
    for (const pattern of patterns) {
      patternSpans(input, pattern, undefined, found);
      if (deepest !== undefined) patternSpans(deepest.text, pattern, deepest, found);
    }
    if (found.length === 0) return NONE;
    const out = merge(found.slice());
    found.length = 0;
    return out;
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

  const keepsHex = patterns.length === 0 && secrets.every((secret) => /[^0-9a-f]/.test(secret));
  return Object.assign(<T>(value: T): T => walk(value) as T, { text, spans, keepsHex });
}

/**
 * Where a call of a redactor's `spans` gathers what it finds, shared by every call: a call runs to its
 * end before the next begins, and most find nothing (no list made for them).
 */
const scratch: [number, number][] = [];

/** A span `[start, end)` of `text` (a reading, or the original when `view` is undefined), added to `found` in the original's terms. */
function add(found: [number, number][], view: Reading | undefined, start: number, end: number): void {
  if (end <= start) return;
  found.push(view === undefined ? [start, end] : originalSpan(view, start, end));
}

function exactSpans(text: string, secret: string, view: Reading | undefined, found: [number, number][]): void {
  for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1)) add(found, view, at, at + secret.length);
}

function patternSpans(text: string, pattern: UntrustedPattern, view: Reading | undefined, found: [number, number][]): void {
  for (const [start, end] of pattern.spans(text)) add(found, view, start, end);
}

interface CompiledRule {
  pattern: RegExp;
  group: number;
  entropy: number;
  unless: RegExp | null;
}

/** The built-in rules, compiled, with the one pass that finds which of them can match a text. */
interface BuiltInRules {
  /** Adds the spans of every rule in `text` (the reading `view`, or the original) to `found`. */
  spans(text: string, view: Reading | undefined, found: [number, number][]): void;
}

let builtIn: BuiltInRules | undefined;

/** Compiled once, by the first redactor a process makes (a command that redacts nothing pays nothing). */
function builtInRules(): BuiltInRules {
  builtIn ??= compileRules(SECRET_RULES);
  return builtIn;
}

/** The shortest run of base64 characters a rule without keywords is for (an AWS secret key: 40). */
const MIN_RUN = 40;

/**
 * The rules of a table compiled for redaction: a rule with keywords runs only on a text that holds
 * one of them, and a rule without (a key standing alone) only at the start of each run of base64
 * characters long enough to be one — one pass of a KeywordIndex finds both.
 */
export function compileRules(table: readonly SecretRule[]): BuiltInRules {
  const compiled: CompiledRule[] = table.map((rule) => ({
    // Sticky for a rule without keywords: tried where a run starts, not searched for from there on.
    pattern: new RegExp(rule.source, `${rule.keywords.length === 0 ? 'y' : 'g'}d${rule.flags ?? ''}`),
    group: rule.group ?? 0,
    entropy: rule.entropy ?? 0,
    unless: rule.unless === undefined ? null : new RegExp(rule.unless, 'i'),
  }));
  const keywords = [...new Set(table.flatMap((rule) => rule.keywords))];
  const index = new KeywordIndex(keywords, MIN_RUN);
  /** For each keyword (by its id in the index), the rules that have it. */
  const rulesOf: number[][] = keywords.map(() => []);
  const atRuns: CompiledRule[] = [];
  table.forEach((rule, r) => {
    if (rule.keywords.length === 0) atRuns.push(compiled[r] as CompiledRule);
    for (const keyword of rule.keywords) rulesOf[keywords.indexOf(keyword)]?.push(r);
  });
  // Scratch space, reused by every call (a call runs to its end before the next begins).
  const seen = new Uint8Array(keywords.length);
  const hits = new Int32Array(keywords.length);
  const chosen = new Uint8Array(table.length);
  const toRun = new Int32Array(table.length);
  const runs: number[] = [];

  return {
    spans(text, view, found) {
      if (runs.length > 0) runs.length = 0;
      const hitCount = index.scan(text, seen, hits, runs);
      let count = 0;
      for (let h = 0; h < hitCount; h++) {
        const keyword = hits[h] as number;
        seen[keyword] = 0;
        for (const r of rulesOf[keyword] as number[]) {
          if (chosen[r] === 1) continue;
          chosen[r] = 1;
          toRun[count++] = r;
        }
      }
      for (let k = 0; k < count; k++) {
        const r = toRun[k] as number;
        chosen[r] = 0;
        ruleSpans(text, compiled[r] as CompiledRule, view, found);
      }
      for (const start of runs) for (const rule of atRuns) ruleSpans(text, rule, view, found, start);
    },
  };
}

/** The spans of one rule in a text: every match from `from` on (one, at `from`, for a sticky rule). */
function ruleSpans(text: string, rule: CompiledRule, view: Reading | undefined, found: [number, number][], from = 0): void {
  const { pattern, group, entropy, unless } = rule;
  pattern.lastIndex = from;
  for (let match = pattern.exec(text); match !== null; match = pattern.sticky ? null : pattern.exec(text)) {
    if (match[0].length === 0) {
      pattern.lastIndex = match.index + 1;
      continue;
    }
    const indices = match.indices as RegExpIndicesArray;
    let where = indices[0] as [number, number];
    for (let g = group; g > 0 && g < indices.length; g++) {
      const taken = indices[g];
      if (taken !== undefined) {
        where = taken;
        break;
      }
    }
    const [start, end] = where;
    if (entropy > 0 && shannonEntropy(text, start, end) < entropy) continue;
    if (unless !== null && unless.test(text.slice(nameStart(text, match.index), match.index + match[0].length))) continue;
    add(found, view, start, end);
  }
}

/** Where the name a match continues starts: the word characters, dots and dashes right before it (at most 50). */
function nameStart(text: string, at: number): number {
  let start = at;
  while (start > 0 && at - start < 50 && /[\w.-]/.test(text[start - 1] as string)) start--;
  return start;
}

/** Bits a character of `text.slice(start, end)`, by the frequencies of its characters. */
export function shannonEntropy(text: string, start = 0, end = text.length): number {
  const counts = new Map<number, number>();
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let bits = 0;
  const n = end - start;
  for (const count of counts.values()) bits -= (count / n) * Math.log2(count / n);
  return bits;
}

/** A redactor that finds nothing: for values that hold no secrets by construction. */
export const NO_REDACTION: Redactor = Object.assign(<T>(value: T): T => value, {
  text: (input: string) => input,
  spans: (): Span[] => [],
  keepsHex: true,
});

/** Sorted spans with overlapping and touching ones merged (the list given is sorted in place). */
export function merge(spans: [number, number][]): Span[] {
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
