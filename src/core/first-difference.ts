/** The first place two JSON values differ, as a path like `messages[3].content` (keys in sorted order). */
export interface Difference {
  path: string;
  recorded: unknown;
  replayed: unknown;
}

export function firstDifference(recorded: unknown, replayed: unknown, path = ''): Difference | null {
  if (Object.is(recorded, replayed)) return null;
  const bothArrays = Array.isArray(recorded) && Array.isArray(replayed);
  const bothObjects = isRecord(recorded) && isRecord(replayed);
  if (bothArrays) {
    const a = recorded as unknown[];
    const b = replayed as unknown[];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const diff = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (diff !== null) return diff;
    }
    return null;
  }
  if (bothObjects) {
    const a = recorded as Record<string, unknown>;
    const b = replayed as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      // Own keys only: a key one side lacks is absent there, not Object's `constructor` or `toString`.
      const diff = firstDifference(Object.hasOwn(a, key) ? a[key] : undefined, Object.hasOwn(b, key) ? b[key] : undefined, path === '' ? key : `${path}.${key}`);
      if (diff !== null) return diff;
    }
    return null;
  }
  return { path: path === '' ? '(value)' : path, recorded, replayed };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
