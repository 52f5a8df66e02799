/**
 * Redacting a text that JSON values carry in pieces: the deltas of a streamed reply (a reasoning
 * text, a tool call's arguments, each in its own server-sent event) or the tokens of a reply's
 * logprobs (`choices[0].logprobs.content[i].token`, one token a piece). Redacting each string on its
 * own leaves the part of a secret that does not look like one by itself (`"sk-proj-AB"`, then
 * `"Cdef…"`: the second survives), so the strings are grouped by where they sit, each group's
 * pieces redacted as one text and cut again where they were cut — the secret's `[REDACTED]` goes
 * where it starts, its remainder is dropped from the pieces after (as event-redactor.ts does for a
 * stream's chunks).
 *
 * A string's groups (the same text may be laid out more than one way, so each string is in up to
 * three, and every cut any of them makes is applied):
 * - the scope of its value (for a server-sent event: its name and the top-level `type`,
 *   `output_index`, `content_index`, `summary_index` and `item_id`), then its path, where an array
 *   element that has a numeric `index` field (a choice, a tool call) is named by that index and
 *   every other array position is collapsed to `*` — all tokens of all events, in order;
 * - the same with the first array position kept when it has no `index` field (`choices[0]` of a
 *   server that leaves `index` out);
 * - with two or more collapsed positions, the same with the last one kept: the k-th alternative at
 *   each token position (`content[*].top_logprobs[k].token`), which spells the text when the
 *   chosen token is listed first, as it is when nothing is sampled below the top.
 * Each string is also redacted on its own (a secret whole inside it whatever its neighbours are).
 *
 * Where a string changed inside an object that has a `bytes` array (a logprob token's UTF-8 bytes,
 * which spell the token too), the `bytes` become null.
 */
import { REDACTED, type Redactor } from './redact.js';

/** One string of a JSON value. */
export interface JsonLeaf {
  /** Object keys and array positions from the value to the string. */
  readonly path: readonly (string | number)[];
  readonly value: string;
  /** The groups the string belongs to (see the top of this file). */
  readonly groups: readonly string[];
  /** The string with every cut made: set by `recutLeaves` (until then, `value`). */
  next: string;
}

/** A step of a path: an object key, or an array position with the element's own `index` if it has one. */
type Step = { key: string } | { at: number; index: number | undefined };

/** The strings of a JSON value, in document order, grouped within `scope`. */
export function jsonLeaves(value: unknown, scope = ''): JsonLeaf[] {
  const out: JsonLeaf[] = [];
  const walk = (node: unknown, path: (string | number)[], steps: Step[]): void => {
    if (typeof node === 'string') {
      out.push({ path, value: node, groups: groupKeys(scope, steps), next: node });
    } else if (Array.isArray(node)) {
      node.forEach((item, at) => walk(item, [...path, at], [...steps, { at, index: ownIndex(item) }]));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) walk(item, [...path, key], [...steps, { key }]);
    }
  };
  walk(value, [], []);
  return out;
}

/** An array element's own `index` field (choices and tool-call deltas have one). */
function ownIndex(item: unknown): number | undefined {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const index = (item as { index?: unknown }).index;
  return typeof index === 'number' && Number.isInteger(index) ? index : undefined;
}

