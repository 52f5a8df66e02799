/**
 * Tapes whose recording stopped during a tool call (the recorder killed), through the real binary:
 * `agentctl ci` passes them when the replay reproduces all they hold, and `agentctl replay` ends
 * them as it ends a tape cut during a model call — everything matched, then the tape is exhausted
 * (exit 8). A tool outcome missing from a tape that goes on after it still fails both.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/core/events.js';
import { behaviour } from './support/behaviour.js';
import { BIN, runCli } from './support/cli.js';
import { editedTape } from './support/edited-tapes.js';
import { startMockLlm } from './support/mock-llm.js';

const DEMO = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));
const offline = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, GITHUB_ACTIONS: undefined, CI: undefined };
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-unfinished-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface CiTapeResult {
  outcome: string;
  message: string;
}

async function ciResult(tape: string): Promise<{ code: number | null; result: CiTapeResult | undefined }> {
  const run = await runCli(['ci', tape, '--reporter', 'json'], { cwd: dir, env: offline });
  const report = JSON.parse(run.stdout) as { exitCode: number; results: CiTapeResult[] };
  expect(report.exitCode).toBe(run.code);
  return { code: run.code, result: report.results[0] };
}

async function replayOf(tape: string): Promise<{ code: number | null; summary: Record<string, unknown>; events: RunEvent[] }> {
  const run = await runCli(['replay', tape, '--no-save', '--json'], { env: offline });
  const lines = run.stdout.trim().split('\n');
  return { code: run.code, summary: JSON.parse(lines.at(-1) ?? '{}') as Record<string, unknown>, events: lines.slice(0, -1).map((l) => JSON.parse(l) as RunEvent) };
}

/** ci passes the tape; replay reproduces every event it holds, then is exhausted where it stops, as for a cut during a model call. */
async function expectReproducedToItsEnd(tape: string, recorded: readonly RunEvent[], stoppedAt: number): Promise<void> {
  const ci = await ciResult(tape);
  expect(ci.result).toMatchObject({ outcome: 'pass', message: `reproduced up to where its recording stopped (step ${stoppedAt})` });
  expect(ci.code).toBe(0);
  const replay = await replayOf(tape);
  expect(replay.summary).toMatchObject({ verdict: 'exhausted', firstDivergence: null, exitCode: 8 });
  expect(replay.code).toBe(8);
  expect(behaviour(replay.events.slice(0, recorded.length))).toEqual(behaviour(recorded));
}

