/**
 * Whether a config's `redact` pattern compiles: asked by the zod schema (config.ts) and by the
 * quick check of a complete config (quick-config-check.ts), which must agree on every pattern.
 */

/** Whether `source` compiles as a regular expression (a `redact` pattern). */
export function isRegExp(source: string): boolean {
  try {
    new RegExp(source, 'g');
    return true;
  } catch {
    return false;
  }
}