function groupKeys(scope: string, steps: readonly Step[]): string[] {
  const positions: number[] = [];
  steps.forEach((step, i) => {
    if ('at' in step && step.index === undefined) positions.push(i);
  });
  const render = (keep: number | undefined): string =>
    `${scope}\u0000${steps.map((step, i) => {
      if ('key' in step) return `.${JSON.stringify(step.key)}`;
      if (step.index !== undefined) return `[#${step.index}]`;
      return i === keep ? `[${step.at}]` : '[*]';
    }).join('')}`;
  const keys = new Set([render(undefined)]);
  const firstArray = steps.findIndex((step) => 'at' in step);
  if (firstArray !== -1 && positions[0] === firstArray) keys.add(render(firstArray));
  if (positions.length >= 2) keys.add(render(positions[positions.length - 1]));
  return [...keys];
}

/**
 * A part `[from, to)` of one string to cut out, found in one reading of it: `group`, the key of a
 * group of strings (undefined: the string on its own). `mark`: a secret starts there, so
 * `[REDACTED]` takes its place; otherwise it continues one that starts in `origin`, an earlier string
 * of that group.
 */
interface Cut {
  from: number;
  to: number;
  mark: boolean;
  group: string | undefined;
  origin: JsonLeaf | undefined;
}

/**
 * Redact the strings (of one value, or of a sequence of values, in order) by their groups: sets
 * each leaf's `next`.
 */
export function recutLeaves(leaves: readonly JsonLeaf[], redact: Redactor): void {
  const cuts = new Map<JsonLeaf, Cut[]>();
  const cutGroup = (group: readonly JsonLeaf[], key: string | undefined): void => {
    const whole = group.map((leaf) => leaf.value).join('');
    const spans = redact.spans(whole);
    if (spans.length === 0) return;
    let start = 0;
    let first = 0;
    // The string each span starts in (for the spans that reach past it).
    const origins = new Map<number, JsonLeaf>();
    for (const leaf of group) {
      const end = start + leaf.value.length;
      while (first < spans.length && (spans[first] as readonly [number, number])[1] <= start) first++;
      for (let j = first; j < spans.length; j++) {
        const [from, to] = spans[j] as readonly [number, number];
        if (from >= end) break;
        if (from >= start) origins.set(j, leaf);
        const cut: Cut = {
          from: Math.max(from, start) - start, to: Math.min(to, end) - start, mark: from >= start, group: key, origin: origins.get(j),
        };
        const list = cuts.get(leaf);
        if (list === undefined) cuts.set(leaf, [cut]);
        else list.push(cut);
      }
      start = end;
    }
  };
  const groups = new Map<string, JsonLeaf[]>();
  for (const leaf of leaves) {
    cutGroup([leaf], undefined);
    for (const key of leaf.groups) {
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [leaf]);
      else group.push(leaf);
    }
  }
  for (const [key, group] of groups) if (group.length > 1) cutGroup(group, key);
  for (const [leaf, list] of cuts) leaf.next = applyCuts(leaf.value, list);
}

/**
 * A string with its cuts made. Overlapping cuts are one, marked unless each reading that marks a
 * secret starting here also holds the earlier string where a secret continued here starts (that
 * reading shows the `[REDACTED]` there already): a secret whole inside the string on its own is not
 * marked again after the start of a longer one. A continuation seen only in another reading leaves
 * the mark: read in turn, the alternatives of logprob tokens can spell a key-shaped text starting in
 * an alternative that the chosen tokens' reading does not hold.
 */
function applyCuts(text: string, cuts: Cut[]): string {
  cuts.sort((a, b) => a.from - b.from);
  let out = '';
  let at = 0;
  let merged: Cut[] = [];
  let to = 0;
  const flush = (): void => {
    const from = (merged[0] as Cut).from;
    out += text.slice(at, from) + (marked(merged) ? REDACTED : '');
    at = to;
  };
  for (const cut of cuts) {
    if (merged.length > 0 && cut.from <= to) {
      merged.push(cut);
      to = Math.max(to, cut.to);
    } else {
      if (merged.length > 0) flush();
      merged = [cut];
      to = cut.to;
    }
  }
  if (merged.length > 0) flush();
  return out + text.slice(at);
}

/** Whether overlapping cuts of a string take a `[REDACTED]` (see applyCuts). */
function marked(cuts: readonly Cut[]): boolean {
  const continued = cuts.filter((cut) => !cut.mark);
  const shown = (cut: Cut): boolean => continued.some((c) => cut.group === undefined || c.origin?.groups.includes(cut.group) === true);
  return cuts.some((cut) => cut.mark && !shown(cut));
}

/**
 * The value with its leaves' `next` strings in place (a copy; the value itself when none changed),
 * and the `bytes` array next to a changed string set to null.
 */
export function withLeaves(value: unknown, leaves: readonly JsonLeaf[]): unknown {
  const changed = leaves.filter((leaf) => leaf.next !== leaf.value);
  if (changed.length === 0) return value;
  if (typeof value === 'string') return (changed[0] as JsonLeaf).next;
  const copy = structuredClone(value);
  for (const leaf of changed) {
    let parent = copy as Record<string | number, unknown>;
    for (const key of leaf.path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    parent[leaf.path[leaf.path.length - 1] as string | number] = leaf.next;
    if (!Array.isArray(parent) && Array.isArray(parent.bytes)) parent.bytes = null;
  }
  return copy;
}

/** A JSON value (a reply body) with its strings redacted by their groups; the value itself when nothing changed. */
export function recutJson(value: unknown, redact: Redactor): unknown {
  if (value === null || typeof value !== 'object') return value;
  const leaves = jsonLeaves(value);
  recutLeaves(leaves, redact);
  return withLeaves(value, leaves);
}
