/**
 * Keys that name a part of JavaScript's object machinery — `__proto__`, `constructor`, `prototype` —
 * are refused anywhere in a tape line. JSON.parse makes `"__proto__"` an own property, which a strict
 * schema may pass as no field at all, and code that copies a value key by key (`out[key] = …`) then
 * sets the copy's prototype instead: unknown fields are refused, and these are the ones that would
 * not be. No tape agentctl writes has one: not its events, its configs or its counters.
 */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Where the first forbidden key in a parsed line is (`run.config.__proto__`), or null. `text` is the
 * line: one that spells none of the keys, nor any `\u` escape that could spell one, is not walked.
 */
export function forbiddenKey(text: string, value: unknown): string | null {
  if (!text.includes('__proto__') && !text.includes('constructor') && !text.includes('prototype') && !text.includes('\\u')) return null;
  return walk(value, '');
}

/** Depth is bounded: a line is parsed only once its nesting is known to be within the tape's limit. */
function walk(value: unknown, path: string): string | null {
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], `${path}${path === '' ? '' : '.'}${i}`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (FORBIDDEN.has(key)) return at;
    const found = walk((value as Record<string, unknown>)[key], at);
    if (found !== null) return found;
  }
  return null;
}
