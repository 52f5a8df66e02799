/**
 * The flags of `agentctl ci` as a user types them, through the real binary: `-u`/`--update` anywhere
 * on the line (and `--update=force` under CI), the updated tapes counted as updated, `-t`/`--filter`,
 * `--bail [n]` (and its older spelling `--max-failures`), even shards, and report files checked
 * before the corpus runs.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { copyCorpus, corpusFiles, lastLine, OFFLINE, reachedBySecondAttempt, ROOT } from './support/corpus.js';

let dir: string;
let files: string[];
/** The committed tapes `identicalCallBlock: 2` changes (the demo among them). */
let reached: Map<string, number>;
/**
 * A config file that sets only that threshold: laid over each tape's own config it changes those
 * tapes; taken as the whole config (`--config-replace`) it makes every tape drift at its first request.
 */
let lowered: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-ci-flags-'));
  files = await corpusFiles();
  reached = await reachedBySecondAttempt();
  expect(reached.size).toBeGreaterThan(0);
  lowered = join(dir, 'lowered.config.json');
  await writeFile(lowered, JSON.stringify({ guardrails: { identicalCallBlock: 2 } }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ci = (args: string[], env: Record<string, string | undefined> = {}) => runCli(['ci', ...args], { cwd: dir, env: { ...OFFLINE, ...env }, timeoutMs: 120_000 });

describe('-u/--update', () => {
  it.each([
    ['--update before the path', ['--update', 'corpus/']],
    ['-u before the path', ['-u', 'corpus/']],
    ['-u after the path', ['corpus/', '-u']],
  ])('%s rewrites the drifted tapes, reported and counted as updated', async (_name, args) => {
    const corpus = join(dir, 'corpus');
    await rm(corpus, { recursive: true, force: true });
    await copyCorpus(corpus);
    const updated = await ci([...args, '--config', lowered, '--reporter', 'text', '--reporter', 'json:report.json']);
    expect(updated.code, updated.stdout + updated.stderr).toBe(0);
    const k = reached.size;
    expect(updated.stdout).toContain(`${k} tape${k === 1 ? '' : 's'} updated from ${k === 1 ? 'its replay' : 'their replays'}: review the diff before you commit`);
    for (const file of reached.keys()) expect(updated.stdout).toContain(`UPDATED     corpus/${file}`);
    expect(updated.stdout).not.toContain('did not pass');
    expect(lastLine(updated.stdout)).toBe(`${files.length - k} passed, ${k} updated, 0 failed`);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as { totals: Record<string, number> };
    expect(report.totals).toMatchObject({ tapes: files.length, passed: files.length - k, updated: k, failed: 0 });
    // The tapes now hold what the change does: they pass with it.
    expect(lastLine((await ci(['corpus/', '--config', lowered])).stdout)).toBe(`${files.length} passed, 0 failed`);
  });

  it('under CI, -u is refused and --update=force (one word) rewrites, before the paths too', async () => {
    const corpus = join(dir, 'forced');
    await copyCorpus(corpus);
    const refused = await ci(['-u', 'forced/', '--config', lowered], { CI: 'true' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^agentctl: --update is refused under CI/);
    const forced = await ci(['--update=force', 'forced/', '--config', lowered], { CI: 'true' });
    expect(forced.code, forced.stderr).toBe(0);
    expect(lastLine(forced.stdout)).toBe(`${files.length - reached.size} passed, ${reached.size} updated, 0 failed`);
    // Two words are --update and a path.
    const apart = await ci(['--update', 'force', 'forced/']);
    expect(apart.code).toBe(10);
    expect(apart.stderr).toBe('agentctl: no such file or directory: force\n');
  });
});

describe('-t/--filter', () => {
  it('runs only the tapes whose path the regular expression matches, in either spelling, anywhere on the line', async () => {
    const listed = await runCli(['ci', 'tapes/', '-t', 'stream|demo', '--list'], { cwd: ROOT, env: OFFLINE });
    expect(listed.code, listed.stderr).toBe(0);
    const expected = files.map((f) => `tapes/${f}`).filter((p) => /stream|demo/.test(p));
    expect(expected.length).toBeGreaterThan(1);
    expect(listed.stdout.split('\n').filter((l) => l !== '')).toEqual(expected);

    const run = await runCli(['ci', '--filter', '^tapes/demo', 'tapes/'], { cwd: ROOT, env: OFFLINE });
    expect(run.code, run.stderr).toBe(0);
    expect(lastLine(run.stdout)).toBe(`${files.filter((f) => f.startsWith('demo')).length} passed, 0 failed`);
  });

  it('a pattern that matches no tape, or that RE2 refuses, is one usage error', async () => {
    const none = await runCli(['ci', 'tapes/', '-t', 'no-such-tape'], { cwd: ROOT, env: OFFLINE });
    expect(none.code).toBe(2);
    expect(none.stderr.split('\n')[0]).toBe(`agentctl: no tape's path matches --filter 'no-such-tape' (of ${files.length} in tapes/)`);
    const bad = await runCli(['ci', 'tapes/', '-t', '(?=x)'], { cwd: ROOT, env: OFFLINE });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^agentctl: bad --filter pattern '\(\?=x\)': /);
  });
});

describe('--bail', () => {
  // Every tape drifts (at its first request) under a partial config taken as the whole config.
  let failing: string[];
  beforeAll(async () => {
    failing = ['--config', lowered, '--config-replace', '--concurrency', '1'];
    await copyCorpus(join(dir, 'bail'));
  });

  it('--bail stops after the first failure, even right before the path; --bail n (or --bail=n) after the n-th', async () => {
    const first = await ci(['--bail', 'bail/', ...failing]);
    expect(first.code).toBe(7);
    expect(first.stdout).toContain(`stopped after 1 failure (--bail): ${files.length - 1} tapes not run`);
    expect(lastLine(first.stdout)).toBe(`0 passed, 1 failed, ${files.length - 1} skipped`);
    for (const args of [['--bail', '3', 'bail/'], ['bail/', '--bail=3']]) {
      const third = await ci([...args, ...failing]);
      expect(lastLine(third.stdout), args.join(' ')).toBe(`0 passed, 3 failed, ${files.length - 3} skipped`);
    }
  });

  it('--max-failures n is the same setting; both at once, or a count below 1, is a usage error', async () => {
    const older = await ci(['bail/', '--max-failures', '2', ...failing]);
    expect(lastLine(older.stdout)).toBe(`0 passed, 2 failed, ${files.length - 2} skipped`);
    const both = await ci(['bail/', '--bail', '2', '--max-failures', '2']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('agentctl: --bail and --max-failures are one setting: give one of them\n');
    const zero = await ci(['bail/', '--bail', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/^agentctl: --bail must be a whole number of at least 1, got '0'/);
    const nothing = await ci(['--bail']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr.split('\n')[0]).toBe('agentctl: no tapes given: agentctl ci <files|dirs>...');
  });
});

describe('--shard', () => {
  it('splits the committed tapes evenly: sizes differ by one at most, and together they are the corpus', async () => {
    const shards: string[][] = [];
    for (const shard of ['1/3', '2/3', '3/3']) {
      const listed = await runCli(['ci', 'tapes/', '--shard', shard, '--list'], { cwd: ROOT, env: OFFLINE });
      expect(listed.code, listed.stderr).toBe(0);
      shards.push(listed.stdout.split('\n').filter((l) => l !== ''));
    }
    const n = files.length;
    expect(shards.map((s) => s.length)).toEqual([Math.ceil(n / 3), Math.ceil((2 * n) / 3) - Math.ceil(n / 3), n - Math.ceil((2 * n) / 3)]);
    expect(shards.flat().sort()).toEqual(files.map((f) => `tapes/${f}`));
  });
});

describe('report files are checked before the corpus runs', () => {
  beforeAll(async () => {
    await copyCorpus(join(dir, 'reports'));
  });

  it('a report file that cannot be written stops the run before any tape is replayed: one line, exit 2', async () => {
    const demo = join(dir, 'reports', 'demo-loop.tape.jsonl');
    expect(reached.has('demo-loop.tape.jsonl')).toBe(true);
    const before = await readFile(demo);
    await mkdir(join(dir, 'a-directory'), { recursive: true });
    const cases: [string[], Record<string, string>, string][] = [
      [['--reporter', 'junit:/nonexistent/dir/x.xml'], {}, 'agentctl: cannot write /nonexistent/dir/x.xml: its directory does not exist\n'],
      [['--reporter', 'json:a-directory'], {}, 'agentctl: cannot write a-directory: it is a directory\n'],
      [[], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: join(dir, 'missing', 'summary.md') }, `agentctl: cannot write ${join(dir, 'missing', 'summary.md')}: its directory does not exist\n`],
    ];
    for (const [args, env, stderr] of cases) {
      // With -u: a tape replayed first would have been rewritten.
      const result = await ci(['reports/', '-u', '--config', lowered, ...args], env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toBe(stderr);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(await readFile(demo), args.join(' ')).toEqual(before);
    }
  });

  it('the check leaves no file behind, and a report file already there as it was', async () => {
    await writeFile(join(dir, 'kept.xml'), 'an older report');
    const result = await ci(['reports/', '--reporter', 'junit:kept.xml', '--reporter', 'junit:new.xml', '--reporter', 'json:/nonexistent/x.json']);
    expect(result.code).toBe(2);
    expect(await readFile(join(dir, 'kept.xml'), 'utf8')).toBe('an older report');
    expect(existsSync(join(dir, 'new.xml'))).toBe(false);
  });
});
