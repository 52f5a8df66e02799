/**
 * What the tests of the checked-tapes cache share: two real recorded tapes (60 and 400 steps) in a
 * temporary directory, new paths and cache directories in it, reads that end in an outcome rather
 * than a throw, the entries of a cache directory, the block digests and schema lines of a file, and
 * a copy of a tape that fails its request-hash check.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, open, readdir, readFile, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { TapeFormatError } from '../../core/errors.js';
import type { RunEvent } from '../../core/events.js';
import { BLOCK_BYTES, blockCount } from '../block-digests.js';
import { CHECKED_MIN_BYTES, CheckedTapes, type TapeTrust } from '../checked-tapes.js';
import { quickEvent } from '../quick-event-check.js';
import { openTapeFile } from '../tape-file.js';

type RecordSyntheticTape = (path: string, steps: number) => Promise<{ completed: boolean; bytes: number }>;
const BENCH = new URL('../../../bench/replay.bench.mjs', import.meta.url).href;
export const DEMO = fileURLToPath(new URL('../../../tapes/demo-loop.tape.jsonl', import.meta.url));
export const STREAM_CUT = fileURLToPath(new URL('../../../tapes/stream-cut.tape.jsonl', import.meta.url));

let root: string;
/** A real recorded tape of 60 steps: about 200 KB, four blocks. Copied before use, never changed. */
let multiBlock: string;
/** A real recorded tape of 400 steps: more than CHECKED_MIN_BYTES. */
let large: string;

/** The temporary directory and the recorded tapes in it, set by the hooks of `useCheckedTapeFixtures`. */
export interface CheckedTapeFixtures {
  /** The temporary directory: every path and cache directory of the tests is in it. */
  readonly root: string;
  /** A real recorded tape of 60 steps: about 200 KB, four blocks. Copied before use, never changed. */
  readonly multiBlock: string;
  /** A real recorded tape of 400 steps: more than CHECKED_MIN_BYTES. */
  readonly large: string;
}

/**
 * Registers, in the test file that calls it (at its top level), the hooks that record the two
 * synthetic tapes in a new temporary directory before its tests and remove it after them. The
 * properties of what it returns are read when a test runs, once the tapes are recorded.
 */
/** Files opened for `trustOf`, closed after the file's tests. */
const handles: FileHandle[] = [];

/**
 * What `checked` knows of the file at `path`, as a reader asks: through a descriptor open on it
 * (kept open until the file's tests end, so `remember` can still look at the file).
 */
export async function trustOf(checked: CheckedTapes, path: string): Promise<TapeTrust | null> {
  const handle = await open(path, 'r');
  handles.push(handle);
  return checked.open(handle);
}

export function useCheckedTapeFixtures(): CheckedTapeFixtures {
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
    await Promise.all(handles.splice(0).map((handle) => handle.close()));
    await rm(root, { recursive: true, force: true });
  });
  return {
    get root() {
      return root;
    },
    get multiBlock() {
      return multiBlock;
    },
    get large() {
      return large;
    },
  };
}

let n = 0;
/** A new path in the temporary directory. */
export const fresh = (ext = '.tape.jsonl'): string => join(root, `t${n++}${ext}`);
/** A new cache directory (not created: remembering creates it); `prefix` names it. */
export const freshCache = (prefix = 'cache'): string => join(root, `${prefix}-${n++}`);
export const cacheIn = (dir: string, salt = 'test', minBytes = 0): CheckedTapes => new CheckedTapes({ dir, salt, minBytes });

export async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

/** A copy of `source` at a new path (a new inode: nothing remembered of it). */
export async function copyOf(source: string): Promise<string> {
  const path = fresh();
  await copyFile(source, path);
  return path;
}

export interface Outcome {
  events: RunEvent[];
  /** The message of the TapeFormatError the read ended with, or null. */
  error: string | null;
}

/** Every event of a read of `path` (in batches, as replay reads), and how it ended. */
export async function readTape(path: string, checked: CheckedTapes | null = null): Promise<Outcome> {
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
export async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  } catch {
    return [];
  }
}

/** The one entry file of a cache directory. */
export async function onlyEntry(dir: string): Promise<string> {
  const names = await entries(dir);
  expect(names).toHaveLength(1);
  return join(dir, names[0] as string);
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The sha-256 of each block of the file's bytes as stored. */
export async function blocksOf(path: string): Promise<string[]> {
  const bytes = await readFile(path);
  const out: string[] = [];
  for (let at = 0; at < bytes.length; at += BLOCK_BYTES) out.push(sha256(bytes.subarray(at, at + BLOCK_BYTES)));
  return out;
}

/** The lines (1-based) a read gives to the event schema: those the quick check does not vouch for. */
export function schemaLinesOf(text: string): number[] {
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
export function tamperRequest(text: string, which: number): string {
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
export async function tamperedCopy(which = -1): Promise<{ path: string; error: string }> {
  const path = fresh();
  await writeFile(path, tamperRequest(await readFile(multiBlock, 'utf8'), which));
  const plain = await readTape(path);
  expect(plain.error).toMatch(/hash does not match/);
  return { path, error: plain.error as string };
}
