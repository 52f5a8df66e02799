/**
 * A corpus of golden tapes: the `*.tape.jsonl[.gz]` files under the paths given (directories
 * searched recursively), in a stable order, and the shard each belongs to. Shards are even — their
 * sizes differ by one at most, as a CI matrix wants its machines equally busy — and depend only on
 * the tapes' relative paths: the tapes, ordered by a hash of their path, are cut into `count`
 * consecutive runs. Ordering by the hash spreads a directory's tapes over the shards; cutting into
 * runs (not dealing them out in turn) means a tape added or removed moves at most one other tape
 * across each cut.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { NotFoundError, UsageError } from '../core/errors.js';
import { compileUntrustedPattern } from '../core/untrusted-pattern.js';

export interface CorpusTape {
  /** Absolute path. */
  path: string;
  /** Path relative to the working directory, with `/` separators: the tape's name in reports. */
  relativePath: string;
}

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

const TAPE_NAME = /\.tape\.jsonl(\.gz)?$/;

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Every tape under `paths`, sorted by relative path, each once. A path that does not exist is exit 10. */
export async function findTapes(paths: readonly string[], cwd = process.cwd()): Promise<CorpusTape[]> {
  const found = new Map<string, CorpusTape>();
  for (const given of paths) {
    const absolute = resolve(cwd, given);
    let info;
    try {
      info = await stat(absolute);
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') throw new NotFoundError(`no such file or directory: ${given}`);
      throw error;
    }
    const files = info.isDirectory() ? await tapesUnder(absolute) : [absolute];
    for (const file of files) found.set(file, { path: file, relativePath: relative(cwd, file).split(sep).join('/') });
  }
  return [...found.values()].sort((a, b) => compare(a.relativePath, b.relativePath));
}

async function tapesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await tapesUnder(path)));
    else if (entry.isFile() && TAPE_NAME.test(entry.name)) out.push(path);
  }
  return out;
}

/**
 * `--filter <pattern>`: the tapes whose relative path (as reports name them) the pattern matches
 * anywhere. The pattern is the user's, so it is RE2 (untrusted-pattern.ts): a plain word matches as
 * a substring, and no pattern can make the match take long. A bad one is a usage error.
 */
export function matchingTapes(tapes: readonly CorpusTape[], pattern: string): CorpusTape[] {
  let compiled;
  try {
    compiled = compileUntrustedPattern(pattern);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new UsageError(`bad --filter pattern '${pattern}': ${error.message}`);
  }
  return tapes.filter((tape) => compiled.test(tape.relativePath));
}

/** `--shard i/n`: 1 ≤ i ≤ n. Anything else is a usage error. */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || index < 1 || index > count) {
    throw new UsageError(`bad --shard '${text}': expected i/n with 1 ≤ i ≤ n, e.g. 1/3`);
  }
  return { index, count };
}

/** The tapes of `shard`, in corpus order; all of them without one. */
export function inShard(tapes: readonly CorpusTape[], shard: Shard | undefined): CorpusTape[] {
  if (shard === undefined) return [...tapes];
  const byHash = tapes
    .map((tape) => ({ tape, key: shardKey(tape.relativePath) }))
    .sort((a, b) => compare(a.key, b.key) || compare(a.tape.relativePath, b.tape.relativePath));
  const from = Math.ceil(((shard.index - 1) * tapes.length) / shard.count);
  const to = Math.ceil((shard.index * tapes.length) / shard.count);
  const members = new Set(byHash.slice(from, to).map((entry) => entry.tape));
  return tapes.filter((tape) => members.has(tape));
}

/** A tape's place in the order shards are cut from: a hash of its relative path. */
const shardKey = (relativePath: string): string => createHash('sha256').update(relativePath).digest('hex');
