/**
 * Canonical JSON (docs/guardrails.md §1): object keys sorted by UTF-16 code unit at every depth, arrays in
 * order, no whitespace, strings and numbers exactly as `JSON.stringify` writes them. Two values that
 * differ only in key order give the same text, so the text can be hashed into a stable key.
 */
export function canonicalJson(value: unknown): string {
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
      out += canonicalJson(value[i] === undefined ? null : value[i]);
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
    out += JSON.stringify(key) + ':' + canonicalJson(field);
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
