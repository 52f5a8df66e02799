import { TapeFormatError } from '../core/errors.js';

/**
 * Readers for guardrail state restored from a tape checkpoint. A tape is untrusted input, so a
 * malformed checkpoint is refused as bad tape data (exit 9) rather than half-restored: a guard
 * that silently starts from zero would change the run's decisions without saying so.
 */

/** The version written into every guardrail state; bumped when a state's shape changes. */
export const GUARDRAIL_STATE_VERSION = 1;

/** Throw the TapeFormatError for a malformed part of a state. */
export function fail(what: string, problem: string): never {
  throw new TapeFormatError(`invalid guardrail state: ${what} ${problem}`);
}

/** A plain object (not null, not an array). */
export function readObject(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(what, 'must be an object');
  return value as Record<string, unknown>;
}

/** Refuse a state written by another version of its shape. */
export function readVersion(state: Record<string, unknown>, what: string): void {
  if (state.version !== GUARDRAIL_STATE_VERSION) {
    fail(`${what}.version`, `must be ${GUARDRAIL_STATE_VERSION}, got ${JSON.stringify(state.version) ?? 'nothing'}`);
  }
}

/** A non-negative integer. */
export function readCount(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) fail(what, 'must be a non-negative integer');
  return value;
}

/** A string. */
export function readString(value: unknown, what: string): string {
  if (typeof value !== 'string') fail(what, 'must be a string');
  return value;
}

/** A non-negative integer or nothing. */
export function readOptionalCount(value: unknown, what: string): number | undefined {
  return value === undefined ? undefined : readCount(value, what);
}

/** A string or nothing. */
export function readOptionalString(value: unknown, what: string): string | undefined {
  return value === undefined ? undefined : readString(value, what);
}

/** An array of `[name, value]` pairs (how Maps are stored, keeping their order). */
export function readPairs<T>(value: unknown, what: string, readValue: (v: unknown, what: string) => T): Array<[string, T]> {
  if (!Array.isArray(value)) fail(what, 'must be an array of [key, value] pairs');
  const seen = new Set<string>();
  return value.map((pair: unknown, i): [string, T] => {
    if (!Array.isArray(pair) || pair.length !== 2) fail(`${what}[${i}]`, 'must be a [key, value] pair');
    const name = readString(pair[0], `${what}[${i}][0]`);
    if (seen.has(name)) fail(`${what}[${i}][0]`, `repeats the key ${JSON.stringify(name)}`);
    seen.add(name);
    return [name, readValue(pair[1], `${what}[${i}][1]`)];
  });
}
