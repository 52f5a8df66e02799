/**
 * Durability: a writer killed with SIGKILL mid-run loses nothing it had written. The store reopens,
 * keeps every event whose append had completed, and lists the run as `incomplete`.
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
  dir = await mkdtemp(join(tmpdir(), 'agentctl-kill-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('keeps every event written before a SIGKILL and lists the run as incomplete', async () => {
  const store = join(dir, 'store');
  const lib = pathToFileURL(join(process.cwd(), 'dist/entry/tape.js')).href;
  // The writer reports each seq only after its append has resolved, then keeps writing forever.
  const script = `
    import { openStore } from ${JSON.stringify(lib)};
    const store = await openStore(${JSON.stringify(store)});
    const run = await store.createRun({ kind: 'record', task: 'forever', model: 'm', config: {}, seed: 1 });
    process.stdout.write('run ' + run.id + '\\n');
    const writer = store.writer(run.id);
    for (let seq = 0; ; seq++) {
      await writer.append({ type: 'warning', seq, step: seq, t: seq, message: 'event ' + seq }, { sync: seq % 10 === 0 });
      process.stdout.write('wrote ' + seq + '\\n');
    }
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let runId = '';
  let lastWritten = -1;
  await new Promise<void>((resolve) => {
    let buffer = '';
    child.stdout.setEncoding('utf8').on('data', (data: string) => {
      buffer += data;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const [word, value] = line.split(' ');
        if (word === 'run') runId = value ?? '';
        if (word === 'wrote') lastWritten = Number(value);
      }
      if (lastWritten >= 200) {
        child.kill('SIGKILL');
        resolve();
      }
    });
  });
  await new Promise((resolve) => child.once('close', resolve));

  const reopened = await TapeStore.open(store);
  try {
    const meta = await reopened.getRun(runId);
    expect(meta.status).toBe('incomplete');
    let expected = 0;
    for await (const event of reopened.readEvents(runId)) {
      expect(event.seq).toBe(expected);
      expected++;
    }
    expect(expected).toBeGreaterThan(lastWritten);
  } finally {
    await reopened.close();
  }
  const ls = await runCli(['ls', '--store', store]);
  expect(ls.code).toBe(0);
  expect(ls.stdout).toMatch(new RegExp(`${runId}.*incomplete`));
});
