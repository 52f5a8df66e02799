/**
 * End-to-end: what agentctl writes, agentctl reads. A model response too large for a tape line (70 MB
 * against the 64 MiB a tape reader takes) is refused when it is recorded, in one line, and what the
 * run recorded before it exports, imports and replays: no tape agentctl writes is one it refuses.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TAPE_LIMITS } from '../src/tape/tape-limits.js';
import { runCli } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-limits-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const noKey = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };

it('a 70 MB model response: record refuses it in one line (exit 9); the run before it exports, imports and replays', async () => {
  const llm = await startMockLlm([{ content: 'x'.repeat(70_000_000) }]);
  const store = join(dir, 'store');
  let recorded;
  try {
    recorded = await runCli(['record', '--task', 'answer at length', '--base-url', llm.baseURL, '--workspace', dir, '--store', store, '--quiet'], {
      env: noKey,
      timeoutMs: 60_000,
    });
  } finally {
    await llm.close();
  }
  const [first, ...rest] = recorded.stderr.trim().split('\n');
  expect(first).toMatch(
    new RegExp(`^agentctl: ${store}: run \\w+: event \\d+ \\(llm_response\\) is 700\\d{5} bytes as a tape line, more than a tape line may be \\(${TAPE_LIMITS.maxLineBytes}\\): a tape could not hold it, so it is not recorded$`),
  );
  expect(rest).toEqual(['hint: the recording stops here; what was recorded before it is kept (the run is listed as incomplete)']);
  expect(recorded.code).toBe(9);

  const [run] = JSON.parse((await runCli(['ls', '--json', '--store', store])).stdout) as { id: string; status: string }[];
  expect(run?.status).toBe('incomplete');
  const tape = join(dir, 'run.tape.jsonl');
  const exported = await runCli(['export', String(run?.id), '-o', tape, '--store', store]);
  expect(exported.code, exported.stderr).toBe(0);
  const imported = await runCli(['import', tape, '--store', join(dir, 'other')]);
  expect(imported.stderr).toBe('');
  expect(imported.code).toBe(0);
  // The replay reads the whole tape and runs out where the recording stopped: exhausted, not refused.
  const replayed = await runCli(['replay', tape, '--no-save', '--quiet']);
  expect(replayed.stderr).toBe('');
  expect(replayed.stdout).toMatch(/^tape exhausted at iteration 0/);
  expect(replayed.code).toBe(8);
}, 90_000);
