/**
 * Samples of secrets, made at test time from templates (the `samples` of secret-rules.ts, the shapes
 * of test-support/secrets.ts), so that the repository holds no key-shaped literal a scanner would
 * flag. A template is literal text with:
 * - `<kN>`: N random characters of kind k (KINDS below), `<N:chars>`: N drawn from `chars`;
 * - `{{…}}`: the part of the text that is the secret (without it, the whole text is).
 * Random characters come from a generator seeded by the caller: a sample is the same on every run.
 */

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const DIGITS = '0123456789';

/** The kinds of random characters a template draws. */
const KINDS: Readonly<Record<string, string>> = {
  d: DIGITS,
  h: '0123456789abcdef',
  H: '0123456789ABCDEF',
  a: LOWER,
  A: UPPER,
  L: LOWER + UPPER,
  l: LOWER + DIGITS,
  u: UPPER + DIGITS,
  n: LOWER + UPPER + DIGITS,
  w: `${LOWER}${UPPER}${DIGITS}_-`,
  b: `${LOWER}${UPPER}${DIGITS}+/`,
  v: `${UPPER}234567`,
};

/** A sample: its text, and the part of it that is the secret. */
export interface Sample {
  text: string;
  secret: string;
}

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed from a name: the same name, the same sample, whatever else the table holds. */
export function seedOf(name: string): number {
  let hash = 2166136261;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619);
  return hash >>> 0;
}

/** The sample a template writes, drawing from `random`. */
export function expand(template: string, random: () => number): Sample {
  const draw = (chars: string, count: number): string => {
    let out = '';
    for (let i = 0; i < count; i++) out += chars[Math.floor(random() * chars.length)];
    return out;
  };
  const filled = template.replace(/<(?:([a-zA-Z])(\d+)|(\d+):([^>]+))>/g, (whole, kind?: string, n?: string, count?: string, chars?: string) => {
    if (chars !== undefined) return draw(chars, Number(count));
    const set = KINDS[kind as string];
    if (set === undefined) throw new Error(`unknown kind in sample template: ${whole}`);
    return draw(set, Number(n));
  });
  const open = filled.indexOf('{{');
  if (open === -1) return { text: filled, secret: filled };
  const close = filled.indexOf('}}', open);
  if (close === -1) throw new Error(`unclosed {{ in sample template: ${template}`);
  const secret = filled.slice(open + 2, close);
  return { text: filled.slice(0, open) + secret + filled.slice(close + 2), secret };
}
