/**
 * The cache of tape files already checked (checked-tapes.ts), through the reader that uses it
 * (`openTapeFile(path, { checked })`), on real files in real temporary directories: what a tape
 * file holds (a gzip tape is remembered by its compressed bytes; the lines only the schema reads
 * are listed in the entry), where the cache lives, and how many entries it keeps. Remembering and
 * trusting: checked-tapes.test.ts.
 */
import { mkdir, readdir, readFile, rename, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { constants as zlibConstants, gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { BLOCK_BYTES } from './block-digests.js';
import { CheckedTapes } from './checked-tapes.js';
import { writeTapeFile } from './tape-file.js';
import {
  blocksOf,
  cacheIn,
  copyOf,
  DEMO,
  each,
  entries,
  fresh,
  freshCache,
  onlyEntry,
  type Outcome,
  readTape,
  schemaLinesOf,
  STREAM_CUT,
  tamperRequest,
  useCheckedTapeFixtures,
  trustOf,
} from './test-support/checked-tapes-support.js';

const tapes = useCheckedTapeFixtures();

describe('what a tape file holds', () => {
  it('a gzip tape is remembered by its compressed bytes and read again to the same events', async () => {
    const text = await readFile(DEMO, 'utf8');
    const [head, ...rest] = text.trim().split('\n');
    const meta = (JSON.parse(head as string) as { run: RunMeta }).run;
    const events = rest.map((line) => JSON.parse(line) as RunEvent);
    const path = fresh('.tape.jsonl.gz');
    await writeTapeFile(path, meta, each(events));
    expect((await readFile(path))[0]).toBe(0x1f);
    const dir = freshCache();
    const checked = cacheIn(dir);
    const first = await readTape(path, checked);
    expect(first.error).toBeNull();
    expect(first.events).toEqual(events);
    const known = (await trustOf(checked, path))?.known;
    expect(known?.blocks).toEqual(await blocksOf(path));
    expect(await readTape(path, checked)).toEqual(first);
    // Its one block forged: nothing is read.
    const file = await onlyEntry(dir);
    await writeFile(file, JSON.stringify({ ...(JSON.parse(await readFile(file, 'utf8')) as object), blocks: ['0'.repeat(64)] }));
    const forged = await readTape(path, checked);
    expect(forged.error).toContain('changed while it was read');
    expect(forged.events).toEqual([]);
    expect(await entries(dir)).toEqual([]);
  });

  it('a gzip tape of several blocks with a forged middle block fails as a changed file, not as corrupt data', async () => {
    const path = fresh('.tape.jsonl.gz');
    await writeFile(path, gzipSync(await readFile(tapes.large), { level: 1 }));
    const blocks = await blocksOf(path);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const dir = freshCache();
    const checked = cacheIn(dir);
    const all = await readTape(path, checked);
    expect(all.error).toBeNull();
    const file = await onlyEntry(dir);
    const entry = JSON.parse(await readFile(file, 'utf8')) as { blocks: string[] };
    const middle = Math.floor(blocks.length / 2);
    entry.blocks[middle] = blocks[0] as string;
    await writeFile(file, JSON.stringify(entry));
    const forged = await readTape(path, checked);
    expect(forged.error).toContain('changed while it was read');
    // Never an event of the forged block or after it. (How many of the verified blocks' events come
    // first varies: the blocks are verified ahead of the gunzip stream, which the failure stops.)
    const verified = gunzipSync((await readFile(path)).subarray(0, middle * BLOCK_BYTES), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    const eventsInVerified = verified.toString('latin1').split('\n').length - 2;
    expect(eventsInVerified).toBeGreaterThan(0);
    expect(forged.events.length).toBeLessThanOrEqual(eventsInVerified);
    expect(forged.events).toEqual(all.events.slice(0, forged.events.length));
    expect(await entries(dir)).toEqual([]);
    expect(await readTape(path, checked)).toEqual(all);
  });

  it('lines only the schema reads are listed in the entry and read through the schema again', async () => {
    // A golden tape with streamed chunks whose model replies and errors are given an HTTP reply (as
    // a run recorded at the transport has), which only the schema checks (a refinement): those lines
    // only the schema reads.
    const lines = (await readFile(STREAM_CUT, 'utf8')).trim().split('\n');
    const replyLines: number[] = [];
    lines.forEach((line, i) => {
      if (!line.includes('"type":"llm_response"') && !line.includes('"type":"llm_error"')) return;
      lines[i] = line.replace('{', '{"http":{"headers":{"x-request-id":"r1"},"status":200},');
      replyLines.push(i + 1);
    });
    const path = fresh();
    const text = lines.join('\n') + '\n';
    await writeFile(path, text);
    const plain = await readTape(path);
    expect(plain.error).toBeNull();
    const replies = (read: Outcome): RunEvent[] => read.events.filter((e) => e.type === 'llm_response' || e.type === 'llm_error');
    expect(replies(plain).map((e) => (e as { http?: unknown }).http)).toEqual(replyLines.map(() => ({ headers: { 'x-request-id': 'r1' }, status: 200 })));

    const dir = freshCache();
    const checked = cacheIn(dir);
    const first = await readTape(path, checked);
    expect(first).toEqual(plain);
    const entry = JSON.parse(await readFile(await onlyEntry(dir), 'utf8')) as { schemaLines: number[] };
    const expected = schemaLinesOf(text);
    expect(entry.schemaLines).toEqual(expected);
    expect(replyLines.length).toBeGreaterThan(2);
    expect(entry.schemaLines).toEqual(replyLines);

    const trusted = await readTape(path, checked);
    expect(trusted).toEqual(plain);
  });
});

describe('where the cache is', () => {
  it('AGENTCTL_CACHE=off: none', () => {
    expect(CheckedTapes.fromEnv({ AGENTCTL_CACHE: 'off', XDG_CACHE_HOME: join(tapes.root, 'xdg-off') }, 'test')).toBeNull();
  });

  it('AGENTCTL_CACHE=<dir>, else $XDG_CACHE_HOME/agentctl, else ~/.cache/agentctl: entries under checked-tapes/', async () => {
    const cases: { env: NodeJS.ProcessEnv; home?: string; dir: (base: string) => string }[] = [
      { env: { AGENTCTL_CACHE: '<base>', XDG_CACHE_HOME: '<base>/xdg' }, dir: (base) => join(base, 'checked-tapes') },
      { env: { XDG_CACHE_HOME: '<base>' }, dir: (base) => join(base, 'agentctl', 'checked-tapes') },
      { env: { AGENTCTL_CACHE: '', XDG_CACHE_HOME: '<base>' }, dir: (base) => join(base, 'agentctl', 'checked-tapes') },
      { env: {}, home: '<base>', dir: (base) => join(base, '.cache', 'agentctl', 'checked-tapes') },
    ];
    const all = (await readTape(tapes.large)).events;
    for (const { env, home, dir } of cases) {
      const base = freshCache('env');
      const path = await copyOf(tapes.large);
      const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v?.replace('<base>', base)]));
      const savedHome = process.env['HOME'];
      if (home !== undefined) process.env['HOME'] = home.replace('<base>', base);
      try {
        const checked = CheckedTapes.fromEnv(resolved, 'test');
        expect(checked).not.toBeNull();
        expect((await readTape(path, checked)).events).toEqual(all);
        expect(await entries(dir(base)), JSON.stringify(env)).toHaveLength(1);
        // The default minimum size holds: a small tape is not remembered there.
        const small = await copyOf(tapes.multiBlock);
        await readTape(small, checked);
        expect(await entries(dir(base))).toHaveLength(1);
      } finally {
        if (savedHome === undefined) delete process.env['HOME'];
        else process.env['HOME'] = savedHome;
      }
    }
  });
});

