/**
 * The recording journal on its own (real files in a temp dir): what is appended reads back; where the
 * writing stopped — a torn last record, the preallocated zeros — ends the reading quietly; a damaged
 * or foreign record ends it with the damage named, never with an exception.
 */
import { appendFileSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { Journal, listJournals, readJournal, RESERVE_BYTES } from './journal.js';

const RUN = '01M80BD0DH1T99S5EY9167MAX2';
const warning = (seq: number, message = `event ${seq}`): RunEvent => ({ type: 'warning', seq, step: 0, t: seq, message });
/** Events as the journal takes them: each as its JSON. */
const json = (...events: RunEvent[]): string[] => events.map((event) => JSON.stringify(event));
const record = (value: unknown): string => {
  const json = typeof value === 'string' ? value : JSON.stringify(value);
  return `${createHash('sha256').update(json).digest('hex')} ${json}\n`;
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A journal holding three batches (seq 0–1, 2, 3–5), the last one synced; closed. */
function written(): string {
  const journal = Journal.open(dir, RUN);
  journal.append(json(warning(0), warning(1)), false);
  journal.append(json(warning(2)), false);
  journal.append(json(warning(3), warning(4), warning(5)), true);
  journal.close();
  return journal.path;
}

/** The file's bytes up to the zeros that follow the records. */
const recordsOf = (path: string): Buffer => {
  const bytes = readFileSync(path);
  return bytes.subarray(0, bytes.indexOf(0));
};

describe('Journal', () => {
  it('reads back every batch in order, and stops quietly at the preallocated zeros', () => {
    const path = written();
    expect(listJournals(dir)).toEqual([path]);
    expect(statSync(path).size).toBe(RESERVE_BYTES);
    const read = readJournal(path);
    expect(read).toEqual({ runId: RUN, batches: [[warning(0), warning(1)], [warning(2)], [warning(3), warning(4), warning(5)]], damage: undefined });
  });

  it('ignores a torn last record, whether zeros or the end of the file follow it', () => {
    const path = written();
    const bytes = recordsOf(path);
    const lastStart = bytes.lastIndexOf('\n', bytes.length - 2) + 1;
    // Half of the last record, then the zeros that were there.
    const torn = Buffer.from(bytes);
    torn.fill(0, lastStart + Math.floor((bytes.length - lastStart) / 2));
    writeFileSync(path, Buffer.concat([torn, Buffer.alloc(4096)]));
    expect(readJournal(path)).toMatchObject({ batches: [[warning(0), warning(1)], [warning(2)]], damage: undefined });
    // Half of the last record, and nothing after it.
    truncateSync(path, lastStart + 40);
    expect(readJournal(path)).toMatchObject({ batches: [[warning(0), warning(1)], [warning(2)]], damage: undefined });
    // Cut at a record boundary: nothing torn at all.
    truncateSync(path, lastStart);
    expect(readJournal(path)).toMatchObject({ batches: [[warning(0), warning(1)], [warning(2)]], damage: undefined });
  });

  it('stops at a damaged record, keeps what came before it, and names the damage', () => {
    const path = written();
    const bytes = Buffer.from(recordsOf(path));
    const second = bytes.indexOf('\n') + 1;
    bytes[second + 100] = bytes[second + 100] === 0x61 ? 0x62 : 0x61; // one byte of the second record's JSON
    writeFileSync(path, bytes);
    const read = readJournal(path);
    expect(read.batches).toEqual([[warning(0), warning(1)]]);
    expect(read.damage).toBe(`record at byte ${second}: checksum mismatch`);
  });

  it.each([
    ['not a record at all', 'hello\n', /checksum mismatch/],
    ['valid JSON that is not a record', record([1, 2, 3]), /not a journal record/],
    ['another run', record({ run: '01M80BD0DH1T99S5EY9167MAX3', events: [warning(0)] }), /is not this journal's/],
    ['an event that is not one', record({ run: RUN, events: [{ seq: 0, step: 0, t: 0 }] }), /not a run event/],
    ['an event without a step', record({ run: RUN, events: [{ type: 'warning', seq: 0, t: 0 }] }), /no valid step or t/],
    ['a gap in seq', record({ run: RUN, events: [warning(0)] }) + record({ run: RUN, events: [warning(2)] }), /seq 2 out of order/],
    ['nesting 10,000 levels deep', record(`{"run":"${RUN}","events":[{"type":"warning","seq":0,"step":0,"t":0,"message":${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`), /nested deeper/],
  ])('refuses %s without throwing', (_name, text, damage) => {
    const journal = Journal.open(dir, RUN);
    journal.close();
    const path = journal.path;
    writeFileSync(path, text);
    const read = readJournal(path);
    expect(read.damage).toMatch(damage);
    expect(read.batches.length).toBeLessThanOrEqual(1);
  });

  it('keeps appending past its preallocated space, and grows it again when asked', () => {
    const journal = Journal.open(dir, RUN);
    const big = 'x'.repeat(200_000);
    for (let seq = 0; seq < 8; seq++) journal.append(json(warning(seq, big)), seq % 3 === 0);
    expect(statSync(journal.path).size).toBeGreaterThan(RESERVE_BYTES);
    journal.reserve();
    const size = statSync(journal.path).size;
    journal.append(json(warning(8)), true);
    expect(statSync(journal.path).size).toBe(size);
    journal.close();
    const read = readJournal(journal.path);
    expect(read.damage).toBeUndefined();
    expect(read.batches.flat().map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('writes a batch too long for one record as several, read back in order', () => {
    const journal = Journal.open(dir, RUN);
    const long = 'x'.repeat(6 * 1024 * 1024);
    journal.append(json(warning(0, long), warning(1, long), warning(2, long)), true);
    journal.close();
    const read = readJournal(journal.path);
    expect(read.damage).toBeUndefined();
    expect(read.batches.map((batch) => batch.map((e) => e.seq))).toEqual([[0, 1], [2]]);
  });

  it('refuses to overwrite a journal that is already there', () => {
    const path = written();
    expect(() => Journal.open(dir, RUN)).toThrow(/EEXIST/);
    appendFileSync(path, '');
    expect(readJournal(path).batches).toHaveLength(3);
  });
});
