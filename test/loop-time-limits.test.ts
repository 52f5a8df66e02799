/**
 * Time limits through the real binary (docs/loop.md): `limits.timeoutMs` bounds the model call, the wait
 * before a retry and the tools alike, ending TIMED_OUT at the limit; the per-request and stream-idle
 * limits and answers without usable choices are recoverable provider errors. Each run is recorded
 * against the scripted server, then replayed offline (server closed): the replay ends the same way,
 * event for event, without waiting.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/core/events.js';
import { TapeStore } from '../src/tape/tape-store.js';
import { runCli, type CliResult } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import { loadScenario } from './support/scenario.js';
import { behaviour } from './support/behaviour.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const noModel = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
let dir: string;
let config: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-time-'));
  config = join(dir, 'agentctl.config.json');
  await writeFile(config, JSON.stringify({ tools: ['list_dir'], toolModules: [join(FIXTURES, 'tools', 'wait.mjs')], seed: 5 }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Recorded {
  store: string;
  result: CliResult;
  events: RunEvent[];
  end: Extract<RunEvent, { type: 'run_end' }>;
}

/** Record `scenario` with the real binary into a fresh store (the server is closed before this returns). */
async function record(scenario: string, name: string, args: string[]): Promise<Recorded> {
  const store = join(dir, `store-${name}`);
  const ws = join(dir, `ws-${name}`);
  await mkdir(ws, { recursive: true });
  const llm = await startMockLlm(loadScenario(scenario));
  let result: CliResult;
  try {
    result = await runCli(
      ['record', '--task', 'wait for it', '--config', config, '--base-url', llm.baseURL, '--workspace', ws, '--store', store, '--name', 'run', ...args],
      { env: noModel },
    );
  } finally {
    await llm.close();
  }
  const events = await storedEvents(store);
  const end = events.at(-1);
  if (end?.type !== 'run_end') throw new Error(`${scenario}: no run_end on the tape (exit ${result.code}): ${result.stderr}`);
  return { store, result, events, end };
}

/** Replay the recorded run offline, without saving; returns its events and summary. */
async function replay(store: string, extra: string[] = []): Promise<{ result: CliResult; events: RunEvent[]; summary: Record<string, unknown> }> {
  const result = await runCli(['replay', 'run', '--store', store, '--json', '--no-save', ...extra], { env: noModel });
  const lines = result.stdout.trim().split('\n');
  const summary = JSON.parse(lines.at(-1) ?? '{}') as Record<string, unknown>;
  return { result, events: lines.slice(0, -1).map((line) => JSON.parse(line) as RunEvent), summary };
}

async function storedEvents(store: string): Promise<RunEvent[]> {
  const db = await TapeStore.open(store);
  try {
    const meta = await db.resolveRun('run');
    const events: RunEvent[] = [];
    for await (const event of db.readEvents(meta.id)) events.push(event);
    return events;
  } finally {
    await db.close();
  }
}

/** Replays `run` and checks it ends as recorded: reproduced, same state, same events, same end time. */
async function expectReproduced(run: Recorded): Promise<void> {
  const replayed = await replay(run.store);
  expect(replayed.result.code, replayed.result.stderr).toBe(0);
  expect(replayed.summary, JSON.stringify(replayed.summary.firstDivergence)).toMatchObject({
    verdict: 'reproduced', state: run.end.state, firstDivergence: null, liveCalls: 0,
  });
  expect(behaviour(replayed.events)).toEqual(behaviour(run.events));
  // The replay's clock is the tape's: it ends at the recorded time, having waited for nothing.
  expect(replayed.events.at(-1)).toMatchObject({ type: 'run_end', t: run.end.t });
}

