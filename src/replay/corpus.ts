/**
 * A corpus of golden tapes: the `*.tape.jsonl[.gz]` files under the paths given (directories
 * searched recursively), in a stable order, and the shard each belongs to. A tape's shard depends
 * only on its own relative path (a hash of it), so adding or removing a tape never moves another.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { NotFoundError, UsageError } from '../core/errors.js';

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
  return [...found.values()].sort((a, b) => (a.relativePath < b.relativePath ? -1 : a.relativePath > b.relativePath ? 1 : 0));
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

/** The shard (1-based) a tape belongs to among `count`: a stable hash of its relative path. */
export function shardOf(relativePath: string, count: number): number {
  const digest = createHash('sha256').update(relativePath).digest();
  return (digest.readUInt32BE(0) % count) + 1;
}

export function inShard(tapes: readonly CorpusTape[], shard: Shard | undefined): CorpusTape[] {
  return shard === undefined ? [...tapes] : tapes.filter((t) => shardOf(t.relativePath, shard.count) === shard.index);
}
