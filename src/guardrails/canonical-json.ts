/**
 * Canonical JSON (docs/guardrails.md §1): object keys sorted by UTF-16 code unit at every depth, arrays in
 * order, no whitespace, strings and numbers exactly as `JSON.stringify` writes them. Two values that
 * differ only in key order give the same text, so the text can be hashed into a stable key.
 */
export function canonicalJson(value: unknown): string {
  // Plain data whose keys are already in order at every depth (a tape's events and messages, which
  // are canonical JSON when read): JSON.stringify writes the same text, in one native call instead
  // of one per key and value.
  if (value !== null && typeof value === 'object' && inCanonicalOrder(value)) return JSON.stringify(value);
  return built(value);
}

/** canonicalJson for any value, built piece by piece. */
function built(value: unknown): string {
  // Built by string concatenation (V8 joins the pieces once, when the text is used): fewer
  // allocations than collecting parts in an array.
  if (value === null || typeof value !== 'object') {
    // JSON.stringify gives undefined for undefined/functions/symbols; JSON has no such values.
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += built(value[i] === undefined ? null : value[i]);
    }
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  const keys = sortedKeys(record);
  let out = '{';
  for (const key of keys) {
    const field = record[key];
    if (field === undefined) continue;
    if (out.length > 1) out += ',';
    out += JSON.stringify(key) + ':' + built(field);
  }
  return out + '}';
}

/**
 * The object's keys in UTF-16 code unit order (what the default sort and `<` on strings both use).
 * Most objects here have a few keys, often already in order (a tape's events are canonical JSON):
 * those are sorted in place by insertion, without the temporary array Array.prototype.sort allocates
 * — a measurable share of a long replay's garbage. Larger objects use the default sort.
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    if ((keys[j] as string) <= key) continue;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/**
 * Whether JSON.stringify writes `value` as canonicalJson does: arrays and plain objects only (no
 * `toJSON` for JSON.stringify to call, no other prototype than Object's), every object's keys
 * already in code unit order — which also rules out integer-like keys out of that order, as
 * JavaScript lists those first — and no function or symbol anywhere (JSON.stringify leaves such a
 * member out, canonicalJson writes null).
 */
function inCanonicalOrder(value: object): boolean {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!plainMember(item)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let previous: string | null = null;
  for (const key in value) {
    if (previous !== null && previous >= key) return false;
    previous = key;
    if (!plainMember((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function plainMember(value: unknown): boolean {
  if (typeof value === 'object') return value === null || inCanonicalOrder(value);
  return typeof value !== 'function' && typeof value !== 'symbol';
}
