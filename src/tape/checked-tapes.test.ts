/**
 * The cache of tape files already checked (checked-tapes.ts), through the reader that uses it
 * (`openTapeFile(path, { checked })`), on real files in real temporary directories: a file read in
 * full that passed every check is remembered, and read again it gives the very events a checking
 * read gives; nothing else is remembered; an entry is trusted only for the bytes it was made from
 * (a rewritten file is checked, a forged or stale entry fails the read block by block and is
 * dropped, a corrupt one is ignored); and where the cache lives, and how many entries it keeps.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants as zlibConstants, gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TapeFormatError } from '../core/errors.js';
import type { RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { BLOCK_BYTES, blockCount } from './block-digests.js';
import { CHECKED_MIN_BYTES, CheckedTapes } from './checked-tapes.js';
import { quickEvent } from './quick-event-check.js';
import { openTapeFile, writeTapeFile } from './tape-file.js';
import { tapeArbitrary } from './test-support/arbitraries.js';

type RecordSyntheticTape = (path: string, steps: number) => Promise<{ completed: boolean; bytes: number }>;
const BENCH = new URL('../../bench/replay.bench.mjs', import.meta.url).href;
const DEMO = fileURLToPath(new URL('../../tapes/demo-loop.tape.jsonl', import.meta.url));
const STREAM_CUT = fileURLToPath(new URL('../../tapes/stream-cut.tape.jsonl', import.meta.url));

let root: string;
/** A real recorded tape of 60 steps: about 200 KB, four blocks. Copied before use, never changed. */
let multiBlock: string;
/** A real recorded tape of 400 steps: more than CHECKED_MIN_BYTES. */
let large: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentctl-checked-'));
  const { recordSyntheticTape } = (await import(BENCH)) as { recordSyntheticTape: RecordSyntheticTape };
  multiBlock = join(root, 'synthetic-60.tape.jsonl');
  large = join(root, 'synthetic-400.tape.jsonl');
  expect((await recordSyntheticTape(multiBlock, 60)).completed).toBe(true);
  expect((await recordSyntheticTape(large, 400)).completed).toBe(true);
  expect(blockCount((await stat(multiBlock)).size)).toBeGreaterThanOrEqual(3);
  expect((await stat(large)).size).toBeGreaterThan(CHECKED_MIN_BYTES);
}, 60_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let n = 0;
/** A new path in the temporary directory. */
const fresh = (ext = '.tape.jsonl'): string => join(root, `t${n++}${ext}`);
/** A new cache directory (not created: remembering creates it). */
const freshCache = (): string => join(root, `cache-${n++}`);
const cacheIn = (dir: string, salt = 'test', minBytes = 0): CheckedTapes => new CheckedTapes({ dir, salt, minBytes });

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

/** A copy of `source` at a new path (a new inode: nothing remembered of it). */
async function copyOf(source: string): Promise<string> {
  const path = fresh();
  await copyFile(source, path);
  return path;
}

interface Outcome {
  events: RunEvent[];
  /** The message of the TapeFormatError the read ended with, or null. */
  error: string | null;
}

/** Every event of a read of `path` (in batches, as replay reads), and how it ended. */
async function readTape(path: string, checked: CheckedTapes | null = null): Promise<Outcome> {
  const events: RunEvent[] = [];
  try {
    const tape = await openTapeFile(path, { checked });
    for await (const batch of tape.batches()) events.push(...batch);
    return { events, error: null };
  } catch (error) {
    if (!(error instanceof TapeFormatError)) throw error;
    expect(error.exitCode).toBe(9);
    return { events, error: error.message };
  }
}

/** The `.json` entries in a cache directory (none when it does not exist). */
async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  } catch {
    return [];
  }
}

