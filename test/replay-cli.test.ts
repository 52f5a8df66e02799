/**
 * End-to-end record → replay through the real binary, against the scripted model server on
 * 127.0.0.1 (stopped before each replay: a replay needs no model and no key).
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/core/events.js';
import { TapeStore } from '../src/tape/tape-store.js';
import { BIN, runCli, type CliResult } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import { loadScenario } from './support/scenario.js';
import { behaviour } from './support/behaviour.js';
import { editedTape } from './support/edited-tapes.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const DEMO_TAPE = fileURLToPath(new URL('../tapes/demo-loop.tape.jsonl', import.meta.url));
const noModel = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
let dir: string;
let config: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-replay-'));
  config = join(dir, 'agentctl.config.json');
  await writeFile(
    config,
    JSON.stringify({
      tools: ['read_file', 'list_dir', 'write_file'],
      toolModules: [join(FIXTURES, 'tools', 'send-email.mjs')],
      seed: 11,
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function workspace(name: string, notes = 'remember the milk\n'): Promise<string> {
  const ws = join(dir, name);
  await mkdir(ws, { recursive: true });
  await writeFile(join(ws, 'notes.txt'), notes);
  return ws;
}

/** Record the replay-tools scenario into `store`; the server is closed before this returns. */
async function record(store: string, name: string, extra: string[] = [], env: Record<string, string | undefined> = noModel): Promise<CliResult> {
  const llm = await startMockLlm(loadScenario('replay-tools'));
  try {
    const ws = await workspace(`ws-${name}`);
    const result = await runCli(
      ['record', '--task', 'send me a reminder about my notes', '--config', config, '--base-url', llm.baseURL, '--workspace', ws, '--store', store, '--name', name, ...extra],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    llm.assertConsumed();
    return result;
  } finally {
    await llm.close();
  }
}

function summaryOf(result: CliResult): Record<string, unknown> {
  const lines = result.stdout.trim().split('\n');
  return JSON.parse(lines.at(-1) ?? '{}') as Record<string, unknown>;
}

function eventsOf(result: CliResult): RunEvent[] {
  return result.stdout.trim().split('\n').slice(0, -1).map((line) => JSON.parse(line) as RunEvent);
}

async function storedEvents(store: string, ref: string): Promise<RunEvent[]> {
  const db = await TapeStore.open(store);
  try {
    const meta = await db.resolveRun(ref);
    const events: RunEvent[] = [];
    for await (const event of db.readEvents(meta.id)) events.push(event);
    return events;
  } finally {
    await db.close();
  }
}

describe('record → replay', () => {
  for (const stream of [false, true]) {
    it(`reproduces every event offline (${stream ? 'streaming' : 'non-streaming'})`, async () => {
      const store = join(dir, `store-repro-${stream}`);
      await record(store, 'run', stream ? ['--stream'] : []);
      const replay = await runCli(['replay', 'run', '--store', store, '--json'], { env: noModel });
      expect(replay.code, replay.stderr).toBe(0);
      const summary = summaryOf(replay);
      expect(summary).toMatchObject({ type: 'summary', verdict: 'reproduced', firstDivergence: null, liveCalls: 0, state: 'COMPLETED', exitCode: 0 });
      const recorded = await storedEvents(store, 'run');
      if (stream) expect(recorded.some((e) => e.type === 'llm_chunk')).toBe(true);
      expect(behaviour(eventsOf(replay))).toEqual(behaviour(recorded));
      // Saved as a new run linked to its parent, with the same behaviour.
      const saved = await storedEvents(store, String(summary.runId));
      expect(behaviour(saved)).toEqual(behaviour(recorded));
      const db = await TapeStore.open(store);
      try {
        const meta = await db.getRun(String(summary.runId));
        expect(meta).toMatchObject({ kind: 'replay', parentId: (await db.resolveRun('run')).id, status: 'complete', finalState: 'COMPLETED' });
      } finally {
        await db.close();
      }
    });
  }

  it('replays an exported tape file directly, twice with identical output (and --no-save stores nothing)', async () => {
    const store = join(dir, 'store-file');
    await record(store, 'run');
    const tape = join(dir, 'run.tape.jsonl');
    expect((await runCli(['export', 'run', '-o', tape, '--store', store])).code).toBe(0);
    const empty = join(dir, 'store-none');
    const first = await runCli(['replay', tape, '--no-save', '--json', '--store', empty], { env: noModel });
    const second = await runCli(['replay', tape, '--no-save', '--json', '--store', empty], { env: noModel });
    expect(first.code).toBe(0);
    expect(summaryOf(first).verdict).toBe('reproduced');
    expect(first.stdout).toBe(second.stdout);
    expect(existsSync(empty)).toBe(false);
  });

  it('--patch 0=text changes the run; the divergence is expected and reported as such', async () => {
    const store = join(dir, 'store-patch');
    await record(store, 'run');
    const replay = await runCli(['replay', 'run', '--store', store, '--patch', '0=Nothing to do.', '--json'], { env: noModel });
    expect(replay.code).toBe(0);
    const summary = summaryOf(replay);
    expect(summary).toMatchObject({ verdict: 'diverged', state: 'COMPLETED', steps: 1 });
    expect(summary.firstDivergence).toMatchObject({ step: 0, kind: 'patched', expected: true, detail: { path: expect.stringMatching(/^response\./) } });
    const divergences = eventsOf(replay).filter((e) => e.type === 'divergence');
    expect(divergences.every((d) => d.type === 'divergence' && d.expected)).toBe(true);
    // Text output names the patch too.
    const text = await runCli(['replay', 'run', '--store', store, '--patch', '0=Nothing to do.', '--no-save'], { env: noModel });
    expect(text.stdout).toMatch(/diverged as expected at step 0/);
  });

  it('a patch needing more steps than the tape: exit 8 with --fallback error, finishes live with --fallback live', async () => {
    const store = join(dir, 'store-fallback');
    await record(store, 'run');
    const patch = `2=@${join(FIXTURES, 'patches', 'list-then-continue.json')}`;
    const exhausted = await runCli(['replay', 'run', '--store', store, '--patch', patch, '--json'], { env: noModel });
    expect(exhausted.code).toBe(8);
    expect(summaryOf(exhausted)).toMatchObject({ verdict: 'exhausted', exitCode: 8 });
    const textExhausted = await runCli(['replay', 'run', '--store', store, '--patch', patch, '--no-save'], { env: noModel });
    expect(textExhausted.stdout).toMatch(/tape exhausted at iteration 3/);

    const live = await startMockLlm([{ content: 'Checked again: all done.' }]);
    try {
      const result = await runCli(['replay', 'run', '--store', store, '--patch', patch, '--fallback', 'live', '--base-url', live.baseURL, '--json'], {
        env: noModel,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(summaryOf(result)).toMatchObject({ verdict: 'diverged', state: 'COMPLETED', liveCalls: 1 });
      live.assertConsumed();
      // The live call saw the whole conversation, patched step included.
      const body = JSON.stringify(live.requests[0]?.body);
      expect(body).toContain('Let me check the folder once more.');
    } finally {
      await live.close();
    }
  });

  it('--strict after a config change exits 7 naming the differing field', async () => {
    const store = join(dir, 'store-strict');
    await record(store, 'run');
    const changed = join(dir, 'changed.config.json');
    await writeFile(
      changed,
      JSON.stringify({ tools: ['read_file', 'list_dir', 'write_file'], toolModules: [join(FIXTURES, 'tools', 'send-email.mjs')], seed: 11, systemPrompt: 'Be brief.' }),
    );
    const strict = await runCli(['replay', 'run', '--store', store, '--config', changed, '--strict', '--no-save'], { env: noModel });
    expect(strict.code).toBe(7);
    expect(strict.stdout).toMatch(/diverged unexpectedly/);
    // The config is the user's own: what it changes is reported, the system message the model was sent.
    expect(strict.stdout).toMatch(/at step 0: request 0 differs at messages\[0\]\.content/);
    expect(strict.stdout).toMatch(/replayed: "Be brief\."/);
    const lenient = await runCli(['replay', 'run', '--store', store, '--config', changed, '--json', '--no-save'], { env: noModel });
    expect(lenient.code).toBe(0);
    expect(summaryOf(lenient)).toMatchObject({ verdict: 'diverged', firstDivergence: { expected: false } });
  });

  it('--set is a what-if: the same tape under another threshold, divergences expected', async () => {
    const store = join(dir, 'store-whatif');
    await record(store, 'run');
    const result = await runCli(['replay', 'run', '--store', store, '--set', 'limits.maxSteps=1', '--strict', '--json', '--no-save'], { env: noModel });
    expect(result.code).toBe(0);
    expect(summaryOf(result)).toMatchObject({ state: 'MAX_STEPS', verdict: 'diverged', firstDivergence: { expected: true } });
    const bad = await runCli(['replay', 'run', '--store', store, '--set', 'limits.maxSteps'], { env: noModel });
    expect(bad.code).toBe(2);
  });

  it('a what-if names the guardrail decision it changed: verdict and counter, recorded → now', async () => {
    const whatIf = ['replay', DEMO_TAPE, '--no-save', '--set', 'guardrails.identicalCallBlock=2'];
    const env = { ...noModel, AGENTCTL_STORE: undefined };
    const text = await runCli(whatIf, { cwd: dir, env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('diverged as expected at step 2: read_file loop_guard decision changed: recorded allow (2 of 3) → now block (2 of 2)\n');
    expect(text.stdout).toContain('  recorded: allow (2 of 3) → now: block (2 of 2)\n  rule: identical_call → identical_call_block\n');
    const json = await runCli([...whatIf, '--json'], { cwd: dir, env });
    const decisions = eventsOf(json).filter((e) => e.type === 'divergence' && e.kind === 'decision');
    expect(decisions).toEqual([
      expect.objectContaining({
        step: 2, expected: true,
        detail: {
          path: 'verdict',
          recorded: { verdict: 'allow', rule: 'identical_call', counters: { attempts: 2 }, threshold: 3 },
          replayed: { verdict: 'block', rule: 'identical_call_block', counters: { attempts: 2 }, threshold: 2 },
        },
      }),
    ]);
    expect(summaryOf(json)).toMatchObject({ verdict: 'diverged', firstDivergence: { step: 2, kind: 'decision', expected: true } });
  });

  it('tools: recorded by default; live reruns safe tools and reports changed output; side effects need --allow-side-effects', async () => {
    const store = join(dir, 'store-tools');
    await record(store, 'run');
    const changedWs = await workspace('ws-changed', 'buy bread\n');
    const live = await runCli(['replay', 'run', '--store', store, '--tools', 'live', '--workspace', changedWs, '--json', '--no-save'], { env: noModel });
    expect(live.code).toBe(0);
    expect(summaryOf(live).firstDivergence).toMatchObject({ step: 0, kind: 'tool_output', expected: false });
    // send_email is not idempotent: not re-run without --allow-side-effects (the recorded outcome is used).
    expect(existsSync(join(changedWs, 'outbox.jsonl'))).toBe(false);

    // A custom tool runs live only from the user's own config: the tape's module is never loaded.
    const tapeOnlyWs = await workspace('ws-tape-only');
    const tapeOnly = await runCli(
      ['replay', 'run', '--store', store, '--tools', 'live', '--allow-side-effects', '--workspace', tapeOnlyWs, '--json', '--no-save'],
      { env: noModel },
    );
    expect(summaryOf(tapeOnly).verdict).toBe('reproduced');
    expect(existsSync(join(tapeOnlyWs, 'outbox.jsonl'))).toBe(false);
    const allowWs = await workspace('ws-allow');
    const allowed = await runCli(
      ['replay', 'run', '--store', store, '--tools', 'live', '--allow-side-effects', '--config', config, '--workspace', allowWs, '--json', '--no-save'],
      { env: noModel },
    );
    expect(summaryOf(allowed).verdict).toBe('reproduced');
    expect((await readFile(join(allowWs, 'outbox.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(1);

    // A send_email that is not on the tape (after a patch) is denied on replay.
    const patchWs = await workspace('ws-patch');
    const patch = `1=@${join(FIXTURES, 'patches', 'send-other-email.json')}`;
    const denied = await runCli(['replay', 'run', '--store', store, '--patch', patch, '--workspace', patchWs, '--json', '--no-save'], { env: noModel });
    const decisions = eventsOf(denied).filter((e) => e.type === 'guardrail' && e.rule === 'replay_side_effects');
    expect(decisions).toHaveLength(1);
    expect(eventsOf(denied).find((e) => e.type === 'tool_result' && e.tool === 'send_email')).toMatchObject({ status: 'denied' });
    expect(existsSync(join(patchWs, 'outbox.jsonl'))).toBe(false);
  });

  it('a tape from a SIGKILLed recording replays up to where it stopped, then reports exhaustion', async () => {
    const store = join(dir, 'store-killed');
    const scenario = loadScenario('replay-tools');
    const lastStep = scenario.steps[2];
    if (lastStep === undefined || 'status' in lastStep) throw new Error('unexpected scenario shape');
    const llm = await startMockLlm([scenario.steps[0]!, scenario.steps[1]!, { ...lastStep, delayMs: 20_000 }]);
    const ws = await workspace('ws-killed');
    const child = spawn(process.execPath, [BIN, 'record', '--task', 'send me a reminder about my notes', '--config', config, '--base-url', llm.baseURL, '--workspace', ws, '--store', store, '--name', 'killed', '--json'], {
      env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (data: string) => {
          out += data;
          // Killed while waiting for the third response: two steps are on the tape.
          if (out.includes('"type":"llm_request","seq"') && out.split('"type":"llm_request"').length - 1 >= 3) {
            child.kill('SIGKILL');
            resolve();
          }
        });
        child.once('exit', () => reject(new Error('recorder exited before it was killed')));
      });
      await new Promise((resolve) => child.once('close', resolve));
    } finally {
      await llm.close();
    }
    const ls = await runCli(['ls', '--json', '--store', store]);
    expect(JSON.parse(ls.stdout)).toMatchObject([{ name: 'killed', status: 'incomplete' }]);
    const replay = await runCli(['replay', 'killed', '--store', store, '--json'], { env: noModel });
    expect(replay.code).toBe(8);
    const summary = summaryOf(replay);
    expect(summary).toMatchObject({ verdict: 'exhausted', firstDivergence: null });
    const recorded = await storedEvents(store, 'killed');
    const replayed = eventsOf(replay);
    expect(behaviour(replayed.slice(0, recorded.length))).toEqual(behaviour(recorded));
  });

  it('no byte of the store or of an exported tape holds the API key, even when the model and tools saw it', async () => {
    const marker = 'sk-marker-7f3a9c2e5b1d4f6a8c0e';
    const store = join(dir, 'store-secret');
    const llm = await startMockLlm([
      { content: `Your key is ${marker}, reading notes.`, tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { content: 'Done.' },
    ]);
    try {
      const ws = await workspace('ws-secret', `the key is ${marker}\n`);
      const result = await runCli(
        ['record', '--task', `check ${marker} please`, '--config', config, '--base-url', llm.baseURL, '--workspace', ws, '--store', store, '--name', 'secret', '--json'],
        { env: { OPENAI_API_KEY: marker, OPENAI_BASE_URL: undefined } },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout + result.stderr).not.toContain(marker);
      // The key did reach the server, as a header: the test would be empty otherwise.
      expect(JSON.stringify(llm.requests[0]?.headers)).toContain(marker);
    } finally {
      await llm.close();
    }
    const tape = join(dir, 'secret.tape.jsonl');
    await runCli(['export', 'secret', '-o', tape, '--store', store]);
    expect(await readFile(tape, 'utf8')).not.toContain(marker);
    let sawTask = false;
    for (const file of await readdir(store)) {
      const bytes = await readFile(join(store, file));
      expect(bytes.includes(marker), file).toBe(false);
      if (bytes.includes('please')) sawTask = true;
    }
    // The search does find stored text (so the absence above means something).
    expect(sawTask).toBe(true);
    // And the redacted tape still replays.
    const replay = await runCli(['replay', tape, '--no-save', '--json'], { env: { OPENAI_API_KEY: marker } });
    expect(summaryOf(replay).verdict).toBe('reproduced');
  });

  it('bad replay input: unknown run (10), bad --patch (2), corrupt tape (9)', async () => {
    const store = join(dir, 'store-bad');
    await record(store, 'run');
    expect((await runCli(['replay', 'nope', '--store', store])).code).toBe(10);
    const badPatch = await runCli(['replay', 'run', '--store', store, '--patch', 'x=hello']);
    expect(badPatch.code).toBe(2);
    expect(badPatch.stderr).toMatch(/--patch expects N=text/);
    expect((await runCli(['replay', 'run', '--store', store, '--patch', '0=@/nonexistent.json'])).code).toBe(2);
    const corrupt = join(dir, 'corrupt.tape.jsonl');
    await writeFile(corrupt, '{"format":"agentctl-tape","version":1,"run":{}}\n');
    const result = await runCli(['replay', corrupt, '--no-save']);
    expect(result.code).toBe(9);
    expect(result.stderr).toMatch(/corrupt\.tape\.jsonl:1/);
  });

  it('reproduces retries (a 429 with Retry-After, a 503, a stream cut) and an interactive session', async () => {
    const cases: { scenario: string; args: string[]; input?: string; expectTypes: string[] }[] = [
      { scenario: 'rate-limited-then-ok', args: [], expectTypes: ['llm_error'] },
      { scenario: 'stream-cut-then-ok', args: ['--stream'], expectTypes: ['llm_error', 'llm_chunk'] },
      { scenario: 'interactive-turns', args: ['--interactive'], input: 'Is it still a calculator?\nThanks!\n', expectTypes: ['user_message'] },
    ];
    for (const { scenario, args, input, expectTypes } of cases) {
      const store = join(dir, `store-${scenario}`);
      const llm = await startMockLlm(loadScenario(scenario));
      try {
        const ws = await workspace(`ws-${scenario}`);
        await writeFile(join(ws, 'README.md'), '# calc\n');
        const recorded = await runCli(
          ['record', '--task', 'what is this project?', '--base-url', llm.baseURL, '--workspace', ws, '--store', store, '--name', 'run', ...args],
          { env: noModel, ...(input === undefined ? {} : { input }) },
        );
        expect(recorded.code, `${scenario}: ${recorded.stderr}`).toBe(0);
        llm.assertConsumed();
      } finally {
        await llm.close();
      }
      const events = await storedEvents(store, 'run');
      for (const type of expectTypes) expect(events.some((e) => e.type === type), `${scenario} has ${type}`).toBe(true);
      const replay = await runCli(['replay', 'run', '--store', store, '--json', '--no-save'], { env: noModel });
      expect(summaryOf(replay), scenario).toMatchObject({ verdict: 'reproduced', state: 'COMPLETED', exitCode: 0 });
      expect(behaviour(eventsOf(replay))).toEqual(behaviour(events));
    }
  });

  it('custom tool modules named relative to a config file elsewhere: the replay needs none of them (their tools are on the tape)', async () => {
    const cfgDir = join(dir, 'cfg');
    await mkdir(join(cfgDir, 'tools'), { recursive: true });
    await writeFile(join(cfgDir, 'tools', 'send-email.mjs'), await readFile(join(FIXTURES, 'tools', 'send-email.mjs')));
    const cfg = join(cfgDir, 'agentctl.config.json');
    await writeFile(cfg, JSON.stringify({ tools: ['read_file'], toolModules: ['tools/send-email.mjs'] }));
    const store = join(dir, 'store-modules');
    const llm = await startMockLlm(loadScenario('replay-tools'));
    try {
      const ws = await workspace('ws-modules');
      const result = await runCli(['record', '--task', 'remind me', '--config', cfg, '--base-url', llm.baseURL, '--workspace', ws, '--store', store, '--name', 'run'], {
        env: noModel,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(await readFile(join(ws, 'outbox.jsonl'), 'utf8')).toContain('me@example.com');
    } finally {
      await llm.close();
    }
    await rm(join(cfgDir, 'tools'), { recursive: true });
    const replay = await runCli(['replay', 'run', '--store', store, '--json', '--no-save'], { env: noModel });
    expect(replay.code, replay.stderr).toBe(0);
    expect(summaryOf(replay)).toMatchObject({ verdict: 'reproduced' });
  });

  it('a run that timed out, and one the user cancelled, replay to the same end', async () => {
    // TIMED_OUT: the first answer takes longer than the whole run may.
    const timedStore = join(dir, 'store-timeout');
    const slow = await startMockLlm([
      { content: 'Looking.', tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }], delayMs: 400 },
      { content: 'never asked for' },
    ]);
    try {
      const ws = await workspace('ws-timeout');
      const recorded = await runCli(
        ['record', '--task', 'x', '--base-url', slow.baseURL, '--workspace', ws, '--store', timedStore, '--name', 'run', '--set', 'limits.timeoutMs=300'],
        { env: noModel },
      );
      expect(recorded.code, recorded.stderr).toBe(6);
    } finally {
      await slow.close();
    }
    const timed = await runCli(['replay', 'run', '--store', timedStore, '--json', '--no-save'], { env: noModel });
    expect(summaryOf(timed), JSON.stringify(summaryOf(timed).firstDivergence)).toMatchObject({ verdict: 'reproduced', state: 'TIMED_OUT', exitCode: 0 });

    // CANCELLED: Ctrl-C while the second request waits for its answer.
    const cancelStore = join(dir, 'store-cancel');
    const hanging = await startMockLlm([
      { content: 'Looking.', tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] },
      { content: 'never sent', delayMs: 20_000 },
    ]);
    try {
      const ws = await workspace('ws-cancel');
      const child = spawn(process.execPath, [BIN, 'record', '--task', 'x', '--base-url', hanging.baseURL, '--workspace', ws, '--store', cancelStore, '--name', 'run', '--json'], {
        env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (data: string) => {
        out += data;
        if ((out.match(/"type":"llm_request"/g) ?? []).length >= 2 && child.signalCode === null && !child.killed) child.kill('SIGINT');
      });
      expect(await closed).toBe(130);
    } finally {
      await hanging.close();
    }
    const cancelled = await runCli(['replay', 'run', '--store', cancelStore, '--json', '--no-save'], { env: noModel });
    expect(summaryOf(cancelled), JSON.stringify(summaryOf(cancelled).firstDivergence)).toMatchObject({ verdict: 'reproduced', state: 'CANCELLED', exitCode: 0 });
    expect(behaviour(eventsOf(cancelled))).toEqual(behaviour(await storedEvents(cancelStore, 'run')));
  });
});

describe('a patch past the tape', () => {
  const listAgain = `4=@${join(FIXTURES, 'patches', 'list-then-continue.json')}`;

  it('is refused before the replay when nothing can take the run there: exit 2, naming it and the tape\'s last step', async () => {
    // The demo tape's five model calls are steps 0 to 4 (its header's totals say so).
    const cases: [string[], string][] = [
      [['--patch', '999=x'], "agentctl: --patch 999: the tape's last step is 4"],
      [['--patch', '5=x'], "agentctl: --patch 5: the tape's last step is 4"],
      // The patch at step 4 takes the run further, but nothing answers step 5: step 6 is never asked for.
      [['--patch', listAgain, '--patch', '6=x'], "agentctl: --patch 6: the tape's last step is 4, and nothing answers step 5 before it"],
    ];
    for (const [patches, line] of cases) {
      const args = ['replay', DEMO_TAPE, '--no-save', ...patches];
      const result = await runCli(args, { env: noModel });
      expect(result.code, args.join(' ')).toBe(2);
      const [first, hint, ...rest] = result.stderr.trimEnd().split('\n');
      expect(first).toBe(line);
      expect(hint).toMatch(/^hint: /);
      expect(rest).toEqual([]);
      expect(result.stdout).toBe('');
    }
  });

  it('is used when an earlier patch, or a what-if, takes the run past the tape\'s end', async () => {
    // Step 4's patch calls another tool; a higher repetition limit lets step 4's call run instead of stopping the run.
    for (const further of [['--patch', listAgain], ['--set', 'guardrails.maxRepeatedToolSteps=10']]) {
      const result = await runCli(['replay', DEMO_TAPE, '--no-save', '--json', ...further, '--patch', '5=The port is 8080.'], { env: noModel });
      expect(result.code, result.stderr).toBe(0);
      expect(summaryOf(result)).toMatchObject({ verdict: 'diverged', state: 'COMPLETED', steps: 6 });
      const answer = eventsOf(result).find((e) => e.type === 'llm_response' && e.step === 5);
      expect(answer?.type === 'llm_response' && answer.response.message.content, further.join(' ')).toBe('The port is 8080.');
    }
  });

  it('of an unfinished tape is not refused: its header has no last step, and the replay goes on past its end by itself', async () => {
    const tape = join(dir, 'cut-after-step-1.tape.jsonl');
    // The recording stopped after step 1, before the model was asked for step 2.
    await editedTape(DEMO_TAPE, tape, { cutAfter: (e) => e.type === 'checkpoint' && e.step === 1 });
    const result = await runCli(['replay', tape, '--no-save', '--json', '--patch', '2=The port is 8080.'], { env: noModel });
    expect(result.code, result.stderr).toBe(0);
    expect(summaryOf(result)).toMatchObject({ state: 'COMPLETED', steps: 3 });
    const answer = eventsOf(result).find((e) => e.type === 'llm_response' && e.step === 2);
    expect(answer?.type === 'llm_response' && answer.response.message.content).toBe('The port is 8080.');
  });
});
