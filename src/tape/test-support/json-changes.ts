/**
 * One random change anywhere in a JSON value (a key removed, an unknown key added, a value
 * replaced), for property tests that hold a quick check to its schema on values near valid ones.
 */
import fc from 'fast-check';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface JsonChange {
  where: number;
  which: number;
  kind: 'delete' | 'add' | 'replace';
  value: unknown;
}

/** Changes whose new values are small JSON values or one of `values` (near-misses worth trying: a bound, an enum's member). */
export function jsonChange(values: readonly unknown[]): fc.Arbitrary<JsonChange> {
  return fc.record({
    where: fc.nat(),
    which: fc.nat(),
    kind: fc.constantFrom('delete' as const, 'add' as const, 'replace' as const),
    value: fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constantFrom(...values)),
  });
}

/** Every object and array inside `value` (itself included). */
function containers(value: Json, out: (Json[] | { [key: string]: Json })[] = []): (Json[] | { [key: string]: Json })[] {
  if (value !== null && typeof value === 'object') {
    out.push(value);
    for (const child of Object.values(value)) containers(child, out);
  }
  return out;
}

/** A copy of `value` (an object or array) with one change at a place picked by `m`. */
export function changed(value: unknown, m: JsonChange): unknown {
  const copy = JSON.parse(JSON.stringify(value)) as Json;
  const targets = containers(copy);
  const target = targets[m.where % targets.length]!;
  const keys = Object.keys(target);
  const key = keys.length === 0 ? undefined : keys[m.which % keys.length]!;
  if (m.kind === 'add' && !Array.isArray(target)) target[`extra${m.which % 3}`] = m.value as Json;
  else if (m.kind === 'delete' && key !== undefined) {
    if (Array.isArray(target)) target.splice(Number(key), 1);
    else delete target[key];
  } else if (key !== undefined) (target as Record<string, Json>)[key] = m.value as Json;
  return copy;
}

/**
 * Whether a JSON value holds an own `__proto__` key anywhere. In a record zod rebuilds the record
 * without it, so a quick check leaves such a value to the schema; elsewhere (in a value of any
 * shape) it is kept as it is.
 */
export function holdsProtoKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  return Object.hasOwn(value, '__proto__') || Object.values(value).some(holdsProtoKey);
}
