/**
 * Hostile or damaged tapes, as the one reader every command uses sees them: each is refused with
 * exit 9 naming the file and line, quickly, and never with a stack. Built from the golden demo tape
 * (a real recording) so the tapes are otherwise exactly what agentctl writes.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TapeFormatError } from '../core/errors.js';
import { openTapeFile, validateTapeFile, type OpenTapeOptions } from './tape-file.js';

const DEMO = fileURLToPath(new URL('../../tapes/demo-loop.tape.jsonl', import.meta.url));

let dir: string;
let header: { format: string; version: number; run: Record<string, unknown> };
let events: Record<string, unknown>[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-hostile-'));
  const lines = (await readFile(DEMO, 'utf8')).trim().split('\n');
  header = JSON.parse(lines[0] as string) as typeof header;
  events = lines.slice(1).map((line) => JSON.parse(line) as Record<string, unknown>);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const copy = <T>(value: T): T => structuredClone(value);
const text = (head: unknown, list: readonly unknown[]): string => [head, ...list].map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n') + '\n';
let n = 0;

async function read(content: string | Buffer, ext = '.tape.jsonl', options: OpenTapeOptions = {}): Promise<number> {
  const path = join(dir, `t${n++}${ext}`);
  await writeFile(path, content);
  return validateTapeFile(await openTapeFile(path, options));
}

async function refused(content: string | Buffer, ext = '.tape.jsonl', options: OpenTapeOptions = {}): Promise<TapeFormatError> {
  try {
    await read(content, ext, options);
  } catch (error) {
    expect(error).toBeInstanceOf(TapeFormatError);
    const failure = error as TapeFormatError;
    expect(failure.exitCode).toBe(9);
    expect(failure.message).toMatch(/\.tape\.jsonl(\.gz)?:\d+: /);
    return failure;
  }
  throw new Error('the tape was accepted');
}

describe('the golden demo tape', () => {
  it('reads as it is (the base of every case below)', async () => {
    expect(await read(text(header, events))).toBe(58);
  });
});

describe('nesting and size', () => {
  const deep = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);

  it('refuses a value nested 5,000 levels deep in the header config, at line 1', async () => {
    const line = JSON.stringify(header).replace('"config":{', `"config":{"x":${deep(5000)},`);
    const error = await refused(text(line, events));
    expect(error.line).toBe(1);
    expect(error.message).toMatch(/nested more than 64 levels/);
  });

  it('refuses a checkpoint nested 5,000 levels deep, at its line', async () => {
    const at = events.findIndex((e) => e.type === 'checkpoint');
    const lines: unknown[] = [...events];
    lines[at] = JSON.stringify(events[at]).replace('"guardrails":{', `"guardrails":{"x":${deep(5000)},`);
    const error = await refused(text(header, lines));
    expect(error.line).toBe(at + 2);
  });

  it('refuses a line longer than the limit while reading it', async () => {
    const error = await refused(text(header, events), '.tape.jsonl', { limits: { maxLineBytes: 1000 } });
    expect(error.line).toBe(1);
    expect(error.message).toMatch(/line longer than 1000 bytes/);
  });

  it('refuses blank lines, so 100 million newlines in a 97 KB gzip fail at once', async () => {
    expect((await refused(text(header, [events[0], '', ...events.slice(1)]))).line).toBe(3);
    const bomb = gzipSync(Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), Buffer.alloc(100_000_000, 0x0a)]), { level: 9 });
    expect(bomb.length).toBeLessThan(120_000);
    const started = performance.now();
    const error = await refused(bomb, '.tape.jsonl.gz');
    expect(performance.now() - started).toBeLessThan(2000);
    expect(error.line).toBe(2);
    expect(error.message).toMatch(/blank line/);
  });

  it('stops inflating a gzip tape at a bound set by its compressed size', async () => {
    // Valid events padded with spaces compress far better than any real tape.
    const padded = events.map((e) => JSON.stringify(e) + ' '.repeat(20_000));
    const gz = gzipSync(text(header, padded));
    const error = await refused(gz, '.tape.jsonl.gz', { limits: { maxInflateRatio: 20, minInflatedBytes: 0 } });
    expect(error.message).toMatch(/inflates to more than \d+ bytes/);
    expect(error.line).toBeLessThan(events.length);
    // The same tape is fine within the default bounds.
    expect(await read(gz, '.tape.jsonl.gz')).toBe(58);
  });

  it('refuses more event lines than the header says, at the first extra line', async () => {
    const head = copy(header);
    head.run.eventCount = 10;
    const error = await refused(text(head, events));
    expect(error.line).toBe(12);
    expect(error.message).toMatch(/more events than the header's eventCount \(10\)/);
    const unbounded = copy(header);
    delete unbounded.run.eventCount;
    unbounded.run.status = 'incomplete';
    delete unbounded.run.finalState;
    delete unbounded.run.totals;
    expect((await refused(text(unbounded, events.slice(0, 20)), '.tape.jsonl', { limits: { maxEvents: 5 } })).line).toBe(7);
  });
});
