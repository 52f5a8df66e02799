/** A count and its noun, singular for 1: `1 step`, `2 steps`, `0 steps`; `plural` for nouns not made with -s (`passes`). */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
