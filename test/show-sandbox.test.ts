/** `agentctl show` says how a run's exec_shell was confined, from the config its run_start recorded. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TapeStore } from '../src/tape/tape-store.js';
import { runCli } from './support/cli.js';

let dir: string;
let store: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-show-sandbox-'));
  store = join(dir, 'store');
  const db = await TapeStore.open(store);
  const runs: Array<[string, Record<string, unknown>]> = [
    ['unconfined', { tools: ['read_file', 'exec_shell'], sandbox: 'none' }],
    ['offline', { tools: ['exec_shell'], sandbox: { network: false } }],
    ['online', { sandbox: { network: true } }],
    ['no-shell', { tools: ['read_file'], sandbox: 'none' }],
    ['before-sandbox', { tools: ['exec_shell'] }],
  ];
  for (const [name, config] of runs) {
    const run = await db.createRun({ kind: 'record', task: 't', model: 'gpt-test', config, seed: 0, name });
    const event = { type: 'run_start', seq: 0, step: 0, t: 0, task: 't', model: 'gpt-test', seed: 0, config } as const;
    await db.append(run.id, event);
    await db.finishRun(run.id, { finalState: 'COMPLETED', eventCount: 1 });
  }
  await db.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function sandboxRow(name: string): Promise<string | undefined> {
  const result = await runCli(['show', name, '--store', store]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.split('\n').find((line) => line.startsWith('sandbox'))?.replace(/^sandbox\s+/, '');
}

describe('agentctl show: the sandbox row', () => {
  it('says when exec_shell ran unconfined, and whether the sandbox had the network otherwise', async () => {
    expect(await sandboxRow('unconfined')).toBe('none — exec_shell ran unconfined');
    expect(await sandboxRow('offline')).toBe('on, network off');
    expect(await sandboxRow('online')).toBe('on, network on');
    expect(await sandboxRow('no-shell')).toBe('none (exec_shell not enabled)');
    expect(await sandboxRow('before-sandbox')).toBeUndefined();
  });
});
