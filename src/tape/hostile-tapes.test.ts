/**
 * Hostile or damaged tapes, as the one reader every command uses sees them: each is refused with
 * exit 9 naming the file and line, quickly, and never with a stack. Built from the golden demo tape
 * (a real recording) so the tapes are otherwise exactly what agentctl writes.
 */
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { TapeFormatError } from '../core/errors.js';
import { openTapeFile, removeStaleTempFiles, validateTapeFile, writeTapeFile, type OpenTapeOptions } from './tape-file.js';

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

describe('the end of a tape agrees with its header', () => {
  it('refuses a complete tape cut at a line boundary', async () => {
    const error = await refused(text(header, events.slice(0, 20)));
    expect(error.line).toBe(22);
    expect(error.message).toMatch(/ends after 20 events; its header says 58/);
    const uncounted = copy(header);
    delete uncounted.run.eventCount;
    expect((await refused(text(uncounted, events.slice(0, 20)))).message).toMatch(/without run_end, but its header says the run is complete/);
  });

  it('accepts the export of an incomplete run, which its header says', async () => {
    const head = copy(header);
    head.run.status = 'incomplete';
    head.run.eventCount = 20;
    delete head.run.finalState;
    delete head.run.totals;
    expect(await read(text(head, events.slice(0, 20)))).toBe(20);
    // …but not one whose header still gives the final state of a finished run.
    head.run.finalState = 'ERROR';
    expect((await refused(text(head, events.slice(0, 20)))).message).toMatch(/without run_end, but its header gives a final state/);
  });

  it("refuses a final state or totals that are not run_end's, and anything after run_end", async () => {
    const head = copy(header);
    head.run.finalState = 'COMPLETED';
    const error = await refused(text(head, events));
    expect(error.line).toBe(59);
    expect(error.message).toMatch(/run_end says ERROR; the header's finalState is COMPLETED/);
    const totals = copy(header);
    (totals.run.totals as { steps: number }).steps = 1;
    expect((await refused(text(totals, events))).message).toMatch(/totals differ/);
    const after = copy(header);
    after.run.eventCount = 59;
    const extra = { type: 'warning', seq: 58, step: 4, t: 99, message: 'late' };
    expect((await refused(text(after, [...events, extra]))).message).toMatch(/warning after run_end \(line 59\)/);
  });
});

describe('request content is checked against its hash', () => {
  const requestLines = (): number[] => events.flatMap((e, i) => (e.type === 'llm_request' ? [i] : []));

  it('refuses a request whose user message was rewritten under its hash', async () => {
    const list = copy(events);
    const first = list[requestLines()[0] as number] as { append: { role: string; content: string }[] };
    const user = first.append.find((m) => m.role === 'user');
    if (user === undefined) throw new Error('no user message');
    user.content = 'Delete everything.';
    const error = await refused(text(header, list));
    expect(error.line).toBe((requestLines()[0] as number) + 2);
    expect(error.message).toMatch(/request 0: its hash does not match the request rebuilt from the tape/);
  });

  it('refuses a change to a later request, to its model or its tools', async () => {
    const last = requestLines().at(-1) as number;
    for (const change of [
      (r: Record<string, unknown>) => ((r.append as { content: string }[]).at(-1)!.content += ' '),
      (r: Record<string, unknown>) => (r.model = 'other-model'),
      (r: Record<string, unknown>) => (r.tools = ['read_file']),
    ]) {
      const list = copy(events);
      change(list[last] as Record<string, unknown>);
      expect((await refused(text(header, list))).line).toBe(last + 2);
    }
  });

  it('refuses a delta that keeps more messages than the previous request had', async () => {
    const list = copy(events);
    const first = requestLines()[0] as number;
    (list[first] as { prefix: number }).prefix = 3;
    expect((await refused(text(header, list))).message).toMatch(/keeps 3 messages of the previous request, which had 0/);
  });

  it('does not check requests recorded through the library, whose settings are not on the tape', async () => {
    const head = copy(header);
    Object.assign(head.run, { config: {}, task: 'library run', model: 'm', seed: 0 });
    const list: RunEvent[] = [
      { type: 'run_start', seq: 0, step: 0, t: 0, task: 'library run', model: 'm', seed: 0, config: {} },
      { type: 'llm_request', seq: 1, step: 0, t: 0, iteration: 0, hash: 'f'.repeat(64), prefix: 0, append: [{ role: 'user', content: 'hi' }], model: 'm', stream: false, tools: ['get_weather'] },
      { type: 'run_end', seq: 2, step: 0, t: 1, state: 'COMPLETED', reason: 'finished by the caller', totals: header.run.totals as never },
    ];
    head.run.eventCount = 3;
    head.run.finalState = 'COMPLETED';
    expect(await read(text(head, list))).toBe(3);
  });
});

describe('a tape that reads must replay: config and order', () => {
  it('refuses an unknown field in the recorded config (header or run_start), naming it', async () => {
    const head = copy(header);
    (head.run.config as Record<string, unknown>).bogus = 1;
    const error = await refused(text(head, events));
    expect(error.line).toBe(1);
    expect(error.message).toMatch(/the recorded config: unknown field 'bogus'/);
    const list = copy(events);
    (list[0] as { config: Record<string, unknown> }).config.bogus = 1;
    expect((await refused(text(header, list))).line).toBe(2);
  });

  it('refuses a config with a tool that does not exist', async () => {
    const head = copy(header);
    (head.run.config as { tools: string[] }).tools = ['read_file', 'rm_rf'];
    expect((await refused(text(head, events))).message).toMatch(/unknown tool 'rm_rf'/);
  });

  it('reads a tape recorded before newer settings existed, with their defaults', async () => {
    // As an older agentctl wrote it: no limits.requestTimeoutMs or streamIdleTimeoutMs, no sandbox, no source.
    const old = <T extends { config: Record<string, unknown> }>(holder: T): T => {
      const config = copy(holder.config) as { limits: Record<string, unknown>; sandbox?: unknown };
      delete config.limits.requestTimeoutMs;
      delete config.limits.streamIdleTimeoutMs;
      delete config.sandbox;
      return { ...holder, config };
    };
    const head = copy(header);
    head.run = old(head.run as { config: Record<string, unknown> });
    delete (head.run as { source?: unknown }).source;
    const before = copy(events);
    before[0] = old(before[0] as unknown as { config: Record<string, unknown> }) as unknown as (typeof events)[number];
    expect(await read(text(head, before))).toBe(58);
  });

  it('refuses steps that go back, a first event other than run_start, and a second run_start', async () => {
    const back = copy(events);
    (back[17] as { step: number }).step = 0;
    expect((await refused(text(header, back))).message).toMatch(/event 17 goes back from step 1 to 0/);
    const noStart = copy(events).slice(1).map((e, seq) => ({ ...e, seq }));
    const head = copy(header);
    head.run.eventCount = 57;
    expect((await refused(text(head, noStart))).message).toMatch(/the first event is state: a run starts with run_start/);
    const twice = copy(events);
    twice[1] = { ...twice[0], seq: 1 };
    expect((await refused(text(header, twice))).line).toBe(3);
  });

  it('refuses a guardrail decision marked as analysis, at its line: a tape holds what happened', async () => {
    const lying = copy(events);
    const at = lying.findIndex((e) => e.type === 'guardrail' && e.verdict === 'block');
    lying[at] = { ...lying[at], analysis: true };
    const failure = await refused(text(header, lying));
    expect(failure.line).toBe(at + 2);
    expect(failure.detail).toBe('a guardrail decision marked as analysis: a tape records what happened, never what the guardrails would have decided');
  });

  it('refuses a header that changed after the tape was opened', async () => {
    const path = join(dir, 'swapped.tape.jsonl');
    await writeFile(path, text(header, events));
    const tape = await openTapeFile(path);
    const other = copy(header);
    other.run.name = 'swapped';
    await writeFile(path, text(other, events));
    await expect(validateTapeFile(tape)).rejects.toMatchObject({ exitCode: 9, line: 1 });
  });
});

describe('a header that cannot be true (header-checks.ts; every kind through the binary: test/contradicting-tapes.test.ts)', () => {
  it('refuses dates that are not dates, parentIds that are not run ids, and base URLs a recorder never keeps, at line 1', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ createdAt: '2026-13-45T99:00:00Z' }, /createdAt "2026-13-45T99:00:00Z" is not a date and time/],
      [{ updates: [{ at: 'yesterday', note: 'n' }] }, /updates\.0\.at "yesterday" is not a date and time/],
      [{ kind: 'replay', parentId: 'my run' }, /parentId "my run" is not a run id/],
      [{ baseUrl: 'http://127.0.0.1:8080/v1?api_key=sk-abc' }, /baseUrl has a query or fragment/],
      [{ baseUrl: 'file:///etc/passwd' }, /baseUrl is not http\(s\) \(file:\)/],
      [{ baseUrl: 'not a url' }, /baseUrl is not a URL/],
    ];
    for (const [change, message] of cases) {
      const head = copy(header);
      Object.assign(head.run, change);
      const error = await refused(text(head, events));
      expect(error.line, message.source).toBe(1);
      expect(error.message, message.source).toMatch(message);
      expect(error.message).not.toContain('sk-abc');
    }
  });

  it('accepts what agentctl and other ISO 8601 writers put there', async () => {
    for (const createdAt of ['2026-11-22T18:56:51Z', '2026-11-22T18:56:51.114+02:00', '2026-11-22T18:56Z']) {
      const head = copy(header);
      Object.assign(head.run, { createdAt, kind: 'replay', parentId: '01M829WHD5AHQNF10KG7NN9BR8', baseUrl: 'https://api.example.com/v1' });
      expect(await read(text(head, events))).toBe(58);
    }
  });
});

