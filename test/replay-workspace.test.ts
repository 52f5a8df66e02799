/**
 * A replay makes its own temporary workspace only when a tool runs live (a replay served from its
 * tape — every `ci` replay — never needs one, and should not pay for making it), and removes it when it ends.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const DEMO = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));
let temp: string;

beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'agentctl-replay-ws-'));
});
afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

/** The replay's --json summary line. */
const summaryOf = (stdout: string): Record<string, unknown> => JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;

describe('replay workspace', () => {
  it('a replay served from its tape makes no workspace; ci makes none either', async () => {
    // A temporary directory that cannot hold one (a file: refused even to root): a replay that tried
    // to make its workspace would fail.
    const notADirectory = join(temp, 'file');
    await writeFile(notADirectory, '');
    const env = { TMPDIR: notADirectory };
    const replay = await runCli(['replay', DEMO, '--no-save', '--json'], { env });
    expect(replay.code, replay.stderr).toBe(0);
    expect(summaryOf(replay.stdout).verdict).toBe('reproduced');
    const ci = await runCli(['ci', DEMO], { env });
    expect(ci.code, ci.stdout + ci.stderr).toBe(0);
  });

  it('tools run live get a workspace of their own, removed when the replay ends', async () => {
    const replay = await runCli(['replay', DEMO, '--no-save', '--json', '--tools', 'live'], { env: { TMPDIR: temp } });
    expect(replay.code, replay.stderr).toBe(0);
    // The recorded files are not in a fresh workspace: the live tools saw another one than the recording's.
    expect(summaryOf(replay.stdout).firstDivergence).toMatchObject({ kind: 'tool_output' });
    expect(await readdir(temp)).toEqual([]);
  });
});
