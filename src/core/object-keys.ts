/**
 * Keys that name a part of JavaScript's object machinery — `__proto__`, `constructor`, `prototype` —
 * are kept out of agentctl's own records: its events, configs, checkpoints and counters. JSON.parse
 * makes `"__proto__"` an own property, which a record schema may pass as no field at all, and code
 * that copies a value key by key (`out[key] = …`) then sets the copy's prototype instead; a lookup
 * such as `tools[name]` finds Object's own `constructor` where no entry is. Unknown fields are
 * refused by the schemas, and these are the ones that would not be.
 */
const MACHINERY = new Set(['__proto__', 'constructor', 'prototype']);

export function isObjectMachineryKey(key: string): boolean {
  return MACHINERY.has(key);
}

/**
 * Where the first machinery key in a parsed JSON value is (`config.tools.constructor`), or null. The
 * values of keys in `skip` are not walked: data agentctl keeps as it came and never reads key by key.
 * Nesting deeper than MAX_WALK_DEPTH is not walked (no record of agentctl's is that deep, and its
 * schemas refuse what is): a hostile value cannot overflow the stack here.
 */
export function machineryKeyPath(value: unknown, skip: ReadonlySet<string> = NONE): string | null {
  return walk(value, skip, '', 0);
}

const MAX_WALK_DEPTH = 256;
const NONE: ReadonlySet<string> = new Set();

function walk(value: unknown, skip: ReadonlySet<string>, path: string, depth: number): string | null {
  if (typeof value !== 'object' || value === null || depth > MAX_WALK_DEPTH) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], skip, `${path}${path === '' ? '' : '.'}${i}`, depth + 1);
      if (found !== null) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (MACHINERY.has(key)) return at;
    if (skip.has(key)) continue;
    const found = walk((value as Record<string, unknown>)[key], skip, at, depth + 1);
    if (found !== null) return found;
  }
  return null;
}
