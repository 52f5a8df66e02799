/**
 * The tape's line reader against the plainest reading of a file — decode it whole, split it at
 * newlines, drop each line's trailing CR — on random files of a few chunks, so lines (and the bytes
 * of a character) fall across the reader's chunk boundaries: the same lines with the same numbers;
 * a line that is not UTF-8, or too long, refused at its own line number after every line before it
 * was given.
 */
import { mkdtemp, open, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IoError, TapeFormatError } from '../core/errors.js';
import { readTapeLines, type LineLimits } from './line-reader.js';

let dir: string;
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-lines-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const limits = (maxLineBytes = 1 << 20): LineLimits => ({ maxLineBytes, maxInflatedBytes: () => 1 << 30 });

/** What the reader gave: its lines, then the error it stopped with (message and line), if any. */
async function read(bytes: Buffer, lineLimits: LineLimits, gzip = false): Promise<{ lines: { text: string; line: number }[]; error: string | null }> {
  const path = join(dir, `f${files++}${gzip ? '.gz' : ''}`);
  await writeFile(path, gzip ? gzipSync(bytes) : bytes);
  const lines: { text: string; line: number }[] = [];
  try {
    for await (const batch of readTapeLines(path, lineLimits)) lines.push(...batch);
  } catch (error) {
    expect(error).toBeInstanceOf(TapeFormatError);
    // The message without its `file:line: ` prefix, and the line it names.
    const { message, line } = error as TapeFormatError;
    return { lines, error: `${message.slice(message.indexOf(': ') + 2)} @${line}` };
  }
  return { lines, error: null };
}

/** Lines of text: ASCII, multi-byte characters, CRs, empty lines, some long enough to span a chunk. */
const lineText = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: fc.constantFrom('a', '{', '"', ' ', 'é', '€', '😀', '\r', '\t'), maxLength: 300 }) },
  { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 90_000 }).map((n) => 'x€'.repeat(n / 4)) },
  { weight: 1, arbitrary: fc.constant('') },
);
const fileOf = fc.record({ lines: fc.array(lineText, { minLength: 1, maxLength: 400 }), finalNewline: fc.boolean() });

function contents({ lines, finalNewline }: { lines: string[]; finalNewline: boolean }): string {
  return lines.join('\n') + (finalNewline ? '\n' : '');
}

/** The plain reading: split at newlines, a trailing CR dropped, no line after a final newline. */
function expected(text: string): { text: string; line: number }[] {
  const pieces = text.split('\n');
  if (pieces.at(-1) === '') pieces.pop();
  return pieces.map((piece, i) => ({ text: piece.endsWith('\r') ? piece.slice(0, -1) : piece, line: i + 1 }));
}

describe('readTapeLines', () => {
  it('gives every line of any file, numbered, as the plain reading does (plain and gzip)', async () => {
    await fc.assert(
      fc.asyncProperty(fileOf, fc.boolean(), async (file, gzip) => {
        const text = contents(file);
        const got = await read(Buffer.from(text, 'utf8'), limits(), gzip);
        expect(got.error).toBeNull();
        expect(got.lines).toEqual(expected(text));
      }),
      { numRuns: 40 },
    );
  });

  it('refuses the first line that is not UTF-8 by its number, after every line before it', async () => {
    await fc.assert(
      fc.asyncProperty(fileOf, fc.nat(), fc.constantFrom([0xff], [0xc3], [0xe2, 0x82], [0x80]), async (file, at, bad) => {
        const good = Buffer.from(contents(file), 'utf8');
        // Bad bytes put in at a line start (never inside a character), so the lines before stay whole.
        const starts = [0, ...[...good.keys()].filter((i) => good[i - 1] === 0x0a)];
        const cut = starts[at % starts.length] as number;
        const bytes = Buffer.concat([good.subarray(0, cut), Buffer.from(bad), good.subarray(cut)]);
        const badLine = good.subarray(0, cut).toString('utf8').split('\n').length;
        const got = await read(bytes, limits());
        expect(got.error).toBe(`not valid UTF-8 (corrupt line) @${badLine}`);
        expect(got.lines).toEqual(expected(good.subarray(0, cut).toString('utf8')));
      }),
      { numRuns: 40 },
    );
  });

  it('refuses the first line longer than the limit by its number, after every line before it', async () => {
    await fc.assert(
      fc.asyncProperty(fileOf, fc.integer({ min: 1, max: 70_000 }), async (file, max) => {
        const text = contents(file);
        const all = expected(text);
        const tooLong = all.findIndex((l, i) => Buffer.byteLength(text.split('\n')[i] as string) > max);
        const got = await read(Buffer.from(text, 'utf8'), limits(max));
        if (tooLong === -1) {
          expect(got.error).toBeNull();
          expect(got.lines).toEqual(all);
        } else {
          expect(got.error).toBe(`line longer than ${max} bytes: not an agentctl tape line @${tooLong + 1}`);
          expect(got.lines).toEqual(all.slice(0, tooLong));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('stopped early, leaves the caller a handle that closes at once, with no read of its own left running', async () => {
    // Several chunks: the reader has the next one's read under way when its caller stops.
    const path = join(dir, `f${files++}`);
    await writeFile(path, `${'{"x":"abcdefghij"}\n'.repeat(40_000)}`);
    const handle = await open(path, 'r');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let batches = 0;
      for await (const batch of readTapeLines(path, limits(), { handle })) {
        expect(batch[0]?.line).toBe(1);
        batches++;
        break;
      }
      expect(batches).toBe(1);
      await handle.close();
      // A read the reader began after the close fails ("file closed"): nobody must hear of it.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('gives a failed read to the caller as the error of that chunk, an IoError naming the file, after the lines read before it', async () => {
    const path = join(dir, `f${files++}`);
    await writeFile(path, '{"a":1}\n{"b":2}\n');
    const real = await open(path, 'r');
    // Once the first chunk is read, the next read fails: its descriptor is no longer an open file.
    let broken = false;
    const failing = new Proxy(real, {
      get: (target, key) => {
        if (key === 'fd') return broken ? 2 ** 30 : target.fd;
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as FileHandle;
    try {
      const lines = readTapeLines(path, limits(), { handle: failing });
      expect((await lines.next()).value).toEqual([{ text: '{"a":1}', line: 1 }, { text: '{"b":2}', line: 2 }]);
      broken = true;
      const failure = await lines.next().then(() => undefined, (error: unknown) => error);
      expect(failure).toBeInstanceOf(IoError);
      expect(failure).toMatchObject({ code: 'AGENTCTL_IO', exitCode: 12, cause: { code: 'EBADF' } });
      expect((failure as Error).message.startsWith(`cannot read ${path}: EBADF`), (failure as Error).message).toBe(true);
    } finally {
      await real.close();
    }
  });
});