describe('temporary files of killed exports', () => {
  it('are removed by the next export to the directory when their process is gone', async () => {
    const out = await mkdtemp(join(dir, 'export-'));
    const old = new Date(Date.now() - 24 * 3600 * 1000);
    const names = {
      dead: '.run.tape.jsonl.2147483646.tmp',
      live: `.run.tape.jsonl.${process.ppid}.tmp`,
      fresh: '.fresh.tape.jsonl.2147483645.tmp',
      other: '.notes.txt.2147483646.tmp',
    };
    for (const name of Object.values(names)) await writeFile(join(out, name), 'partial');
    for (const name of [names.dead, names.live, names.other]) await utimes(join(out, name), old, old);
    const meta = { ...header.run, id: '01JD0000000000000000000001' } as never;
    await writeTapeFile(join(out, 'next.tape.jsonl'), meta, (async function* () {
      yield* events as unknown as RunEvent[];
    })());
    const exists = async (name: string): Promise<boolean> => stat(join(out, name)).then(() => true, () => false);
    expect(await exists(names.dead)).toBe(false);
    expect(await exists(names.live)).toBe(true);
    expect(await exists(names.fresh)).toBe(true);
    expect(await exists(names.other)).toBe(true);
    expect(await exists('next.tape.jsonl')).toBe(true);
  });

  it('a missing directory is no error for the sweep', async () => {
    await expect(removeStaleTempFiles(join(dir, 'nowhere'))).resolves.toBeUndefined();
  });
});
