/**
 * What of agentctl a command gets in exec_shell: none of its open files (sandboxed or unconfined),
 * no host path on the command line of the sandbox's pid 1, and — when the store lies in the
 * workspace — no way into the store. Real bubblewrap, a real LevelDB store.
 */
import { readdir, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TapeStore } from '../tape/tape-store.js';
import { execShellTool, type ExecShellOptions } from './exec-shell.js';
import { executeTool } from './executor.js';
import { ToolRegistry } from './registry.js';
import { findBwrap } from './sandbox.js';
import { useTempDirs } from './test-support/temp-dirs.js';
import { hiddenEntries } from './workspace.js';

const tempDir = useTempDirs();

beforeAll(async () => {
  // Not a skip: a machine without bubblewrap cannot show that exec_shell is confined.
  if ((await findBwrap(process.env['PATH'])) === undefined) {
    throw new Error('bubblewrap (bwrap) is not installed on this machine; these tests need it: apt-get install bubblewrap');
  }
});

function run(ws: string, command: string, options: ExecShellOptions = {}, hidden: readonly string[] = []): Promise<string> {
  return execShellTool(options).run({ command }, { workspace: ws, hidden, signal: new AbortController().signal });
}

/** A store with one finished run, open (its LOG, LOCK, MANIFEST and write-ahead log held by LevelDB) until `fn` is done. */
async function withOpenStore<T>(dir: string, fn: (store: TapeStore) => Promise<T>): Promise<T> {
  const store = await TapeStore.open(dir);
  try {
    const run = await store.createRun({ kind: 'record', task: 't', model: 'm', config: {}, seed: 0, name: 'kept' });
    await store.append(run.id, { type: 'run_start', seq: 0, step: 0, t: 0, task: 't', model: 'm', seed: 0, config: {} });
    await store.finishRun(run.id, { finalState: 'COMPLETED', eventCount: 1 });
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The store at `dir` opens and still holds its run. */
async function expectStoreIntact(dir: string): Promise<void> {
  const store = await TapeStore.open(dir);
  try {
    await expect(store.resolveRun('kept')).resolves.toMatchObject({ name: 'kept', status: 'complete' });
  } finally {
    await store.close();
  }
}

describe('exec_shell gets nothing of agentctl’s', () => {
  it('inherits none of agentctl’s open files, sandboxed or unconfined: /proc/self/fd holds stdio and ls’s own', async () => {
    const ws = await tempDir();
    const storeDir = join(await tempDir(), 'store');
    await withOpenStore(storeDir, async () => {
      // The store's files are open in this process, as they are in agentctl's while it records.
      const held = await Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
      expect(held.filter((target) => target.startsWith(storeDir)).length).toBeGreaterThan(0);
      for (const options of [{}, { sandbox: 'none' }] satisfies ExecShellOptions[]) {
        await expect(run(ws, 'ls /proc/self/fd', options)).resolves.toBe('0\n1\n2\n3\n[exit code: 0]');
        await expect(run(ws, `for f in /proc/self/fd/*; do readlink "$f"; done | grep -c "${storeDir}" || true`, options)).resolves.toBe('0\n[exit code: 0]');
      }
    });
    await expectStoreIntact(storeDir);
  });

  it('shows no host path on the command line or in the environment of the sandbox’s pid 1 (bwrap)', async () => {
    const ws = await tempDir();
    const storeDir = join(ws, '.agentctl', 'store');
    await withOpenStore(storeDir, async () => {
      const hidden = await hiddenEntries(ws, storeDir);
      const pid1 = await run(ws, 'tr "\\0" "\\n" < /proc/1/cmdline; echo ---; tr "\\0" "\\n" < /proc/1/environ', {}, hidden);
      expect(pid1).toMatch(/\/bwrap\n--args\n3\n--\n\/bin\/sh\n/);
      expect(pid1).toMatch(/---\n\[exit code: 0\]$/); // an empty environment
      expect(pid1).not.toContain(ws);
      // The one place the kernel shows it, as docs/sandbox.md says: the workspace mount's root (its
      // path within the host filesystem that holds it) in mountinfo.
      const root = (await run(ws, 'awk \'$5 == "/workspace" { print $4 }\' /proc/self/mountinfo')).replace(/\n\[exit code: 0\]$/, '');
      expect(root).toMatch(/agentctl-tools-test-/);
      expect(ws.endsWith(root)).toBe(true);
    });
  });

  it('masks the store when it lies in the workspace: a command can neither read, change, remove nor replace it', async () => {
    const ws = await tempDir();
    const storeDir = join(ws, '.agentctl', 'store');
    await writeFile(join(ws, 'work.txt'), 'work\n');
    await withOpenStore(storeDir, async () => {
      const hidden = await hiddenEntries(ws, storeDir);
      expect(hidden).toEqual([join(ws, '.agentctl')]);
      const registry = new ToolRegistry().register(execShellTool());
      const shell = (command: string) => executeTool(registry, 'exec_shell', { command }, { workspace: ws, hidden });
      await expect(shell('ls -A .agentctl | wc -l; cat work.txt')).resolves.toMatchObject({ status: 'ok', output: '0\nwork\n[exit code: 0]' });
      for (const attack of ['cat .agentctl/store/CURRENT', 'touch .agentctl/CURRENT', 'mkdir .agentctl/store', 'rm -rf .agentctl', 'mv .agentctl moved']) {
        await expect(shell(attack)).resolves.toMatchObject({ status: 'error', output: expect.stringMatching(/No such file|Read-only file system|Device or resource busy/) });
      }
      await expect(shell('ls -A')).resolves.toMatchObject({ status: 'ok', output: '.agentctl\nwork.txt\n[exit code: 0]' });
    });
    await expectStoreIntact(storeDir);
  });
});
