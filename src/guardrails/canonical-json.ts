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
  // Default sort compares UTF-16 code units, which is what the spec asks for.
  const keys = Object.keys(record).sort();
  let out = '{';
  for (const key of keys) {
    const field = record[key];
    if (field === undefined) continue;
    if (out.length > 1) out += ',';
    out += JSON.stringify(key) + ':' + canonicalJson(field);
  }
  return out + '}';
}