describe('limits.timeoutMs holds while something is in flight: TIMED_OUT at the limit, and a replay ends the same way', () => {
  it('a model call that is never answered', async () => {
    const run = await record('model-never-answers', 'call', ['--set', 'limits.timeoutMs=1000']);
    expect(run.result.code, run.result.stderr).toBe(6);
    expect(run.end).toMatchObject({ state: 'TIMED_OUT', reason: 'run time exceeded the limit of 1000 ms during the model call' });
    expect(run.end.t).toBeGreaterThanOrEqual(1000);
    expect(run.end.t).toBeLessThan(2000);
    await expectReproduced(run);
  });

  it('a stream that stalls after its first chunk', async () => {
    const run = await record('stalled-stream', 'stream', ['--stream', '--set', 'limits.timeoutMs=1000']);
    expect(run.result.code, run.result.stderr).toBe(6);
    expect(run.end.t).toBeGreaterThanOrEqual(1000);
    expect(run.end.t).toBeLessThan(2000);
    const chunks = run.events.filter((e) => e.type === 'llm_chunk');
    expect(chunks.at(-1)).toMatchObject({ chunk: { finished: true, error: 'run time exceeded the limit of 1000 ms' } });
    await expectReproduced(run);
  });

  it('a tool that runs past the limit (a custom tool that stops on its signal)', async () => {
    const run = await record('slow-tool', 'tool', ['--set', 'limits.timeoutMs=1000']);
    expect(run.result.code, run.result.stderr).toBe(6);
    expect(run.end).toMatchObject({ state: 'TIMED_OUT', reason: 'run time exceeded the limit of 1000 ms while tools ran' });
    expect(run.end.t).toBeGreaterThanOrEqual(1000);
    expect(run.end.t).toBeLessThan(2000);
    expect(run.events.filter((e) => e.type === 'tool_result')).toEqual([expect.objectContaining({ tool: 'wait', status: 'error' })]);
    await expectReproduced(run);
  });

  it('a Retry-After of a day is not waited for: TIMED_OUT at once', async () => {
    const run = await record('retry-after-a-day', 'retry-after', ['--set', 'limits.timeoutMs=3000']);
    expect(run.result.code, run.result.stderr).toBe(6);
    expect(run.end.reason).toBe('run time would exceed the limit of 3000 ms: the model server asked to wait 86400000 ms before a retry (Retry-After)');
    expect(run.end.t).toBeLessThan(3000);
    await expectReproduced(run);
  });

  it('a what-if without the limit needs the answer the recording never got: the tape is exhausted there', async () => {
    const run = await record('model-never-answers', 'what-if', ['--set', 'limits.timeoutMs=1000']);
    const replayed = await replay(run.store, ['--set', 'limits.timeoutMs=0']);
    expect(replayed.result.code).toBe(8);
    expect(replayed.summary).toMatchObject({ verdict: 'exhausted' });
  });
});

describe('provider errors that are recovered from, recorded and replayed', () => {
  it('200 answers with no usable choices: retried, not a crash (exit 0, or 3 once retries run out)', async () => {
    const run = await record('no-usable-choices', 'choices', []);
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(run.events.filter((e) => e.type === 'llm_error').map((e) => e.type === 'llm_error' && e.message)).toEqual(
      Array.from({ length: 3 }, () => "the model's answer had no usable choices"),
    );
    await expectReproduced(run);

    const failed = await record('no-usable-choices', 'choices-failed', ['--set', 'limits.maxRetries=0']);
    expect(failed.result.code, failed.result.stderr).toBe(3);
    expect(failed.end.reason).toBe("provider_error: the model's answer had no usable choices");
    await expectReproduced(failed);
  });

  it('streams with no choice deltas at all behave the same', async () => {
    const run = await record('stream-no-choices', 'stream-choices', ['--stream']);
    expect(run.result.code, run.result.stderr).toBe(0);
    expect(run.events.filter((e) => e.type === 'llm_error')).toHaveLength(2);
    await expectReproduced(run);
  });

  it('limits.requestTimeoutMs and limits.streamIdleTimeoutMs: the slow attempt is an llm_error, retried', async () => {
    const slow = await record('slow-answer', 'request-timeout', ['--set', 'limits.requestTimeoutMs=300']);
    expect(slow.result.code, slow.result.stderr).toBe(0);
    expect(slow.events.find((e) => e.type === 'llm_error')).toMatchObject({ kind: 'recoverable', message: expect.stringContaining('limits.requestTimeoutMs') });
    await expectReproduced(slow);

    const idle = await record('stalled-then-ok', 'idle-timeout', ['--stream', '--set', 'limits.streamIdleTimeoutMs=300']);
    expect(idle.result.code, idle.result.stderr).toBe(0);
    expect(idle.events.find((e) => e.type === 'llm_error')).toMatchObject({ kind: 'recoverable', message: expect.stringContaining('limits.streamIdleTimeoutMs') });
    await expectReproduced(idle);
  });
});