describe('a tape whose recording stopped during a tool call', () => {
  const cuts: [string, (e: RunEvent) => boolean, number][] = [
    ['after the model asked for the call, before it was written', (e) => e.type === 'llm_response' && e.step === 1, 1],
    ['at the tool call', (e) => e.type === 'tool_call' && e.step === 1, 1],
    ['while the tool ran (its decisions before it ran recorded)', (e) => e.type === 'guardrail' && e.step === 1 && e.gate === 'replay_control', 1],
    ['during a model call, for comparison', (e) => e.type === 'llm_request' && e.step === 2, 2],
  ];
  it.each(cuts)('cut %s: ci passes it, replay reproduces it to its end', async (name, cutAfter, stoppedAt) => {
    const tape = join(dir, `${name.replace(/\W+/g, '-')}.tape.jsonl`);
    const recorded = await editedTape(DEMO, tape, { cutAfter });
    await expectReproducedToItsEnd(tape, recorded, stoppedAt);
  });

  it('a real recording killed with SIGKILL while exec_shell runs, exported', async () => {
    const ws = join(dir, 'ws-killed');
    await mkdir(ws, { recursive: true });
    await writeFile(join(ws, 'notes.txt'), 'remember the milk\n');
    // The command says it runs (`ready`), then waits on `gate` until the test lets it go.
    await new Promise<void>((resolve, reject) => {
      const mk = spawn('mkfifo', [join(ws, 'ready'), join(ws, 'gate')], { stdio: 'inherit' });
      mk.once('error', reject);
      mk.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo exited ${code}`))));
    });
    const config = join(dir, 'shell.config.json');
    await writeFile(config, JSON.stringify({ tools: ['read_file', 'exec_shell'], seed: 3 }));
    const llm = await startMockLlm([
      { content: 'Reading the notes first.', tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { content: 'Now the check.', tool_calls: [{ name: 'exec_shell', arguments: { command: 'echo > ready; cat gate' } }] },
      { content: 'never asked for' },
    ]);
    const store = join(dir, 'store-killed');
    try {
      const child = spawn(process.execPath, [BIN, 'record', '--task', 'check the notes', '--config', config, '--base-url', llm.baseURL, '--workspace', ws, '--store', store, '--name', 'killed', '--json'], {
        env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (data: string) => (stderr += data));
      const closed = new Promise<NodeJS.Signals | null>((resolve) => child.once('close', (_code, signal) => resolve(signal)));
      const ready = readFile(join(ws, 'ready'), 'utf8');
      try {
        await Promise.race([ready, closed.then(() => Promise.reject(new Error(`the recorder ended before exec_shell ran: ${stderr}`)))]);
      } finally {
        // A recorder that ended first leaves the read of `ready` waiting for a writer: end it.
        await open(join(ws, 'ready'), constants.O_WRONLY | constants.O_NONBLOCK).then((f) => f.close(), () => undefined);
        await ready.catch(() => undefined);
      }
      child.kill('SIGKILL');
      expect(await closed).toBe('SIGKILL');
    } finally {
      // The sandbox dies with the recorder; if its command were still waiting, this lets it go.
      const gate = await open(join(ws, 'gate'), constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
      await gate?.write('go\n');
      await gate?.close();
      await llm.close();
    }
    const tape = join(dir, 'killed.tape.jsonl');
    expect((await runCli(['export', 'killed', '-o', tape, '--store', store])).code).toBe(0);
    const [header, ...lines] = (await readFile(tape, 'utf8')).trim().split('\n');
    expect(JSON.parse(header ?? '{}')).toMatchObject({ run: { status: 'incomplete' } });
    const recorded = lines.map((l) => JSON.parse(l) as RunEvent);
    // Stopped in step 1, after the model asked for exec_shell and before its outcome.
    expect(recorded.at(-1)?.step).toBe(1);
    expect(recorded.some((e) => e.type === 'llm_response' && e.step === 1)).toBe(true);
    expect(recorded.some((e) => e.type === 'tool_result' && e.tool === 'exec_shell')).toBe(false);
    await expectReproducedToItsEnd(tape, recorded, 1);
  });
});

describe('a tool outcome missing from a tape that goes on after it', () => {
  const noResult = (e: RunEvent): boolean => e.type === 'tool_result' && e.step === 1;
  const missing = 'the tape has no outcome for read_file {"path":"config/server.json"} at step 1';

  it('to later steps: ci fails it as exhausted, replay does not reproduce it', async () => {
    const withoutResult = join(dir, 'missing-mid-tape.tape.jsonl');
    await editedTape(DEMO, withoutResult, { drop: noResult, incomplete: true });
    // Step 1 ends where a recording stopped while the tool ran would end; the steps after it are there.
    const withoutRest = join(dir, 'missing-step-end.tape.jsonl');
    let ran = false;
    await editedTape(DEMO, withoutRest, { drop: (e) => e.step === 1 && (ran ||= e.type === 'guardrail' && e.gate === 'failures'), incomplete: true });
    for (const tape of [withoutResult, withoutRest]) {
      const ci = await ciResult(tape);
      expect(ci.result, tape).toMatchObject({ outcome: 'exhausted', message: missing });
      expect(ci.code).toBe(7);
      const replay = await replayOf(tape);
      expect(replay.summary, tape).toMatchObject({ verdict: 'diverged', firstDivergence: { step: 1, expected: false } });
    }
  });

  it('within its step (the step goes on), or with its decision after it ran recorded: ci fails it as exhausted', async () => {
    const goesOn = join(dir, 'missing-step-goes-on.tape.jsonl');
    await editedTape(DEMO, goesOn, { cutAfter: (e) => e.type === 'checkpoint' && e.step === 1, drop: noResult });
    const ranTape = join(dir, 'missing-after-it-ran.tape.jsonl');
    await editedTape(DEMO, ranTape, { cutAfter: (e) => e.type === 'guardrail' && e.step === 1 && e.gate === 'failures' });
    for (const tape of [goesOn, ranTape]) {
      const ci = await ciResult(tape);
      expect(ci.result, tape).toMatchObject({ outcome: 'exhausted', message: missing });
      expect(ci.code).toBe(7);
    }
  });
});