/** The one entry file of a cache directory. */
async function onlyEntry(dir: string): Promise<string> {
  const names = await entries(dir);
  expect(names).toHaveLength(1);
  return join(dir, names[0] as string);
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The sha-256 of each block of the file's bytes as stored. */
async function blocksOf(path: string): Promise<string[]> {
  const bytes = await readFile(path);
  const out: string[] = [];
  for (let at = 0; at < bytes.length; at += BLOCK_BYTES) out.push(sha256(bytes.subarray(at, at + BLOCK_BYTES)));
  return out;
}

/** The lines (1-based) a read gives to the event schema: those the quick check does not vouch for. */
function schemaLinesOf(text: string): number[] {
  return text
    .split('\n')
    .map((line, i) => ({ line, n: i + 1 }))
    .filter(({ line, n: at }) => at > 1 && line !== '' && quickEvent(JSON.parse(line)) === undefined)
    .map(({ n: at }) => at);
}

/**
 * The synthetic tape's text with one request changed after recording: the content of a tool
 * result the `which`-th llm_request appends (counting from the end when negative), changed without
 * its hash, in as many bytes. Still valid JSON; fails the request-hash check.
 */
function tamperRequest(text: string, which: number): string {
  const lines = text.split('\n');
  const requests = lines.flatMap((line, i) => (line.includes('"type":"llm_request"') && line.includes('"content":"export const v') ? [i] : []));
  const at = requests.at(which);
  if (at === undefined) throw new Error('no request to tamper with');
  const line = lines[at] as string;
  lines[at] = line.replace('"content":"export const v', '"content":"EXPORT const v');
  expect(lines[at]).not.toBe(line);
  expect(() => JSON.parse(lines[at] as string) as unknown).not.toThrow();
  return lines.join('\n');
}

/** A copy of the multi-block tape that fails its request-hash check, and the error a read gives. */
async function tamperedCopy(which = -1): Promise<{ path: string; error: string }> {
  const path = fresh();
  await writeFile(path, tamperRequest(await readFile(multiBlock, 'utf8'), which));
  const plain = await readTape(path);
  expect(plain.error).toMatch(/hash does not match/);
  return { path, error: plain.error as string };
}

describe('a tape file read in full that passes its checks', () => {
  it('is remembered, and read again gives the events of the first read and of a read without the cache (one that fails is not)', async () => {
    let remembered = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(tapeArbitrary, fc.boolean(), fc.option(fc.nat(), { nil: undefined }), async ({ meta, events }, gzip, damage) => {
        const path = fresh(gzip ? '.tape.jsonl.gz' : '.tape.jsonl');
        await writeTapeFile(path, meta, each(events));
        if (damage !== undefined) {
          // One event line left out: most such tapes fail a check (order, count, end), some do not.
          const stored = await readFile(path);
          const lines = (gzip ? gunzipSync(stored) : stored).toString('utf8').split('\n');
          lines.splice(1 + (damage % (lines.length - 2)), 1);
          const text = Buffer.from(lines.join('\n'));
          await writeFile(path, gzip ? gzipSync(text) : text);
        }
        const dir = freshCache();
        const checked = cacheIn(dir);
        const plain = await readTape(path);
        const first = await readTape(path, checked);
        expect(first).toEqual(plain);
        const trust = await checked.open(path);
        expect(trust).not.toBeNull();
        if (plain.error === null) {
          remembered++;
          if (damage === undefined) expect(plain.events).toEqual(events);
          expect(await entries(dir)).toHaveLength(1);
          const known = trust?.known ?? null;
          expect(known).not.toBeNull();
          expect(known?.blocks).toEqual(await blocksOf(path));
          const stored = await readFile(path);
          expect(known?.schemaLines).toEqual(schemaLinesOf((gzip ? gunzipSync(stored) : stored).toString('utf8')));
        } else {
          refused++;
          expect(await entries(dir)).toEqual([]);
          expect(trust?.known).toBeNull();
        }
        const second = await readTape(path, checked);
        expect(second).toEqual(first);
        expect(second).toEqual(plain);
      }),
      { numRuns: 30 },
    );
    // tapeArbitrary makes valid tapes only; the damaged ones give refusals.
    expect(remembered).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 120_000);

  it('is read without its checks while the entry stands (an entry made for a bad file is believed)', async () => {
    // What the cache is for: a remembered file is not checked again. Remembering a file that fails
    // its checks (through the API, not a read) shows it — and that the entry is what decides.
    const { path, error } = await tamperedCopy();
    const dir = freshCache();
    const checked = cacheIn(dir);
    const trust = await checked.open(path);
    await trust?.remember({ blocks: await blocksOf(path), schemaLines: [] });
    expect(await entries(dir)).toHaveLength(1);
    const trusted = await readTape(path, checked);
    expect(trusted.error).toBeNull();
    expect(trusted.events.length).toBeGreaterThan(700);
    // Without the cache, or with another salt, the same file is refused.
    expect((await readTape(path)).error).toBe(error);
    expect((await readTape(path, cacheIn(dir, 'other'))).error).toBe(error);
  });

  it('is not remembered through `remember` with the wrong number of blocks, nor once the file changed', async () => {
    const path = await copyOf(multiBlock);
    const dir = freshCache();
    const checked = cacheIn(dir);
    const trust = await checked.open(path);
    const blocks = await blocksOf(path);
    await trust?.remember({ blocks: blocks.slice(1), schemaLines: [] });
    expect(await entries(dir)).toEqual([]);
    await writeFile(path, await readFile(multiBlock));
    await trust?.remember({ blocks, schemaLines: [] });
    expect(await entries(dir)).toEqual([]);
  });
});

describe('what is never remembered', () => {
  it('a tape that fails a check: refused on every read, and no entry written', async () => {
    const tampered = await tamperedCopy(5);
    // A complete tape cut short: its header's eventCount says more events than it has.
    const truncated = fresh();
    const lines = (await readFile(multiBlock, 'utf8')).split('\n');
    await writeFile(truncated, lines.slice(0, Math.floor(lines.length * 0.8)).join('\n') + '\n');
    const cut = await readTape(truncated);
    expect(cut.error).toMatch(/the tape ends without run_end.*truncated/);
    for (const { path, error } of [tampered, { path: truncated, error: cut.error as string }]) {
      const dir = freshCache();
      const checked = cacheIn(dir);
      const first = await readTape(path, checked);
      expect(first.error).toBe(error);
      expect(await entries(dir)).toEqual([]);
      expect((await checked.open(path))?.known).toBeNull();
      const second = await readTape(path, checked);
      expect(second.error).toBe(error);
      expect(second.events).toEqual(first.events);
      expect(await entries(dir)).toEqual([]);
    }
  });

  it('a tape whose read the consumer stopped early', async () => {
    const path = await copyOf(multiBlock);
    const dir = freshCache();
    const checked = cacheIn(dir);
    const tape = await openTapeFile(path, { checked });
    for await (const batch of tape.batches()) {
      expect(batch.length).toBeGreaterThan(0);
      break;
    }
    for await (const event of tape.events()) {
      expect(event.type).toBe('run_start');
      break;
    }
    // All but the last event: the end of the file is never read.
    const all = (await readTape(path)).events;
    let read = 0;
    for await (const _event of tape.events()) if (++read === all.length - 1) break;
    expect(await entries(dir)).toEqual([]);
    expect((await checked.open(path))?.known).toBeNull();
    // Read to its end, it is.
    expect((await readTape(path, checked)).events).toEqual(all);
    expect(await entries(dir)).toHaveLength(1);
  });

  it('a tape under minBytes (open gives null), and a tape remembered with another salt', async () => {
    const path = await copyOf(multiBlock);
    const size = (await stat(path)).size;
    const all = (await readTape(path)).events;

    const byDefault = freshCache();
    expect(size).toBeLessThan(CHECKED_MIN_BYTES);
    expect(await new CheckedTapes({ dir: byDefault, salt: 'test' }).open(path)).toBeNull();
    expect((await readTape(path, new CheckedTapes({ dir: byDefault, salt: 'test' }))).events).toEqual(all);
    expect(await entries(byDefault)).toEqual([]);

    const above = freshCache();
    expect(await cacheIn(above, 'test', size + 1).open(path)).toBeNull();
    expect((await readTape(path, cacheIn(above, 'test', size + 1))).error).toBeNull();
    expect(await entries(above)).toEqual([]);
    // A file of exactly minBytes is remembered.
    expect((await readTape(path, cacheIn(above, 'test', size))).error).toBeNull();
    expect(await entries(above)).toHaveLength(1);

    const dir = freshCache();
    await readTape(path, cacheIn(dir, 'test'));
    expect((await cacheIn(dir, 'test').open(path))?.known).not.toBeNull();
    expect((await cacheIn(dir, 'another version').open(path))?.known).toBeNull();
  });

  it('a path that is not a file', async () => {
    expect(await cacheIn(freshCache()).open(root)).toBeNull();
    expect(await cacheIn(freshCache()).open(join(root, 'no such file'))).toBeNull();
  });
});

describe('an entry is trusted only for the bytes it was made from', () => {
  it('a remembered file rewritten since (same size, modification time set back) is checked, and refused', async () => {
    const path = await copyOf(multiBlock);
    // A whole second, so that the modification time can be set back exactly (to the nanosecond).
    const mtime = 1_700_000_000;
    await utimes(path, mtime, mtime);
    const dir = freshCache();
    const checked = cacheIn(dir);
    expect((await readTape(path, checked)).error).toBeNull();
    expect(await entries(dir)).toHaveLength(1);
    const before = await stat(path, { bigint: true });
    const tampered = tamperRequest(await readFile(path, 'utf8'), -1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeFile(path, tampered);
    await utimes(path, mtime, mtime);
    const after = await stat(path, { bigint: true });
    // Only the change time tells: same file, size and modification time.
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
    expect(after.ctimeNs).not.toBe(before.ctimeNs);
    expect((await checked.open(path))?.known).toBeNull();
    const read = await readTape(path, checked);
    expect(read.error).toMatch(/hash does not match/);
    expect(read.error).toBe((await readTape(path)).error);
  });

  it('a forged entry (last block digest changed) fails the read after the earlier blocks, is dropped, and the next read checks', async () => {
    const path = await copyOf(multiBlock);
    const bytes = await readFile(path);
    const dir = freshCache();
    const checked = cacheIn(dir);
    const all = await readTape(path, checked);
    expect(all.error).toBeNull();
    const file = await onlyEntry(dir);
    const entry = JSON.parse(await readFile(file, 'utf8')) as { blocks: string[] };
    const original = [...entry.blocks];
    expect(original).toEqual(await blocksOf(path));
    const last = original.length - 1;
    expect(last).toBeGreaterThanOrEqual(2);
    const digest = original[last] as string;
    entry.blocks[last] = (digest[0] === '0' ? '1' : '0') + digest.slice(1);
    await writeFile(file, JSON.stringify(entry));
    expect((await checked.open(path))?.known?.blocks[last]).toBe(entry.blocks[last]);

    const forged = await readTape(path, checked);
    expect(forged.error).toContain('changed while it was read');
    expect(forged.error).toContain(path);
    // Verified block by block: the events whose lines end in the blocks before the last one were
    // given, and none of the last block's.
    const linesInVerified = bytes.subarray(0, last * BLOCK_BYTES).toString('latin1').split('\n').length - 1;
    expect(forged.events.length).toBe(linesInVerified - 1);
    expect(forged.events).toEqual(all.events.slice(0, forged.events.length));
    expect(forged.events.length).toBeLessThan(all.events.length);
    // The entry is gone; the next read checks the file, passes and remembers it again.
    expect(await entries(dir)).toEqual([]);
    expect(await readTape(path, checked)).toEqual(all);
    expect((await checked.open(path))?.known?.blocks).toEqual(original);
  });

  it('a forged entry whose first block differs gives no event at all', async () => {
    const path = await copyOf(multiBlock);
    const dir = freshCache();
    const checked = cacheIn(dir);
    expect((await readTape(path, checked)).error).toBeNull();
    const file = await onlyEntry(dir);
    const entry = JSON.parse(await readFile(file, 'utf8')) as { blocks: string[] };
    entry.blocks[0] = (await blocksOf(multiBlock)).at(-1) as string;
    await writeFile(file, JSON.stringify(entry));
    const forged = await readTape(path, checked);
    expect(forged.error).toContain('changed while it was read');
    expect(forged.events).toEqual([]);
    expect(await entries(dir)).toEqual([]);
  });

  it('a corrupt entry is ignored: the read checks the file', async () => {
    const corruptions: Record<string, (entry: Record<string, unknown>) => string> = {
      'not JSON': () => '{"format":"agentctl-checked-tape",',
      'one block fewer': (e) => JSON.stringify({ ...e, blocks: (e.blocks as string[]).slice(1) }),
      'one block more': (e) => JSON.stringify({ ...e, blocks: [...(e.blocks as string[]), '0'.repeat(64)] }),
      'a digest not hex': (e) => JSON.stringify({ ...e, blocks: (e.blocks as string[]).map((d, i) => (i === 0 ? d.toUpperCase() : d)) }),
      'another size': (e) => JSON.stringify({ ...e, size: (e.size as number) + 1 }),
      'another format': (e) => JSON.stringify({ ...e, format: 'something-else' }),
      'schema lines out of order': (e) => JSON.stringify({ ...e, schemaLines: [5, 3] }),
      'schema line 1': (e) => JSON.stringify({ ...e, schemaLines: [1] }),
      'not an object': () => 'null',
    };
    // Made for a file that fails its checks (see above): a read that believes the entry accepts it,
    // a read that checks refuses it.
    const { path, error } = await tamperedCopy();
    const good = await copyOf(multiBlock);
    const all = (await readTape(good)).events;
    for (const [what, corrupt] of Object.entries(corruptions)) {
      const dir = freshCache();
      const checked = cacheIn(dir);
      await (await checked.open(path))?.remember({ blocks: await blocksOf(path), schemaLines: [] });
      const file = await onlyEntry(dir);
      expect((await readTape(path, checked)).error, what).toBeNull();
      await writeFile(file, corrupt(JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>));
      expect((await checked.open(path))?.known, what).toBeNull();
      expect((await readTape(path, checked)).error, what).toBe(error);

      // A good file with a corrupt entry reads, checked, and is remembered anew.
      await readTape(good, checked);
      const goodEntry = join(dir, (await entries(dir)).find((name) => join(dir, name) !== file) as string);
      await writeFile(goodEntry, corrupt(JSON.parse(await readFile(goodEntry, 'utf8')) as Record<string, unknown>));
      expect((await checked.open(good))?.known, what).toBeNull();
      expect((await readTape(good, checked)).events, what).toEqual(all);
      expect((await checked.open(good))?.known?.blocks, what).toEqual(await blocksOf(good));
    }
  });
});

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
    const known = (await checked.open(path))?.known;
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
    await writeFile(path, gzipSync(await readFile(large), { level: 1 }));
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
    // A golden tape with streamed chunks (llm_chunk, llm_error: not the quick check's), and a
    // checkpoint with an own `__proto__` key, which the schema drops and JSON.parse keeps.
    const lines = (await readFile(STREAM_CUT, 'utf8')).trim().split('\n');
    const at = lines.findIndex((line) => line.includes('"type":"checkpoint"'));
    lines[at] = (lines[at] as string).replace('"guardrails":{', '"guardrails":{"__proto__":{"polluted":true},');
    const path = fresh();
    const text = lines.join('\n') + '\n';
    await writeFile(path, text);
    const plain = await readTape(path);
    expect(plain.error).toBeNull();
    const checkpoint = (read: Outcome): Record<string, unknown> =>
      (read.events.find((e) => e.type === 'checkpoint') as RunEvent & { guardrails: Record<string, unknown> }).guardrails;
    expect(Object.hasOwn(checkpoint(plain), '__proto__')).toBe(false);

    const dir = freshCache();
    const checked = cacheIn(dir);
    const first = await readTape(path, checked);
    expect(first).toEqual(plain);
    const entry = JSON.parse(await readFile(await onlyEntry(dir), 'utf8')) as { schemaLines: number[] };
    const expected = schemaLinesOf(text);
    expect(entry.schemaLines).toEqual(expected);
    expect(entry.schemaLines).toContain(at + 1);
    const chunkLines = lines.flatMap((line, i) => (line.includes('"type":"llm_chunk"') ? [i + 1] : []));
    expect(chunkLines.length).toBeGreaterThan(5);
    for (const line of chunkLines) expect(entry.schemaLines).toContain(line);

    const trusted = await readTape(path, checked);
    expect(trusted).toEqual(plain);
    expect(Object.hasOwn(checkpoint(trusted), '__proto__')).toBe(false);
  });
});

