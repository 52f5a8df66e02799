/**
 * End-to-end: a model's exec_shell commands cannot reach agentctl's store — not through the open
 * files agentctl holds (LevelDB's, inherited by a child unless closed), not by path when the store
 * lies in the workspace (the default `./.agentctl/store` with `--workspace .`) — and the file tools
 * refuse it. Every run recorded before and during the attack stays listable, showable and replayable.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBwrap } from '../src/tools/sandbox.js';
import { runCli, type CliResult } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';

let dir: string;
let project: string;
beforeAll(async () => {
  // Not a skip: without bubblewrap this cannot show that the sandbox keeps the store out of reach.
  if ((await findBwrap(process.env['PATH'])) === undefined) throw new Error('these tests need bubblewrap (bwrap): apt-get install bubblewrap');
  dir = await mkdtemp(join(tmpdir(), 'agentctl-sandbox-store-'));
  project = join(dir, 'project');
  await mkdir(project);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Run agentctl in the project directory (or `cwd`), with its default store `./.agentctl/store`. */
const cli = (args: string[], cwd = project): Promise<CliResult> =>
  runCli(args, { cwd, env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, AGENTCTL_STORE: undefined } });

const shell = (command: string) => ({ tool_calls: [{ name: 'exec_shell', arguments: { command } }] });

/** Truncate every open file whose name has MANIFEST in it: LevelDB then cannot open the store. */
const TRUNCATE_MANIFEST = 'for f in /proc/self/fd/*; do case "$(readlink $f)" in *MANIFEST*) : > $f;; esac; done; echo truncated';
/** Write over every inherited descriptor above stdio: the store's LOG, LOCK, write-ahead log, MANIFEST. */
const OVERWRITE_FDS = 'for f in /proc/self/fd/*; do n=${f##*/}; if [ "$n" -ge 3 ]; then echo garbage 2>/dev/null > "$f"; fi; done; echo overwritten';
/** Go for the store by path: it is `.agentctl/store` in the workspace. */
const BY_PATH =
  'ls /proc/self/fd; echo "[$(ls -A .agentctl)]"; rm -rf .agentctl/store 2>&1; rm -rf .agentctl 2>&1; mv .agentctl moved 2>&1; ' +
  'mkdir -p .agentctl/store 2>&1; echo planted > .agentctl/CURRENT 2>&1; echo end';

async function record(task: string, steps: Parameters<typeof startMockLlm>[0], cwd = project): Promise<Array<Record<string, unknown>>> {
  const llm = await startMockLlm(steps);
  try {
    const result = await cli(['record', '--task', task, '--base-url', llm.baseURL, '--workspace', '.', '--json'], cwd);
    expect(result.code, result.stderr).toBe(0);
    llm.assertConsumed();
    return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  } finally {
    await llm.close();
  }
}

/** `ls`, `show` and `replay --no-save` of every run succeed, and each replay reproduces its run. */
async function expectEveryRunReadable(ids: readonly string[], cwd = project): Promise<void> {
  const ls = await cli(['ls'], cwd);
  expect(ls.code, ls.stderr).toBe(0);
  for (const id of ids) {
    expect(ls.stdout).toContain(id);
    const show = await cli(['show', id], cwd);
    expect(show.code, show.stderr).toBe(0);
    const replay = await cli(['replay', id, '--no-save', '--json'], cwd);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({ verdict: 'reproduced', state: 'COMPLETED' });
  }
}

describe('exec_shell and the store in the workspace', () => {
  it('cannot destroy earlier runs: not through inherited descriptors, not by path; the file tools refuse the store', async () => {
    const first = await record('first', [shell('echo one > one.txt'), { content: 'done' }]);
    const firstId = String(first.at(-1)?.['runId']);
    await expectEveryRunReadable([firstId]);

    const attack = await record('attack', [
      shell(TRUNCATE_MANIFEST),
      shell(OVERWRITE_FDS),
      shell(BY_PATH),
      { tool_calls: [{ name: 'read_file', arguments: { path: '.agentctl/store/CURRENT' } }] },
      { tool_calls: [{ name: 'write_file', arguments: { path: '.agentctl/store/CURRENT', content: 'MANIFEST-999999\n' } }] },
      { content: 'done' },
    ]);
    const attackId = String(attack.at(-1)?.['runId']);
    const results = attack.filter((event) => event.type === 'tool_result');
    expect(results.map((event) => event.status)).toEqual(['ok', 'ok', 'ok', 'error', 'error']);
    // Only stdio and `ls`'s own descriptor; the masked .agentctl is empty and can be neither changed, removed nor renamed.
    const byPath = String(results[2]?.['output']);
    expect(byPath).toMatch(/^0\n1\n2\n3\n\[\]\n/);
    expect(byPath).toMatch(/Read-only file system|Device or resource busy/);
    for (const result of results.slice(3)) expect(result['output']).toMatch(/'\.agentctl', which holds agentctl's store; tools may not reach it/);
    await expectEveryRunReadable([firstId, attackId]);

    // A live replay runs the attack again, with the store open to read the run.
    const live = await cli(['replay', attackId, '--tools', 'live', '--allow-side-effects', '--workspace', '.', '--no-save', '--json']);
    expect(live.code, live.stderr).toBe(0);
    await expectEveryRunReadable([firstId, attackId]);
  });

  it('refuses a workspace inside the store before it is made there, in record and in replay (exit 2)', async () => {
    const other = join(dir, 'other');
    await mkdir(other);
    const id = String((await record('kept', [{ content: 'done' }], other)).at(-1)?.['runId']);
    const store = join(other, '.agentctl', 'store');
    const llm = await startMockLlm([{ content: 'never asked' }]);
    try {
      const recorded = await cli(['record', '--task', 'x', '--base-url', llm.baseURL, '--workspace', '.agentctl/store/ws'], other);
      expect(recorded.code).toBe(2);
      expect(recorded.stderr).toMatch(/^agentctl: the workspace \.agentctl\/store\/ws is inside agentctl's store .*; give a workspace outside it\n/);
      expect(llm.requests).toHaveLength(0);
    } finally {
      await llm.close();
    }
    const replayed = await cli(['replay', id, '--tools', 'live', '--workspace', '.agentctl/store/ws', '--no-save'], other);
    expect(replayed.code).toBe(2);
    expect(replayed.stderr).toMatch(/is inside agentctl's store/);
    expect(existsSync(join(store, 'ws'))).toBe(false);
    await expectEveryRunReadable([id], other);
  });
});
