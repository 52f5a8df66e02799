/**
 * The cache of tape files already checked (checked-tapes.ts), through the reader that uses it
 * (`openTapeFile(path, { checked })`), on real files in real temporary directories: a file read in
 * full that passed every check is remembered, and read again it gives the very events a checking
 * read gives; nothing else is remembered; and an entry is trusted only for the bytes it was made
 * from (a rewritten file is checked, a forged or stale entry fails the read block by block and is
 * dropped, a corrupt one is ignored). What a tape file holds, where the cache lives and how many
 * entries it keeps: checked-tapes-entries.test.ts.
 */
import { readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BLOCK_BYTES } from './block-digests.js';
import { CHECKED_MIN_BYTES, CheckedTapes } from './checked-tapes.js';
import { openTapeFile, writeTapeFile } from './tape-file.js';
import { tapeArbitrary } from './test-support/arbitraries.js';
import {
  blocksOf,
  cacheIn,
  copyOf,
  each,
  entries,
  fresh,
  freshCache,
  onlyEntry,
  readTape,
  schemaLinesOf,
  tamperedCopy,
  tamperRequest,
  useCheckedTapeFixtures,
  trustOf,
} from './test-support/checked-tapes-support.js';

const tapes = useCheckedTapeFixtures();

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
        const trust = await trustOf(checked, path);
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
    const trust = await trustOf(checked, path);
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
    const path = await copyOf(tapes.multiBlock);
    const dir = freshCache();
    const checked = cacheIn(dir);
    const trust = await trustOf(checked, path);
    const blocks = await blocksOf(path);
    await trust?.remember({ blocks: blocks.slice(1), schemaLines: [] });
    expect(await entries(dir)).toEqual([]);
    await writeFile(path, await readFile(tapes.multiBlock));
    await trust?.remember({ blocks, schemaLines: [] });
    expect(await entries(dir)).toEqual([]);
  });
});

describe('what is never remembered', () => {
  it('a tape that fails a check: refused on every read, and no entry written', async () => {
    const tampered = await tamperedCopy(5);
    // A complete tape cut short: its header's eventCount says more events than it has.
    const truncated = fresh();
    const lines = (await readFile(tapes.multiBlock, 'utf8')).split('\n');
    await writeFile(truncated, lines.slice(0, Math.floor(lines.length * 0.8)).join('\n') + '\n');
    const cut = await readTape(truncated);
    expect(cut.error).toMatch(/the tape ends without run_end.*truncated/);
    for (const { path, error } of [tampered, { path: truncated, error: cut.error as string }]) {
      const dir = freshCache();
      const checked = cacheIn(dir);
      const first = await readTape(path, checked);
      expect(first.error).toBe(error);
      expect(await entries(dir)).toEqual([]);
      expect((await trustOf(checked, path))?.known).toBeNull();
      const second = await readTape(path, checked);
      expect(second.error).toBe(error);
      expect(second.events).toEqual(first.events);
      expect(await entries(dir)).toEqual([]);
    }
  });

  it('a tape whose read the consumer stopped early', async () => {
    const path = await copyOf(tapes.multiBlock);
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
    expect((await trustOf(checked, path))?.known).toBeNull();
    // Read to its end, it is.
    expect((await readTape(path, checked)).events).toEqual(all);
    expect(await entries(dir)).toHaveLength(1);
  });

  it('a tape under minBytes (open gives null), and a tape remembered with another salt', async () => {
    const path = await copyOf(tapes.multiBlock);
    const size = (await stat(path)).size;
    const all = (await readTape(path)).events;

    const byDefault = freshCache();
    expect(size).toBeLessThan(CHECKED_MIN_BYTES);
    expect(await trustOf(new CheckedTapes({ dir: byDefault, salt: 'test' }), path)).toBeNull();
    expect((await readTape(path, new CheckedTapes({ dir: byDefault, salt: 'test' }))).events).toEqual(all);
    expect(await entries(byDefault)).toEqual([]);

    const above = freshCache();
    expect(await trustOf(cacheIn(above, 'test', size + 1), path)).toBeNull();
    expect((await readTape(path, cacheIn(above, 'test', size + 1))).error).toBeNull();
    expect(await entries(above)).toEqual([]);
    // A file of exactly minBytes is remembered.
    expect((await readTape(path, cacheIn(above, 'test', size))).error).toBeNull();
    expect(await entries(above)).toHaveLength(1);

    const dir = freshCache();
    await readTape(path, cacheIn(dir, 'test'));
    expect((await trustOf(cacheIn(dir, 'test'), path))?.known).not.toBeNull();
    expect((await trustOf(cacheIn(dir, 'another version'), path))?.known).toBeNull();
  });

  it('a path that is not a file', async () => {
    expect(await trustOf(cacheIn(freshCache()), tapes.root)).toBeNull();
  });
});

describe('an entry is trusted only for the bytes it was made from', () => {
  it('a remembered file rewritten since (same size, modification time set back) is checked, and refused', async () => {
    const path = await copyOf(tapes.multiBlock);
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
    expect((await trustOf(checked, path))?.known).toBeNull();
    const read = await readTape(path, checked);
    expect(read.error).toMatch(/hash does not match/);
    expect(read.error).toBe((await readTape(path)).error);
  });

  it('a forged entry (last block digest changed) fails the read after the earlier blocks, is dropped, and the next read checks', async () => {
    const path = await copyOf(tapes.multiBlock);
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
    expect((await trustOf(checked, path))?.known?.blocks[last]).toBe(entry.blocks[last]);

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
    expect((await trustOf(checked, path))?.known?.blocks).toEqual(original);
  });

  it('a forged entry whose first block differs gives no event at all', async () => {
    const path = await copyOf(tapes.multiBlock);
    const dir = freshCache();
    const checked = cacheIn(dir);
    expect((await readTape(path, checked)).error).toBeNull();
    const file = await onlyEntry(dir);
    const entry = JSON.parse(await readFile(file, 'utf8')) as { blocks: string[] };
    entry.blocks[0] = (await blocksOf(tapes.multiBlock)).at(-1) as string;
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
    const good = await copyOf(tapes.multiBlock);
    const all = (await readTape(good)).events;
    for (const [what, corrupt] of Object.entries(corruptions)) {
      const dir = freshCache();
      const checked = cacheIn(dir);
      await (await trustOf(checked, path))?.remember({ blocks: await blocksOf(path), schemaLines: [] });
      const file = await onlyEntry(dir);
      expect((await readTape(path, checked)).error, what).toBeNull();
      await writeFile(file, corrupt(JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>));
      expect((await trustOf(checked, path))?.known, what).toBeNull();
      expect((await readTape(path, checked)).error, what).toBe(error);

      // A good file with a corrupt entry reads, checked, and is remembered anew.
      await readTape(good, checked);
      const goodEntry = join(dir, (await entries(dir)).find((name) => join(dir, name) !== file) as string);
      await writeFile(goodEntry, corrupt(JSON.parse(await readFile(goodEntry, 'utf8')) as Record<string, unknown>));
      expect((await trustOf(checked, good))?.known, what).toBeNull();
      expect((await readTape(good, checked)).events, what).toEqual(all);
      expect((await trustOf(checked, good))?.known?.blocks, what).toEqual(await blocksOf(good));
    }
  });
});
