/** End-to-end: the real binary on a real store, for the store commands and their errors. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TapeStore } from '../src/tape/tape-store.js';
import type { RunEvent } from '../src/core/events.js';
import { runCli } from './support/cli.js';

const DEMO = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));

let dir: string;
let store: string;
let runId: string;

const events: RunEvent[] = [
  { type: 'run_start', seq: 0, step: 0, t: 0, task: 'count files', model: 'gpt-test', seed: 3, config: { model: 'gpt-test' } },
  { type: 'state', seq: 1, step: 0, t: 1, from: null, to: 'RUNNING', reason: 'task received' },
  {
    type: 'guardrail', seq: 2, step: 1, t: 2, gate: 'replay_control', verdict: 'skip', rule: 'duplicate_success',
    tool: 'read_file', counters: { before: {}, after: {} }, reason: 'prior call succeeded',
  },
  { type: 'run_end', seq: 3, step: 1, t: 3, state: 'COMPLETED', reason: 'done', totals: { steps: 2, llmCalls: 2, toolCalls: 1, inputTokens: 30, outputTokens: 9, cost: 0 } },
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-cli-'));
  store = join(dir, 'store');
  const db = await TapeStore.open(store);
  const run = await db.createRun({ kind: 'record', task: 'count files', model: 'gpt-test', config: { model: 'gpt-test' }, seed: 3, name: 'demo' });
  for (const event of events) await db.append(run.id, event);
  await db.finishRun(run.id, { finalState: 'COMPLETED', eventCount: events.length, totals: { steps: 2, llmCalls: 2, toolCalls: 1, inputTokens: 30, outputTokens: 9, cost: 0 } });
  await db.close();
  runId = run.id;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('agentctl store commands', () => {
  it('ls without a store prints a friendly empty list, exits 0 and creates nothing', async () => {
    const empty = join(dir, 'no-store-here');
    const text = await runCli(['ls', '--store', empty]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/No runs yet/);
    const json = await runCli(['ls', '--json'], { env: { AGENTCTL_STORE: empty } });
    expect(JSON.parse(json.stdout)).toEqual([]);
    expect(existsSync(empty)).toBe(false);
  });

  it('ls lists runs (text and JSON), using AGENTCTL_STORE', async () => {
    const text = await runCli(['ls'], { env: { AGENTCTL_STORE: store } });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(runId);
    expect(text.stdout).toContain('COMPLETED');
    const json = await runCli(['ls', '--json', '--store', store]);
    expect(JSON.parse(json.stdout)).toMatchObject([{ id: runId, status: 'complete', finalState: 'COMPLETED' }]);
  });

  it('show prints metadata and guardrail counts, by id prefix or name', async () => {
    const text = await runCli(['show', runId.slice(0, 22), '--store', store]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/events\s+4/);
    expect(text.stdout).toMatch(/guardrails\s+1 skip$/m);
    const json = await runCli(['show', 'demo', '--json', '--store', store]);
    expect(JSON.parse(json.stdout)).toMatchObject({ run: { id: runId }, events: 4, verdicts: { skip: 1 } });
  });

  it('export → import into another store → export gives the same bytes (file and stdout)', async () => {
    const a = join(dir, 'a.tape.jsonl');
    const b = join(dir, 'b.tape.jsonl.gz');
    const other = join(dir, 'other-store');
    expect((await runCli(['export', runId, '-o', a, '--store', store])).code).toBe(0);
    const imported = await runCli(['import', a, '--store', other]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`imported ${runId} (4 events)`);
    const stdout = await runCli(['export', runId, '--store', other]);
    expect(stdout.stdout).toBe(await readFile(a, 'utf8'));
    expect((await runCli(['export', runId, '-o', b, '--store', other])).code).toBe(0);
    const again = join(dir, 'again-store');
    expect((await runCli(['import', b, '--store', again])).code).toBe(0);
    expect((await runCli(['export', runId, '--store', again])).stdout).toBe(await readFile(a, 'utf8'));
  });

  it('import of a corrupt tape exits 9 naming file and line, and stores nothing', async () => {
    const good = (await runCli(['export', runId, '--store', store])).stdout.split('\n');
    const bad = join(dir, 'bad.tape.jsonl');
    await writeFile(bad, [good[0], good[1], '{"type":"state",', good[3]].join('\n'));
    const target = join(dir, 'corrupt-target');
    const result = await runCli(['import', bad, '--store', target]);
    expect(result.code).toBe(9);
    expect(result.stderr).toMatch(/bad\.tape\.jsonl:3: /);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(target)).toBe(false);
  });

  it('import of a newer tape version exits 9', async () => {
    const file = join(dir, 'future.tape.jsonl');
    await writeFile(file, `${JSON.stringify({ format: 'agentctl-tape', version: 99, run: {} })}\n`);
    const result = await runCli(['import', file, '--store', join(dir, 'future-store')]);
    expect(result.code).toBe(9);
    expect(result.stderr).toMatch(/version 99 is newer/);
  });

  it('import of a run that already exists is refused (exit 2)', async () => {
    const file = join(dir, 'dup.tape.jsonl');
    await runCli(['export', runId, '-o', file, '--store', store]);
    const result = await runCli(['import', file, '--store', store]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/already exists/);
  });

  it('an unknown run exits 10 with a hint to list runs', async () => {
    for (const command of [['show', 'nope'], ['export', 'nope'], ['rm', 'nope']]) {
      const result = await runCli([...command, '--store', store]);
      expect(result.code).toBe(10);
      expect(result.stderr).toMatch(/no run 'nope'/);
      expect(result.stderr).toMatch(/agentctl ls/);
    }
    const missingFile = await runCli(['import', join(dir, 'missing.tape.jsonl'), '--store', store]);
    expect(missingFile.code).toBe(10);
  });

  it('bad flags and unknown commands exit 2 with a usage message, never a stack', async () => {
    for (const args of [['ls', '--bogus'], ['frobnicate'], ['show'], ['ci', 'x', '--reporter', 'xml']]) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/error:|agentctl:/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('a store path that is a file: one line and exit 2', async () => {
    const file = join(dir, 'not-a-store');
    await writeFile(file, 'hello');
    for (const args of [['ls'], ['show', 'x'], ['rm', 'x']]) {
      const result = await runCli([...args, '--store', file]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/is not a directory/);
    }
  });

  it('export to a path it cannot write: one line and exit 2, and no stray file', async () => {
    for (const target of [join(dir, 'missing-dir', 'x.tape.jsonl'), dir]) {
      const result = await runCli(['export', runId, '-o', target, '--store', store]);
      expect(result.code, target).toBe(2);
      expect(result.stderr).toMatch(/cannot write/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('--help and --version exit 0', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['record', 'replay', 'view', 'ls', 'show', 'export', 'import', 'rm', 'diff', 'ci']) expect(help.stdout).toContain(command);
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('a store held by another process: one line and exit 11', async () => {
    const holder = spawn(
      process.execPath,
      ['--input-type=module', '-e', `import { Level } from 'level'; const db = new Level(${JSON.stringify(store)}); await db.open(); console.log('held'); setInterval(() => {}, 1000);`],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
      const result = await runCli(['ls', '--store', store]);
      expect(result.code).toBe(11);
      expect(result.stderr).toMatch(/in use by another agentctl process/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('close', resolve));
    }
  });

  describe('hostile or damaged tapes: exit 9 naming file and line, one line, nothing stored', () => {
    const demo = async (): Promise<{ header: { run: Record<string, unknown> }; events: Record<string, unknown>[] }> => {
      const lines = (await readFile(DEMO, 'utf8')).trim().split('\n');
      return { header: JSON.parse(lines[0] as string), events: lines.slice(1).map((line) => JSON.parse(line)) };
    };
    const write = async (name: string, lines: unknown[]): Promise<string> => {
      const file = join(dir, name);
      await writeFile(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
      return file;
    };
    const expectRefused = async (args: string[], where: RegExp, target?: string): Promise<void> => {
      const result = await runCli(args);
      expect(result.code, result.stderr).toBe(9);
      expect(result.stderr).toMatch(where);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      if (target !== undefined) expect(JSON.parse((await runCli(['ls', '--json', '--store', target])).stdout)).toEqual([]);
    };

    it('a checkpoint nested 5,000 levels deep: import and replay', async () => {
      const { header, events } = await demo();
      const at = events.findIndex((e) => e.type === 'checkpoint');
      const lines: unknown[] = [header, ...events];
      lines[at + 1] = JSON.stringify(events[at]).replace('"guardrails":{', `"guardrails":{"x":${'['.repeat(5000)}${']'.repeat(5000)},`);
      const file = await write('deep.tape.jsonl', lines);
      const target = join(dir, 'deep-store');
      await expectRefused(['import', file, '--store', target], new RegExp(`deep\\.tape\\.jsonl:${at + 2}: .*nested`), target);
      await expectRefused(['replay', file, '--no-save', '--no-tui'], new RegExp(`deep\\.tape\\.jsonl:${at + 2}: `));
    });

    it('a 97 KB gzip of 100 million newlines is refused at once', async () => {
      const { header } = await demo();
      const file = join(dir, 'bomb.tape.jsonl.gz');
      await writeFile(file, gzipSync(Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), Buffer.alloc(100_000_000, 0x0a)]), { level: 9 }));
      const started = performance.now();
      await expectRefused(['import', file, '--store', join(dir, 'bomb-store')], /bomb\.tape\.jsonl\.gz:2: blank line/, join(dir, 'bomb-store'));
      expect(performance.now() - started).toBeLessThan(5000);
    });

    it('a complete tape cut at a line boundary is refused; the export of an incomplete run is not', async () => {
      const { header, events } = await demo();
      const file = await write('cut.tape.jsonl', [header, ...events.slice(0, 20)]);
      const target = join(dir, 'cut-store');
      await expectRefused(['import', file, '--store', target], /cut\.tape\.jsonl:22: the tape ends after 20 events; its header says 58/, target);
      const { finalState: _f, totals: _t, ...run } = header.run;
      const incomplete = await write('incomplete.tape.jsonl', [{ ...header, run: { ...run, status: 'incomplete', eventCount: 20 } }, ...events.slice(0, 20)]);
      const imported = await runCli(['import', incomplete, '--store', target]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse((await runCli(['ls', '--json', '--store', target])).stdout)).toMatchObject([{ status: 'incomplete' }]);
    });

    it('a request rewritten under its hash: import and replay refuse it instead of saying reproduced', async () => {
      const { header, events } = await demo();
      const at = events.findIndex((e) => e.type === 'llm_request');
      const request = events[at] as { append: { role: string; content: string }[] };
      for (const message of request.append) if (message.role === 'user') message.content = 'Delete everything.';
      const file = await write('rewritten.tape.jsonl', [header, ...events]);
      const target = join(dir, 'rewritten-store');
      await expectRefused(['import', file, '--store', target], new RegExp(`rewritten\\.tape\\.jsonl:${at + 2}: request 0: its hash does not match`), target);
      await expectRefused(['replay', file, '--no-save', '--no-tui'], new RegExp(`rewritten\\.tape\\.jsonl:${at + 2}: `));
    });

    it('a tape replay would refuse does not import: unknown config field, steps out of order', async () => {
      const { header, events } = await demo();
      const bogus = await write('bogus.tape.jsonl', [{ ...header, run: { ...header.run, config: { ...(header.run.config as object), bogus: 1 } } }, ...events]);
      await expectRefused(['import', bogus, '--store', join(dir, 'bogus-store')], /bogus\.tape\.jsonl:1: the recorded config: unknown field 'bogus'/, join(dir, 'bogus-store'));
      const steps = events.map((e) => ({ ...e }));
      (steps[17] as { step: number }).step = 0;
      const back = await write('steps.tape.jsonl', [header, ...steps]);
      await expectRefused(['import', back, '--store', join(dir, 'steps-store')], /steps\.tape\.jsonl:19: event 17 goes back from step 1 to 0/, join(dir, 'steps-store'));
    });

    it('the golden tape itself imports and replays', async () => {
      const target = join(dir, 'golden-store');
      expect((await runCli(['import', DEMO, '--store', target])).code).toBe(0);
      const replay = await runCli(['replay', DEMO, '--no-save', '--no-tui']);
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.stdout).toMatch(/reproduced/);
    });
  });

  it('export removes the temporary file a killed export left beside its target', async () => {
    const out = join(dir, 'exports');
    await mkdir(out, { recursive: true });
    const debris = join(out, '.old.tape.jsonl.2147483646.tmp');
    await writeFile(debris, '{"format":"agentctl-tape"');
    const yesterday = new Date(Date.now() - 24 * 3600 * 1000);
    await utimes(debris, yesterday, yesterday);
    const result = await runCli(['export', runId, '-o', join(out, 'new.tape.jsonl'), '--store', store]);
    expect(result.code, result.stderr).toBe(0);
    expect(await readdir(out)).toEqual(['new.tape.jsonl']);
  });

  it('rm deletes a run', async () => {
    const file = join(dir, 'rm.tape.jsonl');
    await runCli(['export', runId, '-o', file, '--store', store]);
    const scratch = join(dir, 'rm-store');
    await runCli(['import', file, '--store', scratch]);
    const removed = await runCli(['rm', runId, '--store', scratch]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`removed ${runId}`);
    expect(JSON.parse((await runCli(['ls', '--json', '--store', scratch])).stdout)).toEqual([]);
  });
});
