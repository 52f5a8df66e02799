/**
 * Deep equality of two JSON values, without building anything: the fast check that runs on every
 * event of a replay. `ignore` names top-level keys left out of the comparison (timing, numbering).
 */
export function sameJson(a: unknown, b: unknown, ignore?: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let counted = 0;
  for (const key in x) {
    if (ignore?.has(key) === true || x[key] === undefined) continue;
    if (!sameJson(x[key], y[key])) return false;
    counted++;
  }
  for (const key in y) if (ignore?.has(key) !== true && y[key] !== undefined) counted--;
  return counted === 0;
}