describe('the number of entries', () => {
  it('keeps the 256 most recently written: remembering one more removes the oldest', async () => {
    const dir = freshCache();
    await mkdir(dir, { recursive: true });
    const dummies = 300;
    const body = JSON.stringify({ format: 'agentctl-checked-tape', size: 1, blocks: ['0'.repeat(64)], schemaLines: [] });
    const name = (i: number): string => `dummy-${String(i).padStart(3, '0')}.json`;
    for (let i = 0; i < dummies; i++) {
      await writeFile(join(dir, name(i)), body);
      // Older the lower i: a day apart, years ago.
      const at = new Date(Date.UTC(2020, 0, 1) + i * 86_400_000);
      await utimes(join(dir, name(i)), at, at);
    }
    await writeFile(join(dir, 'not-an-entry.txt'), 'kept');
    const path = await copyOf(tapes.multiBlock);
    const checked = cacheIn(dir);
    expect((await readTape(path, checked)).error).toBeNull();
    const left = await entries(dir);
    expect(left).toHaveLength(256);
    expect((await trustOf(checked, path))?.known).not.toBeNull();
    // 301 entries, 256 kept: the 45 oldest dummies are gone, the 255 newest stay.
    for (let i = 0; i < dummies; i++) expect(left.includes(name(i)), name(i)).toBe(i >= 45);
    expect(await readdir(dir)).toContain('not-an-entry.txt');
  });

  it('does not prune at 256 or fewer', async () => {
    const dir = freshCache();
    await mkdir(dir, { recursive: true });
    for (let i = 0; i < 255; i++) await writeFile(join(dir, `dummy-${i}.json`), '{}');
    expect((await readTape(await copyOf(tapes.multiBlock), cacheIn(dir))).error).toBeNull();
    expect(await entries(dir)).toHaveLength(256);
  });
});

