/**
 * Crash debris of an import: a process killed with SIGKILL while it writes a run's events leaves
 * no events that no command can see. The run is not listed, its events are gone when the store is
 * next opened, and the same tape imports again.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TapeStore } from '../src/tape/tape-store.js';
import { runCli } from './support/cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-import-kill-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('an import killed while writing leaves no orphaned events, and the run imports again', async () => {
  const store = join(dir, 'store');
  const lib = pathToFileURL(join(process.cwd(), 'dist/entry/tape.js')).href;
  const runId = '01JD00000000000000000000KL';
  // The importer hands the store 5,000 events, says so once they have had time to be written, and
  // then waits for more that never come: it is killed there.
  const script = `
    import { openStore } from ${JSON.stringify(lib)};
    const store = await openStore(${JSON.stringify(store)});
    const meta = { id: '${runId}', kind: 'record', createdAt: '2026-11-21T23:49:51.000Z', task: 't', model: 'm', config: {}, seed: 0, status: 'incomplete', tapeVersion: 1 };
    async function* events() {
      for (let seq = 0; seq < 5000; seq++) yield { type: 'warning', seq, step: 0, t: seq, message: 'event ' + seq };
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.stdout.write('written\\n');
      await new Promise(() => {});
    }
    await store.putRun(meta, events());
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => {
    child.stdout.setEncoding('utf8').on('data', (data: string) => {
      if (data.includes('written')) {
        child.kill('SIGKILL');
        resolve();
      }
    });
  });
  await new Promise((resolve) => child.once('close', resolve));

  const ls = await runCli(['ls', '--json', '--store', store]);
  expect(ls.code, ls.stderr).toBe(0);
  expect(JSON.parse(ls.stdout)).toEqual([]);
  const reopened = await TapeStore.open(store);
  try {
    expect(await reopened.countEvents(runId)).toBe(0);
    async function* again(): AsyncGenerator<never> {
      for (let seq = 0; seq < 10; seq++) yield { type: 'warning', seq, step: 0, t: seq, message: `event ${seq}` } as never;
    }
    await reopened.putRun({ id: runId, kind: 'record', createdAt: '2026-11-21T23:49:51.000Z', task: 't', model: 'm', config: {}, seed: 0, status: 'incomplete', tapeVersion: 1 }, again());
    expect(await reopened.countEvents(runId)).toBe(10);
  } finally {
    await reopened.close();
  }
});