describe('where the cache is', () => {
  it('AGENTCTL_CACHE=off: none', () => {
    expect(CheckedTapes.fromEnv({ AGENTCTL_CACHE: 'off', XDG_CACHE_HOME: join(root, 'xdg-off') }, 'test')).toBeNull();
  });

  it('AGENTCTL_CACHE=<dir>, else $XDG_CACHE_HOME/agentctl, else ~/.cache/agentctl: entries under checked-tapes/', async () => {
    const cases: { env: NodeJS.ProcessEnv; home?: string; dir: (base: string) => string }[] = [
      { env: { AGENTCTL_CACHE: '<base>', XDG_CACHE_HOME: '<base>/xdg' }, dir: (base) => join(base, 'checked-tapes') },
      { env: { XDG_CACHE_HOME: '<base>' }, dir: (base) => join(base, 'agentctl', 'checked-tapes') },
      { env: { AGENTCTL_CACHE: '', XDG_CACHE_HOME: '<base>' }, dir: (base) => join(base, 'agentctl', 'checked-tapes') },
      { env: {}, home: '<base>', dir: (base) => join(base, '.cache', 'agentctl', 'checked-tapes') },
    ];
    const all = (await readTape(large)).events;
    for (const { env, home, dir } of cases) {
      const base = join(root, `env-${n++}`);
      const path = await copyOf(large);
      const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v?.replace('<base>', base)]));
      const savedHome = process.env['HOME'];
      if (home !== undefined) process.env['HOME'] = home.replace('<base>', base);
      try {
        const checked = CheckedTapes.fromEnv(resolved, 'test');
        expect(checked).not.toBeNull();
        expect((await readTape(path, checked)).events).toEqual(all);
        expect(await entries(dir(base)), JSON.stringify(env)).toHaveLength(1);
        // The default minimum size holds: a small tape is not remembered there.
        const small = await copyOf(multiBlock);
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
    const path = await copyOf(multiBlock);
    const checked = cacheIn(dir);
    expect((await readTape(path, checked)).error).toBeNull();
    const left = await entries(dir);
    expect(left).toHaveLength(256);
    expect((await checked.open(path))?.known).not.toBeNull();
    // 301 entries, 256 kept: the 45 oldest dummies are gone, the 255 newest stay.
    for (let i = 0; i < dummies; i++) expect(left.includes(name(i)), name(i)).toBe(i >= 45);
    expect(await readdir(dir)).toContain('not-an-entry.txt');
  });

  it('does not prune at 256 or fewer', async () => {
    const dir = freshCache();
    await mkdir(dir, { recursive: true });
    for (let i = 0; i < 255; i++) await writeFile(join(dir, `dummy-${i}.json`), '{}');
    expect((await readTape(await copyOf(multiBlock), cacheIn(dir))).error).toBeNull();
    expect(await entries(dir)).toHaveLength(256);
  });
});
