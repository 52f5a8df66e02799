import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { InvalidOptionError, NotFoundError, TapeFormatError } from '../core/errors.js';
import type { RunMeta } from '../core/run-meta.js';
import { openTapeFile, validateTapeFile, writeTapeFile } from './tape-file.js';
import { TapeStore } from './tape-store.js';
import { tapeArbitrary } from './test-support/arbitraries.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-tapefile-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function* each<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

async function collect(tape: Awaited<ReturnType<typeof openTapeFile>>): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of tape.events()) events.push(event);
  return events;
}

const totals = { steps: 0, llmCalls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, cost: 0 };
const meta: RunMeta = {
  id: '01JD0000000000000000000000',
  kind: 'record',
  createdAt: '2026-11-21T23:49:51.000Z',
  task: 'demo',
  model: 'gpt-test',
  config: {},
  seed: 1,
  status: 'complete',
  finalState: 'COMPLETED',
  totals,
  eventCount: 3,
  tapeVersion: 1,
};
const events: RunEvent[] = [
  { type: 'run_start', seq: 0, step: 0, t: 0, task: 'demo', model: 'gpt-test', seed: 1, config: {} },
  { type: 'warning', seq: 1, step: 0, t: 1, message: 'hello' },
  { type: 'run_end', seq: 2, step: 0, t: 2, state: 'COMPLETED', reason: 'done', totals },
];

