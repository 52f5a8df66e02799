/**
 * Secret redaction: nothing key-shaped is ever written to a tape or a log. Applied to every value
 * before it is stored, and to requests before they are hashed, so a replay (which only ever sees
 * redacted text) hashes its requests to the same values as the recording did.
 */

export const REDACTED = '[REDACTED]';

/** Key-shaped strings redacted everywhere: OpenAI-style keys and bearer tokens. */
const BUILT_IN_PATTERNS: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
];

/** Environment variables whose values are secrets by their name. */
export const SECRET_ENV_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_?KEY)/i;

export interface RedactorOptions {
  /** Exact secret values (the API key, secret-named env values). Values under 8 characters are ignored. */
  secrets?: readonly string[];
  /** Extra patterns (`--redact`), as regular-expression source text. */
  patterns?: readonly string[];
}

export type Redactor = <T>(value: T) => T;

/** Compile `--redact` patterns; a bad one is reported with its text. */
export function compilePatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((source) => {
    try {
      return new RegExp(source, 'g');
    } catch (error) {
      throw new SyntaxError(`bad --redact pattern '${source}': ${(error as Error).message}`);
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

/** A function that returns a deep copy of any JSON value with every secret replaced by `[REDACTED]`. */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  // Longest first, so a secret that contains another is replaced whole.
  const secrets = [...new Set((options.secrets ?? []).filter((s) => s.length >= 8))].sort((a, b) => b.length - a.length);
  const patterns = [...BUILT_IN_PATTERNS, ...compilePatterns(options.patterns ?? [])];
  const text = (input: string): string => {
    let out = input;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      out = out.replace(pattern, REDACTED);
    }
    return out;
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return text(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v);
      return out;
    }
    return value;
  };
  return <T>(value: T): T => walk(value) as T;
}
