/**
 * The golden tapes (tapes/*.tape.jsonl, one row each in scripts/golden-tapes.ts) are evidence: each
 * must replay offline through the real binary, reproduce, and show what it was made for. Re-recording
 * each tape's scenario must give the same events, so a committed tape cannot silently drift from
 * what the code does. The recordings and replays run a few at a time (child processes that mostly
 * wait), each test awaiting its own.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/agent/load-config.js';
import { GOLDEN_TAPES, failedChecks, type GoldenTape, type RecordedLine } from '../scripts/golden-tapes.js';
import { TAPES_DIR, TEMP_PREFIX, goldenTape, recordTape, tapePath, type RecordedTape } from '../scripts/record-tapes.js';
import type { RunEvent } from '../src/core/events.js';
import type { RunMeta } from '../src/core/run-meta.js';
import { openTapeFile } from '../src/tape/tape-file.js';
import { runCli, type CliResult } from './support/cli.js';

const offline = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, AGENTCTL_STORE: undefined };

/** At most this many recordings or replays at once. */
const CONCURRENCY = Math.max(2, Math.min(4, availableParallelism()));
let running = 0;
const waiting: (() => void)[] = [];
async function limited<T>(job: () => Promise<T>): Promise<T> {
  if (running >= CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await job();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

let dir: string;
const recordings = new Map<string, Promise<RecordedTape>>();
const replays = new Map<string, Promise<CliResult>>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-golden-test-'));
  // Started now, awaited by each test: replays first (quick), then the recordings.
  for (const tape of GOLDEN_TAPES) {
    const replay = limited(() => runCli(['replay', tapePath(tape), '--no-save', '--json', '--no-tui'], { cwd: dir, env: offline }));
    replay.catch(() => undefined);
    replays.set(tape.name, replay);
  }
  for (const tape of GOLDEN_TAPES) {
    const recording = limited(() => recordTape(tape, join(dir, `${tape.name}.tape.jsonl`)));
    recording.catch(() => undefined);
    recordings.set(tape.name, recording);
  }
});
afterAll(async () => {
  await Promise.allSettled([...recordings.values(), ...replays.values()]);
  await rm(dir, { recursive: true, force: true });
});

async function readTape(path: string): Promise<{ meta: RunMeta; events: RunEvent[] }> {
  const tape = await openTapeFile(path);
  const events: RunEvent[] = [];
  for await (const event of tape.events()) events.push(event);
  return { meta: tape.meta, events };
}

const TEMP_WORKSPACE = new RegExp(`/[^"\\s]*${TEMP_PREFIX}[^/"\\s]*/workspace`, 'g');

/**
 * A recorded config as this version reads it: a setting added since the tape was recorded takes its
 * default (what replay does too), so a committed tape stays comparable with a new recording.
 */
const currentConfig = (config: Record<string, unknown>): Record<string, unknown> => ({ ...parseConfig(config, 'recorded config') });

/** Behaviour only: timing (`t`, `durationMs`, a stream chunk's `offsetMs`), numbering (`seq`) and temp paths left out. */
function behaviour(events: readonly RunEvent[]): unknown[] {
  return events.map((event) => {
    const { t: _t, seq: _seq, ...rest } = event;
    const copy: Record<string, unknown> = { ...rest };
    if (event.type === 'run_start') copy['config'] = currentConfig(event.config);
    delete copy['durationMs'];
    if (event.type === 'llm_chunk') {
      const { offsetMs: _offsetMs, ...chunk } = event.chunk;
      copy['chunk'] = chunk;
    }
    return JSON.parse(JSON.stringify(copy).replace(TEMP_WORKSPACE, '<workspace>')) as unknown;
  });
}

/** The run's metadata minus what differs on every recording: id, time, the mock server's port. */
function stableMeta(meta: RunMeta): unknown {
  const { id: _id, createdAt: _createdAt, baseUrl: _baseUrl, ...rest } = meta;
  return { ...rest, config: currentConfig(rest.config) };
}

function jsonLines(stdout: string): RecordedLine[] {
  return stdout.trim().split('\n').map((l) => JSON.parse(l) as RecordedLine);
}

async function tapeFiles(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [])).filter((f) => f.endsWith('.tape.jsonl')).sort();
}

it('the table and the files agree: every row has its tape in tapes/, and no file lacks a row', async () => {
  const named = (tapes: readonly GoldenTape[]): string[] => tapes.map((t) => `${t.name}.tape.jsonl`).sort();
  expect(await tapeFiles(TAPES_DIR)).toEqual(named(GOLDEN_TAPES));
  expect(GOLDEN_TAPES.length).toBeGreaterThanOrEqual(10);
});

describe.each(GOLDEN_TAPES.map((tape) => [tape.name, tape] as const))('%s', (name, tape) => {
  it('replays offline through the binary: verdict reproduced, exit 0, and what the tape is for', async () => {
    const result = await replays.get(name)!;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    const summary = lines.at(-1);
    expect(summary?.firstDivergence, JSON.stringify(summary?.firstDivergence)).toBeNull();
    expect(lines.filter((l) => l.type === 'divergence')).toEqual([]);
    expect(summary).toMatchObject({ type: 'summary', runId: null, state: tape.end.state, exitCode: 0, verdict: 'reproduced', liveCalls: 0 });
    expect(failedChecks(tape, lines)).toEqual([]);
  }, 90_000);

  it('re-recording its scenario gives the committed tape again (timing, ids and paths aside)', async () => {
    const fresh = await recordings.get(name)!;
    const [committed, recorded] = await Promise.all([readTape(tapePath(tape)), readTape(fresh.tape)]);
    expect(stableMeta(recorded.meta)).toEqual(stableMeta(committed.meta));
    expect(behaviour(recorded.events)).toEqual(behaviour(committed.events));
  }, 90_000);
});

describe('the demo tape, as the README shows it', () => {
  it('replays as text: the skip, the block and the repetition stop, then "reproduced", exit 0', async () => {
    const result = await limited(() => runCli(['replay', tapePath(goldenTape('demo-loop')), '--no-save', '--no-tui'], { cwd: dir, env: offline }));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/⊘ skip replay_control\/duplicate_success read_file: duplicate of the identical call that succeeded at step 1/);
    expect(result.stdout).toMatch(/✗ block loop_guard\/identical_call_block read_file: identical call 3 of 3/);
    expect(result.stdout).toMatch(/∞ stuck repetition\/repetition read_file: the same tool calls 4 steps in a row/);
    expect(result.stdout).toMatch(/RUNNING → ERROR: repetition/);
    const closing = result.stdout.trim().split('\n').slice(-2);
    expect(closing[0]).toBe('reproduced: every event matches the tape');
    expect(closing[1]).toBe('final state ERROR; exit 0');
  }, 90_000);

  it('--json: skip at step 2, block at step 3, the repetition stop at step 4', async () => {
    const lines = jsonLines((await replays.get('demo-loop')!).stdout);
    const decisive = lines
      .filter((l) => l.type === 'guardrail' && ['skip', 'block', 'stuck'].includes(String(l.verdict)))
      .map((l) => [l.step, l.verdict, l.rule, l.tool]);
    expect(decisive).toEqual([
      [2, 'skip', 'duplicate_success', 'read_file'],
      [3, 'block', 'identical_call_block', 'read_file'],
      [4, 'stuck', 'repetition', 'read_file'],
    ]);
    expect(lines.at(-1)).toMatchObject({ state: 'ERROR', steps: 5, verdict: 'reproduced' });
  }, 90_000);
});
