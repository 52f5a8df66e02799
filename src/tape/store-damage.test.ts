/** The table check that names a damaged table file, against tables a real LevelDB wrote. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crc32c, damagedFile, logProblem, tableProblem } from './store-damage.js';

let dir: string;
let table: string;
let bytes: Buffer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentctl-tables-'));
  const db = new Level<string, unknown>(join(dir, 'db'), { valueEncoding: 'json' });
  await db.open();
  // Several data blocks (4 KiB each), compressed with Snappy, and a filter block.
  await db.batch(Array.from({ length: 3000 }, (_, i) => ({ type: 'put' as const, key: `run!${String(i).padStart(10, '0')}`, value: { type: 'warning', seq: i, message: `event ${i} ${'x'.repeat(i % 50)}` } })));
  await (db as unknown as { compactRange(a: string, b: string): Promise<void> }).compactRange('run!', 'run!~');
  await db.close();
  const name = readdirSync(join(dir, 'db')).find((n) => n.endsWith('.ldb'));
  if (name === undefined) throw new Error('LevelDB wrote no table');
  table = join(dir, 'db', name);
  bytes = readFileSync(table);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it('crc32c is CRC-32C (the standard check value)', () => {
  expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
});

describe('tableProblem', () => {
  it('finds nothing wrong with a table as LevelDB wrote it', () => {
    expect(bytes.length).toBeGreaterThan(16 * 1024);
    expect(tableProblem(bytes)).toBeUndefined();
  });

  it('finds any byte flipped in any block (everything before the footer is a block or its checksum)', () => {
    const footer = bytes.length - 48;
    let checked = 0;
    for (let at = 0; at < footer; at += 97) {
      const flipped = Buffer.from(bytes);
      flipped[at] = (flipped[at] as number) ^ 0x10;
      expect(tableProblem(flipped), `byte ${at}`).toMatch(/^(its (index|metaindex) )?block at byte \d+ (fails its checksum|lies past the end of the file)$/);
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('a table cut short has no footer', () => {
    expect(tableProblem(bytes.subarray(0, bytes.length - 100))).toBe('it is cut short or not a table (no footer)');
  });
});

it('damagedFile names the damaged table of a directory, and nothing for a sound one', () => {
  const store = join(dir, 'db');
  expect(damagedFile(store)).toBeUndefined();
  const flipped = Buffer.from(bytes);
  flipped[100] = (flipped[100] as number) ^ 0xff;
  writeFileSync(table, flipped);
  expect(damagedFile(store)).toEqual({ file: table, problem: 'block at byte 0 fails its checksum' });
  writeFileSync(table, bytes);
});

describe('logProblem (the manifest)', () => {
  it('finds nothing wrong with the manifest LevelDB wrote, and any byte flipped in it', () => {
    const store = join(dir, 'db');
    const manifest = join(store, readFileSync(join(store, 'CURRENT'), 'utf8').trim());
    const written = readFileSync(manifest);
    expect(logProblem(written)).toBeUndefined();
    for (let at = 0; at < written.length; at++) {
      const flipped = Buffer.from(written);
      flipped[at] = (flipped[at] as number) ^ 0x01;
      expect(logProblem(flipped), `byte ${at}`).toMatch(/^record at byte \d+ (fails its checksum|is cut short)$/);
    }
    const flipped = Buffer.from(written);
    flipped[10] = (flipped[10] as number) ^ 0xff;
    writeFileSync(manifest, flipped);
    try {
      expect(damagedFile(store)).toEqual({ file: manifest, problem: 'record at byte 0 fails its checksum' });
    } finally {
      writeFileSync(manifest, written);
    }
  });
});
