/**
 * `list.map(f)` whose result keeps one array shape (V8's "packed" elements) however V8 compiles the
 * caller.
 *
 * Why: once V8's optimising compiler inlines `Array.prototype.map` into a hot function, the arrays
 * that function returns change shape (from packed to "holey" elements). Every function that was
 * optimised on the earlier arrays then throws its optimised code away at the first new one
 * ("wrong map") and runs slowly until it is compiled again. With `map`, on a replay that happens
 * some 1,500 steps in, to the comparator and the replay's own step (six functions at once), and to
 * the tool step and the tool pipeline after a few hundred: a long replay's warm-up lasts thousands of
 * steps longer than it has to. Arrays built by `push` keep their shape whichever code builds them.
 *
 * For arrays on a replay's hot paths that other hot code reads; elsewhere `map` is fine.
 */
export function packedMap<T, U>(list: readonly T[], f: (item: T, index: number) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < list.length; i++) out.push(f(list[i] as T, i));
  return out;
}
