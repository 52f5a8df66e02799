/**
 * `agentctl ci` given what a careless script or a hostile user gives it, through the real binary:
 * tapes that are links or no files at all, an empty path, counts that only look like counts, shards
 * past 2^53, a pasted blob for a pattern, and reporters that would write over one another or wait on
 * a pipe forever. Each is said in one `agentctl: …` line before anything runs, or reported per tape.
 */
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { lastLine, OFFLINE, TAPES } from './support/corpus.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-ci-hostile-'));
  await mkdir(join(dir, 'tapes'));
  await copyFile(join(TAPES, 'demo-loop.tape.jsonl'), join(dir, 'tapes', 'demo-loop.tape.jsonl'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ci = (args: string[], env: Record<string, string | undefined> = {}) => runCli(['ci', ...args], { cwd: dir, env: { ...OFFLINE, ...env }, timeoutMs: 60_000 });
const mkfifo = (path: string): void => {
  execFileSync('mkfifo', [path]);
};

describe('what a directory holds under a tape\'s name', () => {
  beforeAll(async () => {
    const odd = join(dir, 'odd');
    await mkdir(join(odd, 'sub'), { recursive: true });
    await copyFile(join(TAPES, 'demo-loop.tape.jsonl'), join(odd, 'demo-loop.tape.jsonl'));
    await symlink(join(odd, 'demo-loop.tape.jsonl'), join(odd, 'link.tape.jsonl'));
    mkfifo(join(odd, 'pipe.tape.jsonl'));
    await symlink(join(odd, 'nowhere'), join(odd, 'dangling.tape.jsonl'));
    await symlink(odd, join(odd, 'dir-link.tape.jsonl'));
    // A link back up the tree: a walk that followed it would never end.
    await symlink(odd, join(odd, 'sub', 'up'));
  });

  it('a link to a tape is a tape; a pipe, a link to nothing or to a directory is listed, never left out', async () => {
    const listed = await ci(['odd', '--list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n').filter((l) => l !== '')).toEqual([
      'odd/demo-loop.tape.jsonl', 'odd/dangling.tape.jsonl', 'odd/dir-link.tape.jsonl', 'odd/link.tape.jsonl', 'odd/pipe.tape.jsonl',
    ].sort());
  });

  it('each that is no file is INVALID "not a file", never opened (a pipe would hang); the link to a tape passes', async () => {
    const run = await ci(['odd', '--reporter', 'json']);
    expect(run.code, run.stderr).toBe(9);
    const report = JSON.parse(run.stdout) as { results: { tape: string; outcome: string; message: string }[] };
    const byTape = Object.fromEntries(report.results.map((r) => [r.tape, `${r.outcome}: ${r.message}`]));
    expect(byTape).toMatchObject({
      'odd/dangling.tape.jsonl': 'invalid: not a file: a link to nothing',
      'odd/dir-link.tape.jsonl': 'invalid: not a file: a link to a directory',
      'odd/pipe.tape.jsonl': 'invalid: not a file',
    });
    expect(byTape['odd/link.tape.jsonl']).toMatch(/^pass: /);
    expect(byTape['odd/demo-loop.tape.jsonl']).toMatch(/^pass: /);
  });
});

describe('paths and counts that are not what they seem', () => {
  it('an empty path is refused, not taken for the working directory', async () => {
    for (const args of [[''], ['tapes', '']]) {
      const result = await ci(args);
      expect(result.code, JSON.stringify(args)).toBe(2);
      expect(result.stderr.split('\n')[0]).toBe('agentctl: an empty path: give a tape file or a directory of tapes');
      expect(result.stdout).toBe('');
    }
  });

  it('--bail with a word that reads as a number must be a count of at least 1; any other word is a path', async () => {
    for (const value of ['-1', '1.5', '0', '+2', '1e3']) {
      const result = await ci(['--bail', value, 'tapes']);
      expect(result.code, value).toBe(2);
      expect(result.stderr, value).toBe(`agentctl: --bail must be a whole number of at least 1, got '${value}'\n`);
    }
    const huge = await ci(['--bail', '99999999999999999999', 'tapes']);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toBe("agentctl: --bail must be below 2^53, got '99999999999999999999'\n");
    const word = await ci(['--bail', 'abc', 'tapes']);
    expect(word.code).toBe(10);
    expect(word.stderr).toBe('agentctl: no such file or directory: abc\n');
    const path = await ci(['--bail', 'tapes']);
    expect(path.code, path.stderr).toBe(0);
    expect(lastLine(path.stdout)).toBe('1 passed, 0 failed');
  });

  it('--shard past 2^53 is a usage error, not a shard nobody asked for', async () => {
    for (const shard of ['1/99999999999999999999', '99999999999999999999/99999999999999999999', '9007199254740993/9007199254740993']) {
      const result = await ci(['tapes', '--shard', shard, '--list']);
      expect(result.code, shard).toBe(2);
      expect(result.stderr, shard).toMatch(new RegExp(`^agentctl: bad --shard '${shard}': expected i/n with 1 ≤ i ≤ n`));
    }
    const largest = await ci(['tapes', '--shard', '1/9007199254740991', '--list']);
    expect(largest.code, largest.stderr).toBe(0);
  });

  it('a 100,000-character pattern or path is quoted back clipped, with its length', async () => {
    const long = 'a'.repeat(100_000);
    const filter = await ci(['tapes', '-t', long]);
    expect(filter.code).toBe(2);
    const line = filter.stderr.split('\n')[0] ?? '';
    expect(line.length).toBeLessThan(300);
    expect(line).toBe(`agentctl: no tape's path matches --filter '${'a'.repeat(79)}… (100000 characters)' (of 1 in tapes)`);
    const bad = await ci(['tapes', '-t', `(${long}`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.length).toBeLessThan(400);
    expect(bad.stderr).toMatch(/^agentctl: bad --filter pattern '\(a+… \(100001 characters\)'/);
    const deep = 'abcd/'.repeat(600);
    const missing = await ci([deep]);
    expect(missing.code).toBe(10);
    expect(missing.stderr).toBe(`agentctl: no such file or directory: ${deep.slice(0, 79)}… (3000 characters)\n`);
    const tooLong = await ci([long]);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toBe(`agentctl: cannot read ${'a'.repeat(79)}… (100000 characters): the name is too long\n`);
  });
});

describe('where the reporters write', () => {
  it('two documents on standard output are refused; text and github lines may share it', async () => {
    for (const args of [['--reporter', 'json', '--reporter', 'junit'], ['--reporter', 'json', '--reporter', 'text'], ['--reporter', 'junit', '--reporter', 'junit'], ['--json', '--reporter', 'junit']]) {
      const result = await ci(['tapes', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^agentctl: --reporter \w+ and --reporter \w+ cannot share standard output/);
      expect(result.stdout, args.join(' ')).toBe('');
    }
    const both = await ci(['tapes', '--reporter', 'text', '--reporter', 'github']);
    expect(both.code, both.stderr).toBe(0);
    expect(lastLine(both.stdout)).toBe('1 passed, 0 failed');
  });

  it('under GitHub Actions the default text and github share standard output; a json document there keeps it alone', async () => {
    const summary = join(dir, 'summary.md');
    const text = await ci(['tapes'], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    expect(text.code, text.stderr).toBe(0);
    expect(existsSync(summary)).toBe(true);
    // A tape that fails: github would annotate it, on standard output, in the middle of the document.
    await mkdir(join(dir, 'broken'));
    await writeFile(join(dir, 'broken', 'corrupt.tape.jsonl'), 'not a tape\n');
    const json = await ci(['broken', '--reporter', 'json'], { GITHUB_ACTIONS: 'true' });
    expect(json.code, json.stderr).toBe(9);
    expect((JSON.parse(json.stdout) as { totals: { invalid: number } }).totals.invalid).toBe(1);
  });

  it('the same file twice is refused, however it is spelled', async () => {
    const result = await ci(['tapes', '--reporter', 'json:out/a', '--reporter', 'junit:./out/../out/a']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('agentctl: --reporter json and --reporter junit both write ./out/../out/a: one would overwrite the other');
  });

  it('NAME:- is standard output, not a file named -', async () => {
    const result = await ci(['tapes', '--reporter', 'json:-']);
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { totals: { passed: number } }).totals.passed).toBe(1);
    expect(await readdir(dir)).not.toContain('-');
  });

  it('a named pipe nothing reads is refused at once, not waited on', async () => {
    mkfifo(join(dir, 'report.fifo'));
    const result = await ci(['tapes', '--reporter', 'junit:report.fifo']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('agentctl: cannot write report.fifo: nothing reads it (a named pipe without a reader, or a socket)\n');
    expect(result.stdout).toBe('');
  });
});
