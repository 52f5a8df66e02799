/**
 * Canonical JSON (docs/guardrails.md §1): object keys sorted by UTF-16 code unit at every depth, arrays in
 * order, no whitespace, strings and numbers exactly as `JSON.stringify` writes them. Two values that
 * differ only in key order give the same text, so the text can be hashed into a stable key.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

function write(value: unknown, out: string[]): void {
  if (value === null || typeof value !== 'object') {
    // JSON.stringify gives undefined for undefined/functions/symbols; JSON has no such values.
    out.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      write(value[i] === undefined ? null : value[i], out);
    }
    out.push(']');
    return;
  }
  const record = value as Record<string, unknown>;
  // Default sort compares UTF-16 code units, which is what the spec asks for.
  const keys = Object.keys(record)
    .filter((k) => record[k] !== undefined)
    .sort();
  out.push('{');
  keys.forEach((key, i) => {
    if (i > 0) out.push(',');
    out.push(JSON.stringify(key), ':');
    write(record[key], out);
  });
  out.push('}');
}
