/**
 * End to end, the real binary with the cache of tape files already checked (checked-tapes.ts):
 * `agentctl replay <tape>` of a real recording over 1 MiB remembers the tape in
 * `$AGENTCTL_CACHE/checked-tapes/`, replays it again to the very same output, refuses it once it is
 * tampered with (exit 9, one line naming the file), refuses a stale entry block by block and drops
 * it, and writes nothing with AGENTCTL_CACHE=off.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from './support/cli.js';

type RecordSyntheticTape = (path: string, steps: number) => Promise<{ completed: boolean; bytes: number }>;
const BENCH = new URL('../bench/replay.bench.mjs', import.meta.url).href;

let dir: string;
/** A real recording of 400 steps (over 1 MiB): never changed, copied where a test changes it. */
let tape: string;
let tapeText: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-replay-checked-'));
  const { recordSyntheticTape } = (await import(BENCH)) as { recordSyntheticTape: RecordSyntheticTape };
  tape = join(dir, 'synthetic-400.tape.jsonl');
  const made = await recordSyntheticTape(tape, 400);
  expect(made.completed).toBe(true);
  expect(made.bytes).toBeGreaterThan(1024 * 1024);
  tapeText = await readFile(tape, 'utf8');
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function copyOfTape(text = tapeText): Promise<string> {
  const path = join(dir, `t${n++}.tape.jsonl`);
  await writeFile(path, text);
  return path;
}

const replay = (path: string, cache: string): Promise<CliResult> =>
  runCli(['replay', path, '--no-save', '--json'], { cwd: dir, env: { AGENTCTL_CACHE: cache, XDG_CACHE_HOME: join(dir, 'xdg-unused') }, timeoutMs: 60_000 });

async function entries(cache: string): Promise<string[]> {
  try {
    return (await readdir(join(cache, 'checked-tapes'))).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
}

/** The tape with the tool result appended by one request (the 200th) changed, its hash not: same size, valid JSON. */
function tampered(text: string): string {
  const lines = text.split('\n');
  const requests = lines.flatMap((line, i) => (line.includes('"type":"llm_request"') && line.includes('"content":"export const v') ? [i] : []));
  const at = requests[200] as number;
  lines[at] = (lines[at] as string).replace('"content":"export const v', '"content":"EXPORT const v');
  JSON.parse(lines[at] as string);
  return lines.join('\n');
}

/** A refusal as the CLI must give it: exit 9, one line naming the file, no stack. */
function expectRefused(result: CliResult, path: string, detail: RegExp): void {
  expect(result.code, result.stderr).toBe(9);
  const message = result.stderr.trim();
  expect(message.split('\n')).toHaveLength(1);
  expect(message).toContain(path);
  expect(message).toMatch(detail);
  expect(message).not.toMatch(/\n\s+at |Error:/);
}

describe('replay with the checked-tapes cache', () => {
  it('remembers a long tape file, replays it again to the same output, and refuses it once tampered with', async () => {
    const path = await copyOfTape();
    const cache = join(dir, `cache-${n++}`);
    const first = await replay(path, cache);
    expect(first.code, first.stderr).toBe(0);
    expect(await entries(cache)).toHaveLength(1);
    const lines = first.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(5000);
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ type: 'summary', verdict: 'reproduced', exitCode: 0 });

    const second = await replay(path, cache);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(await entries(cache)).toHaveLength(1);

    // Rewritten in place, same size: the entry no longer counts, the checks run and refuse it.
    const size = (await stat(path)).size;
    await writeFile(path, tampered(tapeText));
    expect((await stat(path)).size).toBe(size);
    expectRefused(await replay(path, cache), path, /request \d+: its hash does not match/);
  }, 120_000);

  it('a tampered tape is refused every time and never remembered', async () => {
    const path = await copyOfTape(tampered(tapeText));
    const cache = join(dir, `cache-${n++}`);
    expectRefused(await replay(path, cache), path, /hash does not match/);
    expect(await entries(cache)).toEqual([]);
    expectRefused(await replay(path, cache), path, /hash does not match/);
    expect(await entries(cache)).toEqual([]);
  }, 120_000);

  it('a stale entry (a block digest that is not the file\'s) fails the replay with exit 9 and is dropped; the next replay checks and passes', async () => {
    const path = await copyOfTape();
    const cache = join(dir, `cache-${n++}`);
    const first = await replay(path, cache);
    expect(first.code, first.stderr).toBe(0);
    const [name] = await entries(cache);
    const file = join(cache, 'checked-tapes', name as string);
    const entry = JSON.parse(await readFile(file, 'utf8')) as { blocks: string[] };
    const middle = Math.floor(entry.blocks.length / 2);
    const digest = entry.blocks[middle] as string;
    entry.blocks[middle] = (digest[0] === 'a' ? 'b' : 'a') + digest.slice(1);
    await writeFile(file, JSON.stringify(entry));

    expectRefused(await replay(path, cache), path, /the file changed while it was read/);
    expect(await entries(cache)).toEqual([]);

    const again = await replay(path, cache);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(await entries(cache)).toHaveLength(1);
  }, 120_000);

  it('AGENTCTL_CACHE=off writes nothing', async () => {
    const path = await copyOfTape();
    const home = join(dir, `home-${n++}`);
    const xdg = join(dir, `xdg-${n++}`);
    const result = await runCli(['replay', path, '--no-save', '--json'], {
      cwd: dir,
      env: { AGENTCTL_CACHE: 'off', XDG_CACHE_HOME: xdg, HOME: home },
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    for (const where of [join(dir, 'off'), xdg, home]) {
      await expect(stat(where)).rejects.toMatchObject({ code: 'ENOENT' });
    }
    // The same run with the cache on, under XDG_CACHE_HOME, does write its entry there.
    const on = await runCli(['replay', path, '--no-save', '--json'], { cwd: dir, env: { AGENTCTL_CACHE: undefined, XDG_CACHE_HOME: xdg, HOME: home }, timeoutMs: 60_000 });
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toBe(result.stdout);
    expect(await entries(join(xdg, 'agentctl'))).toHaveLength(1);
  }, 120_000);
});