describe('temporary files', () => {
  it('a write that fails leaves none behind', async () => {
    const path = await copyOf(tapes.multiBlock);
    const blocks = await blocksOf(path);
    // The entry's name (the same in any cache directory), learnt from another directory…
    const elsewhere = freshCache();
    await (await trustOf(cacheIn(elsewhere), path))?.remember({ blocks, schemaLines: [] });
    const [name] = await entries(elsewhere);
    // …and taken here by a directory, so the write's rename into place fails.
    const dir = freshCache();
    await mkdir(join(dir, name as string, 'taken'), { recursive: true });
    await (await trustOf(cacheIn(dir), path))?.remember({ blocks, schemaLines: [] });
    expect(await readdir(dir)).toEqual([name]);
  });

  it('one a killed write left is removed once an hour old; one under way is not', async () => {
    const dir = freshCache();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'abc.json.12345.tmp'), 'half an entry');
    await writeFile(join(dir, 'def.json.12346.tmp'), 'a write under way');
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(join(dir, 'abc.json.12345.tmp'), old, old);
    expect((await readTape(await copyOf(tapes.multiBlock), cacheIn(dir))).error).toBeNull();
    const left = await readdir(dir);
    expect(left).not.toContain('abc.json.12345.tmp');
    expect(left).toContain('def.json.12346.tmp');
    expect(await entries(dir)).toHaveLength(1);
  });
});

describe('which file an entry is for', () => {
  it('the file, whatever path reaches it: a symlink moved to another file makes that one be checked', async () => {
    const a = await copyOf(tapes.multiBlock);
    const b = await copyOf(tapes.multiBlock);
    const link = fresh();
    const dir = freshCache();
    const checked = cacheIn(dir);
    await symlink(a, link);
    expect((await readTape(link, checked)).error).toBeNull();
    // Remembered by the file: found through its own path too.
    expect((await trustOf(checked, a))?.known).not.toBeNull();
    expect((await trustOf(checked, b))?.known).toBeNull();
    // The link now names b: reading it checks b (a tampered b is refused), and a stays remembered.
    await writeFile(b, tamperRequest(await readFile(b, 'utf8'), -1));
    const moved = `${link}.new`;
    await symlink(b, moved);
    await rename(moved, link);
    expect((await readTape(link, checked)).error).toMatch(/hash does not match/);
    expect((await trustOf(checked, a))?.known).not.toBeNull();
    expect(await entries(dir)).toHaveLength(1);
  });
});
