import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, UsageError } from '../core/errors.js';
import { findTapes, inShard, parseShard, shardOf } from './corpus.js';

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

  it('partition any corpus exactly, and a tape keeps its shard whatever else is in the corpus', () => {
    const path = fc.stringMatching(/^[a-z0-9/_-]{1,40}\.tape\.jsonl$/);
    fc.assert(
      fc.property(fc.uniqueArray(path, { maxLength: 60 }), fc.integer({ min: 1, max: 8 }), (paths, count) => {
        const tapes = paths.map((p) => ({ path: `/x/${p}`, relativePath: p }));
        const shards = Array.from({ length: count }, (_, i) => inShard(tapes, { index: i + 1, count }).map((t) => t.relativePath));
        expect(shards.flat().sort()).toEqual([...paths].sort());
        for (const p of paths) {
          const alone = inShard([{ path: p, relativePath: p }], { index: shardOf(p, count), count });
          expect(alone).toHaveLength(1);
        }
      }),
    );
  });

  it('spreads tapes over the shards', () => {
    const counts = [0, 0, 0];
    for (let i = 0; i < 300; i++) counts[shardOf(`tapes/run-${i}.tape.jsonl`, 3) - 1]! += 1;
    for (const n of counts) expect(n).toBeGreaterThan(60);
  });
});