describe('portable tape files', () => {
  it('export → import → export is byte-identical, for any valid event list (plain and gzip)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(tapeArbitrary, fc.boolean(), async ({ meta: runMeta, events: list }, gz) => {
        const ext = gz ? '.tape.jsonl.gz' : '.tape.jsonl';
        const first = join(dir, `p${n}-a${ext}`);
        const second = join(dir, `p${n}-b${ext}`);
        const storeDir = join(dir, `p${n}-store`);
        n++;
        await writeTapeFile(first, runMeta, each(list));
        const tape = await openTapeFile(first);
        const store = await TapeStore.open(storeDir);
        try {
          await store.putRun(tape.meta, tape.events());
          const stored = await store.getRun(runMeta.id);
          await writeTapeFile(second, stored, store.readEvents(runMeta.id));
        } finally {
          await store.close();
        }
        expect(await readFile(second)).toEqual(await readFile(first));
        expect(await collect(await openTapeFile(second))).toHaveLength(list.length);
      }),
      { numRuns: 40 },
    );
  });

  it('reads a header and events, checks every line, and counts them', async () => {
    const path = join(dir, 'ok.tape.jsonl');
    await writeTapeFile(path, meta, each(events));
    const text = await readFile(path, 'utf8');
    expect(text.split('\n')[0]).toBe(
      '{"format":"agentctl-tape","run":{"config":{},"createdAt":"2026-11-21T23:49:51.000Z","eventCount":3,"finalState":"COMPLETED","id":"01JD0000000000000000000000","kind":"record","model":"gpt-test","seed":1,"status":"complete","tapeVersion":1,"task":"demo","totals":{"cost":0,"inputTokens":0,"llmCalls":0,"outputTokens":0,"steps":0,"toolCalls":0}},"version":1}',
    );
    const tape = await openTapeFile(path);
    expect(tape.meta).toEqual(meta);
    expect(await validateTapeFile(tape)).toBe(3);
    expect(await collect(tape)).toEqual(events);
  });

  async function failure(name: string, content: string | Buffer): Promise<TapeFormatError> {
    const path = join(dir, name);
    await writeFile(path, content);
    try {
      const tape = await openTapeFile(path);
      await validateTapeFile(tape);
    } catch (error) {
      expect(error).toBeInstanceOf(TapeFormatError);
      return error as TapeFormatError;
    }
    throw new Error(`${name} was accepted`);
  }

  const header = JSON.stringify({ format: 'agentctl-tape', version: 1, run: meta });
  const line = (e: unknown): string => JSON.stringify(e);

  it('names file and line for a corrupt event line', async () => {
    const error = await failure('corrupt.tape.jsonl', `${header}\n${line(events[0])}\n{"type":"warn\n`);
    expect(error.exitCode).toBe(9);
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/corrupt\.tape\.jsonl:3: .*not valid JSON/);
  });

  it('names the field of an event that fails validation', async () => {
    const error = await failure('invalid.tape.jsonl', `${header}\n${line({ ...events[0], seed: 'x' })}\n`);
    expect(error.line).toBe(2);
    expect(error.message).toMatch(/seed/);
  });

  it('refuses an unknown event type and unknown fields (a tape is untrusted)', async () => {
    expect((await failure('type.tape.jsonl', `${header}\n${line({ type: 'nope', seq: 0, step: 0, t: 0 })}\n`)).line).toBe(2);
    expect((await failure('extra.tape.jsonl', `${header}\n${line({ ...events[1], seq: 0, evil: 1 })}\n`)).line).toBe(2);
  });

  it('refuses a newer tape version with a clear message', async () => {
    const error = await failure('v2.tape.jsonl', `${JSON.stringify({ format: 'agentctl-tape', version: 2, run: meta })}\n`);
    expect(error.line).toBe(1);
    expect(error.message).toMatch(/version 2 is newer/);
  });

  it('refuses a file that is not a tape', async () => {
    expect((await failure('notes.jsonl', 'hello world\n')).message).toMatch(/not an agentctl tape/);
    expect((await failure('other.jsonl', '{"format":"something-else"}\n')).message).toMatch(/not an agentctl tape/);
    expect((await failure('empty.tape.jsonl', '')).message).toMatch(/empty file/);
  });

  it('detects missing or reordered lines by seq', async () => {
    const error = await failure('gap.tape.jsonl', `${header}\n${line(events[1])}\n`);
    expect(error.line).toBe(2);
    expect(error.message).toMatch(/seq 1 where 0 was expected/);
  });

  it('detects a truncated last line and a truncated gzip stream', async () => {
    const full = `${header}\n${line(events[0])}\n${line(events[1])}\n`;
    expect((await failure('cut.tape.jsonl', full.slice(0, full.length - 10))).line).toBe(3);
    const gz = gzipSync(Buffer.from(full));
    const error = await failure('cut.tape.jsonl.gz', gz.subarray(0, gz.length - 12));
    expect(error.exitCode).toBe(9);
    expect(error.message).toMatch(/cut\.tape\.jsonl\.gz/);
  });

  it('leaves no file behind when an export fails midway', async () => {
    const path = join(dir, 'failed.tape.jsonl');
    async function* broken(): AsyncGenerator<RunEvent> {
      yield events[0] as RunEvent;
      throw new Error('store went away');
    }
    await expect(writeTapeFile(path, meta, broken())).rejects.toThrow('store went away');
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a path that cannot be used is an InvalidOptionError naming it, for reading and for writing', async () => {
    const file = join(dir, 'plain-file');
    await writeFile(file, 'x');
    const through = join(file, 'x.tape.jsonl');
    await expect(openTapeFile(through)).rejects.toMatchObject({
      constructor: InvalidOptionError, code: 'AGENTCTL_INVALID_OPTION', message: `cannot read ${through}: a part of the path is not a directory`,
    });
    const nowhere = join(dir, 'no-such-dir', 'x.tape.jsonl');
    await expect(writeTapeFile(nowhere, meta, each(events))).rejects.toMatchObject({
      constructor: InvalidOptionError, message: `cannot write ${nowhere}: its directory does not exist`,
    });
  });

  it('a tape file removed after it was opened is not found when its events are read', async () => {
    const path = join(dir, 'removed.tape.jsonl');
    await writeTapeFile(path, meta, each(events));
    const tape = await openTapeFile(path);
    await rm(path);
    await expect(collect(tape)).rejects.toMatchObject({ constructor: NotFoundError, code: 'AGENTCTL_NOT_FOUND', message: `no such file ${path}` });
  });
});
