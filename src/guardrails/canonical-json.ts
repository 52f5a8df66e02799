/**
 * Canonical JSON (docs/guardrails.md §1): object keys sorted by UTF-16 code unit at every depth, arrays in
 * order, no whitespace, strings and numbers exactly as `JSON.stringify` writes them. Two values that
 * differ only in key order give the same text, so the text can be hashed into a stable key.
 */
export function canonicalJson(value: unknown): string {
  try {
    // Plain data whose keys are already in order at every depth (a tape's events and messages, which
    // are canonical JSON when read): JSON.stringify writes the same text, in one native call instead
    // of one per key and value.
    if (value !== null && typeof value === 'object' && inCanonicalOrder(value)) return JSON.stringify(value);
    return built(value);
  } catch (error) {
    // Nested deeper than the stack goes (tool arguments a model wrote thousands of levels deep, which
    // JSON.parse takes): the same text, built without recursion, so the key is the one it always was.
    if (error instanceof RangeError) return builtWithoutRecursion(value);
    throw error;
  }
}

/** An array or object being written, and how far. */
type Open =
  | { array: readonly unknown[]; next: number }
  | { record: Record<string, unknown>; keys: string[]; next: number; wrote: boolean };

/**
 * What `built` writes, with the open arrays and objects on a stack of its own instead of the call
 * stack: any depth. A value that contains itself is a TypeError (it has no JSON), not a loop.
 */
export function builtWithoutRecursion(value: unknown): string {
  let out = '';
  const stack: Open[] = [];
  const ancestors = new Set<object>();
  const enter = (item: unknown): void => {
    if (item === null || typeof item !== 'object') {
      out += JSON.stringify(item) ?? 'null';
      return;
    }
    if (ancestors.has(item)) throw new TypeError('canonicalJson: the value contains itself');
    ancestors.add(item);
    if (Array.isArray(item)) {
      out += '[';
      stack.push({ array: item, next: 0 });
    } else {
      out += '{';
      const record = item as Record<string, unknown>;
      stack.push({ record, keys: sortedKeys(record), next: 0, wrote: false });
    }
  };
  enter(value);
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    if ('array' in top) {
      if (top.next < top.array.length) {
        if (top.next > 0) out += ',';
        enter(top.array[top.next++]);
        continue;
      }
      out += ']';
      ancestors.delete(top.array);
    } else {
      while (top.next < top.keys.length && top.record[top.keys[top.next] as string] === undefined) top.next++;
      if (top.next < top.keys.length) {
        const key = top.keys[top.next++] as string;
        if (top.wrote) out += ',';
        top.wrote = true;
        out += JSON.stringify(key) + ':';
        enter(top.record[key]);
        continue;
      }
      out += '}';
      ancestors.delete(top.record);
    }
    stack.pop();
  }
  return out;
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
