/**
 * The command line as a new user meets it, through the real binary: a path that exists is a tape
 * file whatever its name (a directory is refused as one); every error in agentctl's own form (one
 * `agentctl: …` line, a `hint: …` line, exit 2), unknown commands included; the global flags in every
 * command's help; `ls -q` and `ls` fitted to the width; counts with the right plural; `show`'s cost
 * and end reason; diff's steps counted as ls and show count them, and the field behind a request hash.
 */
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { storeWithRuns } from './support/run-store.js';

const DEMO = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));
const DEMO_ID = (JSON.parse(readFileSync(DEMO, 'utf8').split('\n')[0] ?? '{}') as { run: { id: string } }).run.id;
const COMMANDS = ['record', 'replay', 'view', 'ls', 'show', 'export', 'import', 'rm', 'diff', 'ci', 'analyze', 'proxy'];
let dir: string;
/** A store that is never created: commands that read only files must not need one. */
let noStore: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-args-'));
  noStore = join(dir, 'no-store');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a path that exists is a tape file, whatever its name', () => {
  it('replay, view, diff, show and export read it, gzip told by its bytes, without a store', async () => {
    const json = join(dir, 'demo.json');
    const packed = join(dir, 'demo.bin');
    await copyFile(DEMO, json);
    await writeFile(packed, gzipSync(await readFile(DEMO)));
    const replay = await runCli(['replay', json, '--no-save', '--no-tui', '--store', noStore]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain('reproduced: every event matches the tape');
    const gz = await runCli(['replay', packed, '--no-save', '--quiet', '--store', noStore]);
    expect(gz.code, gz.stderr).toBe(0);
    const view = await runCli(['view', packed, '--store', noStore]);
    expect(view.code, view.stderr).toBe(0);
    expect(view.stdout.trimEnd().split('\n').at(-1)).toBe(`record run ${DEMO_ID} (demo): ERROR, 5 steps, 58 events`);
    const diff = await runCli(['diff', json, packed, '--store', noStore]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout.trimEnd().split('\n').at(-1)).toBe('identical: 5 steps each, every event the same (timing ignored)');
    const show = await runCli(['show', packed, '--store', noStore]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(new RegExp(`^run\\s+${DEMO_ID}$`, 'm'));
    expect(show.stdout).toMatch(/^events\s+58$/m);
    const out = join(dir, 'again.tape.jsonl');
    const exported = await runCli(['export', packed, '-o', out, '--store', noStore]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(await readFile(out, 'utf8')).toBe(await readFile(DEMO, 'utf8'));
    expect(existsSync(noStore)).toBe(false);
  });

  it('a directory is refused as one, exit 2, by every command that takes a run or a file', async () => {
    const refused = `agentctl: ${dir} is a directory\nhint: give a tape file or a run id; agentctl ci ${dir} replays every tape in a directory\n`;
    for (const args of [['replay', dir, '--no-save'], ['replay', dir], ['view', dir], ['diff', DEMO, dir], ['diff', dir, DEMO], ['show', dir], ['export', dir], ['import', dir], ['proxy', '--replay', dir]]) {
      const result = await runCli([...args, '--store', noStore]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toBe(refused);
      expect(result.stdout, args.join(' ')).toBe('');
    }
    expect(existsSync(noStore)).toBe(false);
  });

  it('rm deletes runs, never a file it is given', async () => {
    const file = join(dir, 'keep.json');
    await copyFile(DEMO, file);
    const result = await runCli(['rm', file, '--store', noStore]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`agentctl: '${file}' is a path: rm deletes runs from the store, not files\nhint: give the run id (agentctl ls lists them)\n`);
    expect(existsSync(file)).toBe(true);
  });

  it('a name that is no path is a run (no run: exit 10), and a missing file named like a tape is a missing file', async () => {
    const store = join(dir, 'names-store');
    await storeWithRuns(store, [{ task: 'a run' }]);
    const run = await runCli(['show', 'nothing-by-this-name', '--store', store]);
    expect(run.code).toBe(10);
    expect(run.stderr).toBe("agentctl: no run 'nothing-by-this-name'\nhint: list runs with: agentctl ls\n");
    const file = await runCli(['replay', join(dir, 'missing.tape.jsonl'), '--store', store]);
    expect(file.code).toBe(10);
    expect(file.stderr).toBe(`agentctl: no tape file ${join(dir, 'missing.tape.jsonl')}\n`);
  });
});

describe("errors in agentctl's own form", () => {
  it('an unknown command is one line and a hint, exit 2, whatever follows it (--help too)', async () => {
    for (const args of [['frobnicate'], ['launch', '--help'], ['help', 'frobnicate'], ['--store', noStore, 'frobnicate', '--json'], ['frobnicate', '-h']]) {
      const word = args.includes('launch') ? 'launch' : 'frobnicate';
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr, args.join(' ')).toBe(`agentctl: unknown command '${word}'\nhint: agentctl --help lists the commands\n`);
    }
    const typo = await runCli(['shwo', 'demo']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("agentctl: unknown command 'shwo'\nhint: did you mean show?\n");
  });

  it('unknown flags, missing arguments and bad choices: one agentctl line and a hint, exit 2', async () => {
    const cases: [string[], string, string][] = [
      [['ls', '--bogus'], "unknown option '--bogus'", 'run agentctl ls --help for usage'],
      [['ls', '--jsn'], "unknown option '--jsn'", 'did you mean --json?'],
      [['--bogus'], "unknown option '--bogus'", 'run agentctl --help for usage'],
      [['replay'], "missing required argument 'run'", 'run agentctl replay --help for usage'],
      [['replay', DEMO, '--fallback', 'sometimes'], "option '--fallback <mode>' argument 'sometimes' is invalid. Allowed choices are error, live.", 'run agentctl replay --help for usage'],
      [['ls', 'extra'], "too many arguments for 'ls'. Expected 0 arguments but got 1.", 'run agentctl ls --help for usage'],
      [['record'], "required option '--task <text>' not specified", 'run agentctl record --help for usage'],
      [['ls', '--store'], "option '--store <dir>' argument missing", 'run agentctl --help for usage'],
    ];
    for (const [args, message, hint] of cases) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toBe(`agentctl: ${message}\nhint: ${hint}\n`);
      expect(result.stdout, args.join(' ')).toBe('');
    }
  });

  it('agentctl alone prints the help to standard output and exits 0, as --help does', async () => {
    const alone = await runCli([]);
    const help = await runCli(['--help']);
    expect(alone.code).toBe(0);
    expect(alone.stderr).toBe('');
    expect(alone.stdout).toMatch(/^Usage: agentctl \[options\] \[command\]/);
    expect(alone.stdout).toBe(help.stdout);
  });
});

describe("every command's help", () => {
  it('lists the global flags, which work after any command', async () => {
    for (const command of COMMANDS) {
      for (const args of [[command, '--help'], ['help', command]]) {
        const result = await runCli(args);
        expect(result.code, args.join(' ')).toBe(0);
        const global = result.stdout.split('Global Options:\n')[1] ?? '';
        for (const flag of ['--store <dir>', '--json', '--tui', '--no-tui', '-q, --quiet']) expect(global, `${args.join(' ')}: ${flag}`).toContain(flag);
      }
    }
  });
});

describe('ls', () => {
  let store: string;
  let ids: string[];
  const longTask = 'Find out which host and port the demo service is configured to listen on, then explain why it will not start';

  beforeAll(async () => {
    store = join(dir, 'ls-store');
    ids = await storeWithRuns(store, [
      { task: longTask, name: 'a-rather-long-run-name', steps: 12 },
      { task: '设置服务器的主机和端口，然后解释为什么服务无法启动，以及如何修复配置文件中的错误' },
      { task: 'short' },
    ]);
  });

  it('-q prints the run ids alone, newest first, one per line; nothing without a store', async () => {
    const quiet = await runCli(['ls', '-q', '--store', store]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toBe(`${[...ids].reverse().join('\n')}\n`);
    const none = await runCli(['ls', '--quiet', '--store', noStore]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
  });

  it('fits the width it is given: long tasks and names cut with …, the least needed columns dropped when narrow', async () => {
    for (const columns of [80, 60, 40]) {
      const result = await runCli(['ls', '--store', store], { env: { COLUMNS: String(columns) } });
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines, `${columns}`).toHaveLength(ids.length + 1);
      for (const line of lines) expect(stringWidth(line), `${columns}: ${line}`).toBeLessThanOrEqual(columns);
      // Every run on its own line, its id first; the long task cut, not wrapped.
      expect(lines.slice(1).map((line) => line.split(' ')[0])).toEqual([...ids].reverse());
      expect(lines.at(-1)).toMatch(/ \[a-rather-[^ ]*( .*)?…$/);
    }
    const eighty = (await runCli(['ls', '--store', store], { env: { COLUMNS: '80' } })).stdout.split('\n');
    expect(eighty[0]).toMatch(/^ID\s+KIND\s+OUTCOME\s+STEPS\s+TASK$/);
    expect(eighty[3]).toMatch(/ 12\s+\[a-rather-long-run-name\] …$/);
  });

  it('without a width (a pipe) keeps every column and cuts the task at 60 characters', async () => {
    const result = await runCli(['ls', '--store', store], { env: { COLUMNS: undefined } });
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+CREATED\s+KIND\s+OUTCOME\s+STEPS\s+TASK$/);
    expect(lines[3]).toContain(`[a-rather-long-run-name] ${longTask.slice(0, 60 - 26)}…`);
  });

  it('an ambiguous id prefix says how many runs match, and … when it lists only some', async () => {
    const many = join(dir, 'prefix-store');
    const made = await storeWithRuns(many, [...Array(6).keys()].map((i) => ({ id: `01M8EH${String(i).padStart(20, '0')}`, task: `run ${i}` })));
    const six = await runCli(['show', '01M8EH', '--store', many]);
    expect(six.code).toBe(2);
    const newest = [...made].reverse();
    expect(six.stderr).toBe(`agentctl: '01M8EH' matches 6 runs: ${newest.slice(0, 5).join(', ')}, …\nhint: give more of the run id\n`);
    const two = await runCli(['show', '01M8EH00000000000000000', '--store', many]);
    expect(two.stderr).toBe(`agentctl: '01M8EH00000000000000000' matches 6 runs: ${newest.slice(0, 5).join(', ')}, …\nhint: give more of the run id\n`);
    const five = join(dir, 'five-store');
    const fewer = await storeWithRuns(five, [...Array(5).keys()].map((i) => ({ id: `01M8EJ${String(i).padStart(20, '0')}`, task: `run ${i}` })));
    const listed = await runCli(['show', '01M8EJ', '--store', five]);
    expect(listed.stderr).toBe(`agentctl: '01M8EJ' matches 5 runs: ${[...fewer].reverse().join(', ')}\nhint: give more of the run id\n`);
  });
});

describe('text', () => {
  it('counts with the right plural', async () => {
    // Patched to answer at once: a run of one step, one model call.
    const one = await runCli(['replay', DEMO, '--no-save', '--no-tui', '--patch', '0=Nothing to do.', '--store', noStore]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain('1 step, 1 model call, 0 tool calls');
    expect(one.stdout).not.toMatch(/\b1 (steps|model calls|tool calls|messages|events)\b/);
    const viewed = await runCli(['diff', DEMO, DEMO, '--store', noStore]);
    expect(viewed.stdout).toContain('5 steps each');
  });

  it('show gives the cost in dollars and the reason the run ended', async () => {
    const show = await runCli(['show', DEMO, '--store', noStore]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/^tokens\s+\d+ in, \d+ out, cost \$0\.0000$/m);
    const outcome = 'ERROR: repetition: the same tool calls 4 steps in a row (stops at 3 repeats): read_file(path=config/server.json)';
    expect(show.stdout.split('\n').find((line) => line.startsWith('outcome'))).toBe(`outcome      ${outcome}`);
    const json = JSON.parse((await runCli(['show', DEMO, '--json', '--store', noStore])).stdout) as { endReason: string };
    expect(json.endReason).toMatch(/^repetition: /);
  });

  it('a replay that runs out of tape says how to go on past it', async () => {
    const result = await runCli(['replay', DEMO, '--no-save', '--no-tui', '--set', 'guardrails.maxRepeatedToolSteps=5', '--store', noStore], {
      env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined },
    });
    expect(result.code).toBe(8);
    const hint = 'hint: use --fallback live to send the calls past the end of the tape to the model';
    expect(result.stdout).toContain(`\ntape exhausted at iteration 5\n${hint}\n`);
  });
});

describe('diff', () => {
  let store: string;
  beforeAll(async () => {
    store = join(dir, 'diff-store');
    expect((await runCli(['import', DEMO, '--store', store])).code).toBe(0);
  });

  /** Replay the demo run with `args`, saved; its run id. */
  async function replayed(...args: string[]): Promise<string> {
    const result = await runCli(['replay', 'demo', '--quiet', '--no-tui', ...args, '--store', store]);
    expect(result.stderr).toBe('');
    const id = /saved as run (\w+)/.exec(result.stdout)?.[1];
    expect(id, result.stdout).toBeDefined();
    return id as string;
  }

  it('counts the steps ls and show count', async () => {
    // Patched to answer at step 1: COMPLETED after two steps, the end written at step 2.
    const id = await replayed('--patch', '1=Found it.');
    const listed = JSON.parse((await runCli(['ls', '--json', '--store', store])).stdout) as { id: string; totals: { steps: number } }[];
    const steps = (run: string): number | undefined => listed.find((meta) => meta.id === run)?.totals.steps;
    expect([steps(DEMO_ID), steps(id)]).toEqual([5, 2]);
    const diff = await runCli(['diff', 'demo', id, '--store', store]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout.trimEnd().split('\n').at(-1)).toBe('first difference at step 1: 4 of 5 steps differ (A has 5 steps, B 2)');
    const json = (await runCli(['diff', 'demo', id, '--json', '--store', store])).stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(json.at(-1)).toMatchObject({ type: 'summary', stepsA: 5, stepsB: 2 });
    expect(json.filter((line) => line['type'] === 'step' && line['b'] !== null)).toHaveLength(2);
  });

  it('names what makes request hashes differ: an earlier message, or what the tape does not show', async () => {
    const prompt = await replayed('--set', 'systemPrompt=Be brief.');
    const warmer = await replayed('--set', 'temperature=0.7');
    for (const [run, path] of [[prompt, 'messages[0]'], [warmer, 'tools (definitions) or parameters']] as const) {
      const diff = await runCli(['diff', 'demo', run, '--store', store]);
      expect(diff.code, diff.stderr).toBe(0);
      expect(diff.stdout).toContain(`  differs at event 0 (llm_request) at ${path}\n`);
      expect(diff.stdout).not.toMatch(/ at hash$/m);
    }
  });
});
