/**
 * Whether a config's `redact` pattern compiles: asked by the zod schema (config.ts) and by the
 * quick check of a complete config (quick-config-check.ts), which must agree on every pattern.
 */
import { untrustedPatternError } from '../core/untrusted-pattern.js';

/** Whether `source` compiles as a `redact` pattern: RE2 syntax, as the redactor compiles it. */
export function isRegExp(source: string): boolean {
  return untrustedPatternError(source) === undefined;
}
