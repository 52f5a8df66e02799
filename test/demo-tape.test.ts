/**
 * The golden demo tape (tapes/demo-loop.tape.jsonl) is evidence: it must replay offline through
 * the real binary, reproduce, and show the decisions it was made for. Re-recording its scenario
 * must give the same events, so the committed tape cannot silently drift from what the code does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, recordDemoTape } from '../scripts/record-demo-tape.js';
import type { RunEvent } from '../src/core/events.js';
import type { RunMeta } from '../src/core/run-meta.js';
import { openTapeFile } from '../src/tape/tape-file.js';
import { runCli } from './support/cli.js';

const offline = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, AGENTCTL_STORE: undefined };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-demo-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readTape(path: string): Promise<{ meta: RunMeta; events: RunEvent[] }> {
  const tape = await openTapeFile(path);
  const events: RunEvent[] = [];
  for await (const event of tape.events()) events.push(event);
  return { meta: tape.meta, events };
}

/** Behaviour only: timing (`t`, `durationMs`), numbering (`seq`) and temp paths left out. */
function behaviour(events: readonly RunEvent[]): unknown[] {
  return events.map((event) => {
    const { t: _t, seq: _seq, ...rest } = event;
    const copy: Record<string, unknown> = { ...rest };
    delete copy['durationMs'];
    return JSON.parse(JSON.stringify(copy).replace(/\/[^"\s]*agentctl-demo-[^/"\s]*\/workspace/g, '<workspace>')) as unknown;
  });
}

/** The run's metadata minus what differs on every recording: id, time, the mock server's port. */
function stableMeta(meta: RunMeta): unknown {
  const { id: _id, createdAt: _createdAt, baseUrl: _baseUrl, ...rest } = meta;
  return rest;
}

describe('the demo tape', () => {
  it('replays offline through the binary: the decisions, then "reproduced", exit 0', async () => {
    const result = await runCli(['replay', DEMO.tape, '--no-save'], { cwd: dir, env: offline });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/⊘ skip replay_control\/duplicate_success read_file: duplicate of the identical call that succeeded at step 1/);
    expect(result.stdout).toMatch(/✗ block loop_guard\/identical_call_block read_file: identical call 3 of 3/);
    expect(result.stdout).toMatch(/∞ stuck repetition\/repetition read_file: the same tool calls 4 steps in a row/);
    expect(result.stdout).toMatch(/RUNNING → ERROR: repetition/);
    const closing = result.stdout.trim().split('\n').slice(-2);
    expect(closing[0]).toBe('reproduced: every event matches the tape');
    expect(closing[1]).toBe('final state ERROR; exit 0');
  });

  it('--json: skip at step 2, block at step 3, the repetition stop at step 4, verdict reproduced', async () => {
    const result = await runCli(['replay', DEMO.tape, '--no-save', '--json'], { cwd: dir, env: offline });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const decisive = lines
      .filter((l) => l.type === 'guardrail' && ['skip', 'block', 'stuck'].includes(String(l.verdict)))
      .map((l) => [l.step, l.verdict, l.rule, l.tool]);
    expect(decisive).toEqual([
      [2, 'skip', 'duplicate_success', 'read_file'],
      [3, 'block', 'identical_call_block', 'read_file'],
      [4, 'stuck', 'repetition', 'read_file'],
    ]);
    expect(lines.filter((l) => l.type === 'divergence')).toEqual([]);
    expect(lines.at(-1)).toMatchObject({
      type: 'summary', runId: null, state: 'ERROR', steps: 5, exitCode: 0, verdict: 'reproduced', firstDivergence: null, liveCalls: 0,
    });
  });

  it('re-recording the scenario gives the committed tape again (timing, ids and paths aside)', async () => {
    const fresh = await recordDemoTape(join(dir, 'fresh.tape.jsonl'));
    const [committed, recorded] = await Promise.all([readTape(DEMO.tape), readTape(fresh.tape)]);
    expect(stableMeta(recorded.meta)).toEqual(stableMeta(committed.meta));
    expect(behaviour(recorded.events)).toEqual(behaviour(committed.events));
  });
});
