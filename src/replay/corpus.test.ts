import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, UsageError } from '../core/errors.js';
import { findTapes, inShard, matchingTapes, parseShard } from './corpus.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-corpus-'));
  await mkdir(join(dir, 'tapes', 'b', 'deep'), { recursive: true });
  for (const file of ['tapes/z.tape.jsonl', 'tapes/a.tape.jsonl.gz', 'tapes/b/deep/m.tape.jsonl', 'tapes/notes.md', 'tapes/b/x.jsonl', 'other.tape.jsonl']) {
    await writeFile(join(dir, file), '');
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('findTapes', () => {
  it('finds tapes recursively, sorted by relative path, each once, and only tape files', async () => {
    const tapes = await findTapes(['tapes', 'tapes/z.tape.jsonl', 'other.tape.jsonl'], dir);
    expect(tapes.map((t) => t.relativePath)).toEqual(['other.tape.jsonl', 'tapes/a.tape.jsonl.gz', 'tapes/b/deep/m.tape.jsonl', 'tapes/z.tape.jsonl']);
    expect(tapes[0]?.path).toBe(join(dir, 'other.tape.jsonl'));
  });

  it('a path that does not exist is not found (exit 10)', async () => {
    await expect(findTapes(['tapes', 'missing'], dir)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('shards', () => {
  it('parses i/n with 1 ≤ i ≤ n and refuses anything else as a usage error', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
    for (const bad of ['0/3', '4/3', 'x', '1/0', '-1/3', '1/3/4', '', '1.5/3']) expect(() => parseShard(bad), bad).toThrow(UsageError);
  });

  it('partition any corpus exactly into even shards, whatever order the tapes come in', () => {
    const path = fc.stringMatching(/^[a-z0-9/_-]{1,40}\.tape\.jsonl$/);
    fc.assert(
      fc.property(fc.uniqueArray(path, { maxLength: 60 }), fc.integer({ min: 1, max: 8 }), (paths, count) => {
        const tapes = paths.map((p) => ({ path: `/x/${p}`, relativePath: p }));
        const shards = Array.from({ length: count }, (_, i) => inShard(tapes, { index: i + 1, count }).map((t) => t.relativePath));
        expect(shards.flat().sort()).toEqual([...paths].sort());
        const sizes = shards.map((shard) => shard.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        // Each shard keeps the corpus order, and depends on the paths only, not on the order given.
        shards.forEach((shard, i) => {
          expect(shard).toEqual(paths.filter((p) => shard.includes(p)));
          expect(inShard([...tapes].reverse(), { index: i + 1, count }).map((t) => t.relativePath).sort()).toEqual([...shard].sort());
        });
      }),
    );
  });

  it('spreads the tapes of a directory over the shards, not one directory to a shard', () => {
    const tapes = ['a', 'b'].flatMap((d) => Array.from({ length: 20 }, (_, i) => ({ path: `/x/${d}/${i}`, relativePath: `tapes/${d}/run-${i}.tape.jsonl` })));
    for (const index of [1, 2]) {
      const dirs = new Set(inShard(tapes, { index, count: 2 }).map((t) => t.relativePath.split('/')[1]));
      expect(dirs).toEqual(new Set(['a', 'b']));
    }
  });

  it('14 tapes in 3 shards are 5, 5 and 4', () => {
    const tapes = Array.from({ length: 14 }, (_, i) => ({ path: `/x/${i}`, relativePath: `tapes/run-${i}.tape.jsonl` }));
    expect([1, 2, 3].map((index) => inShard(tapes, { index, count: 3 }).length)).toEqual([5, 5, 4]);
  });

  it('a tape added moves at most one other tape across each cut between shards', () => {
    const path = fc.stringMatching(/^[a-z0-9/_-]{1,40}\.tape\.jsonl$/);
    fc.assert(
      fc.property(fc.uniqueArray(path, { minLength: 2, maxLength: 60 }), fc.integer({ min: 1, max: 8 }), (paths, count) => {
        const tapes = paths.map((p) => ({ path: `/x/${p}`, relativePath: p }));
        const shardsOf = (list: typeof tapes): Map<string, number> => {
          const of = new Map<string, number>();
          for (let index = 1; index <= count; index++) for (const t of inShard(list, { index, count })) of.set(t.relativePath, index);
          return of;
        };
        const before = shardsOf(tapes.slice(1));
        const after = shardsOf(tapes);
        const moved = [...before].filter(([p, shard]) => after.get(p) !== shard);
        expect(moved.length).toBeLessThanOrEqual(count - 1);
      }),
    );
  });
});

describe('--filter', () => {
  const tapes = ['tapes/auth/login.tape.jsonl', 'tapes/auth/logout.tape.jsonl', 'tapes/search.tape.jsonl'].map((p) => ({ path: `/x/${p}`, relativePath: p }));
  const names = (pattern: string): string[] => matchingTapes(tapes, pattern).map((t) => t.relativePath);

  it('keeps the tapes whose path the pattern matches anywhere, a plain word as a substring', () => {
    expect(names('log')).toEqual(['tapes/auth/login.tape.jsonl', 'tapes/auth/logout.tape.jsonl']);
    expect(names('out|search')).toEqual(['tapes/auth/logout.tape.jsonl', 'tapes/search.tape.jsonl']);
    expect(names('^tapes/search')).toEqual(['tapes/search.tape.jsonl']);
    expect(names('nothing')).toEqual([]);
  });

  it('a pattern RE2 refuses (or cannot parse) is a usage error naming it', () => {
    expect(() => names('(?=x)')).toThrow(UsageError);
    expect(() => names('(')).toThrow(/bad --filter pattern '\('/);
  });
});
