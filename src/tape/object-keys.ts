/**
 * Keys that name a part of JavaScript's object machinery — `__proto__`, `constructor`, `prototype` —
 * are refused in a tape line's own records. JSON.parse makes `"__proto__"` an own property, which a
 * record schema may pass as no field at all, and code that copies a value key by key (`out[key] = …`)
 * then sets the copy's prototype instead: unknown fields are refused, and these are the ones that
 * would not be. No record agentctl writes has one: not its events, its configs or its counters.
 */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Fields that hold what a client or a model sent, kept as data and never read key by key: request
 * and reply bodies, a request's parameters (a JSON schema there may well have a property named
 * `constructor`), and the recorded and replayed values a divergence quotes. A tape must be able to
 * hold any of them, or agentctl would write tapes it then refuses.
 */
const PAYLOADS = new Set(['body', 'params', 'recorded', 'replayed']);

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
    if (PAYLOADS.has(key)) continue;
    const found = walk((value as Record<string, unknown>)[key], at);
    if (found !== null) return found;
  }
  return null;
}
