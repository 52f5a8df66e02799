/**
 * A corpus of golden tapes: the `*.tape.jsonl[.gz]` files under the paths given (directories
 * searched recursively, symbolic links to files followed, links to directories never entered, so no
 * walk can go round a cycle), in a stable order, and the shard each belongs to. Shards are even — their
 * sizes differ by one at most, as a CI matrix wants its machines equally busy — and depend only on
 * the tapes' relative paths: the tapes, ordered by a hash of their path, are cut into `count`
 * consecutive runs. Ordering by the hash spreads a directory's tapes over the shards; cutting into
 * runs (not dealing them out in turn) means a tape added or removed moves at most one other tape
 * across each cut.
 */
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { NotFoundError, UsageError } from '../core/errors.js';
import { readFailure } from '../core/fs-failure.js';
import { quotedInput } from '../core/terminal-text.js';
import { compileUntrustedPattern } from '../core/untrusted-pattern.js';

export interface CorpusTape {
  /** Absolute path. */
  path: string;
  /** Path relative to the working directory, with `/` separators: the tape's name in reports. */
  relativePath: string;
  /**
   * Found in a directory under a tape's name but no regular file (a named pipe, a socket, a link to
   * nothing or to a directory): why it is no tape. Reported invalid, never opened — a named pipe
   * would wait for a writer.
   */
  notAFile?: string;
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
      if ((error as { code?: string }).code === 'ENOENT') throw new NotFoundError(`no such file or directory: ${quotedInput(given)}`);
      throw readFailure(quotedInput(given), error);
    }
    const files: Found[] = info.isDirectory() ? await tapesUnder(absolute) : [{ path: absolute }];
    for (const file of files) found.set(file.path, { ...file, relativePath: relative(cwd, file.path).split(sep).join('/') });
  }
  return [...found.values()].sort((a, b) => compare(a.relativePath, b.relativePath));
}

type Found = Omit<CorpusTape, 'relativePath'>;

/**
 * The entries under `dir` with a tape's name. A directory is searched (an entry of readdir is a link
 * or a directory, never both, so a link to a directory is not followed); anything else with a
 * tape's name is kept, so that none is left out unsaid.
 */
async function tapesUnder(dir: string): Promise<Found[]> {
  const out: Found[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await tapesUnder(path)));
    else if (TAPE_NAME.test(entry.name)) {
      const why = await whyNotAFile(entry, path);
      out.push(why === undefined ? { path } : { path, notAFile: why });
    }
  }
  return out;
}

/** Nothing for a regular file or a link to one; else what the entry is instead. */
async function whyNotAFile(entry: Dirent, path: string): Promise<string | undefined> {
  if (entry.isFile()) return undefined;
  if (!entry.isSymbolicLink()) return 'not a file';
  try {
    const target = await stat(path);
    if (target.isFile()) return undefined;
    return target.isDirectory() ? 'not a file: a link to a directory' : 'not a file';
  } catch {
    return 'not a file: a link to nothing';
  }
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
    throw new UsageError(`bad --filter pattern '${quotedInput(pattern)}': ${quotedInput(error.message)}`);
  }
  return tapes.filter((tape) => compiled.test(tape.relativePath));
}

/** `--shard i/n`: 1 ≤ i ≤ n, safe integers. Anything else is a usage error. */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  // Beyond 2^53 two counts read as one number: such a shard would not be the one asked for (i ≤ n bounds i).
  if (match === null || !Number.isSafeInteger(count) || count < 1 || index < 1 || index > count) {
    throw new UsageError(`bad --shard '${quotedInput(text)}': expected i/n with 1 ≤ i ≤ n, whole numbers below 2^53, e.g. 1/3`);
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
