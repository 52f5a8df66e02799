/** End-to-end: `agentctl record` (the real binary) against the scripted model server on 127.0.0.1. */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TapeStore } from '../src/tape/tape-store.js';
import { BWRAP_MISSING } from '../src/tools/index.js';
import { BIN, runCli } from './support/cli.js';
import { startMockLlm, type MockLlm } from './support/mock-llm.js';
import { loadScenario } from './support/scenario.js';
import { BWRAP_WITHOUT_NAMESPACES, programsDir } from './support/shell-programs.js';

let dir: string;
let workspace: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-record-'));
  workspace = join(dir, 'ws');
  await mkdir(join(workspace, 'src'), { recursive: true });
  await writeFile(join(workspace, 'README.md'), '# demo\n');
  await writeFile(join(workspace, 'src', 'a.ts'), 'export const a = 1;\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const noKey = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
/** The default tools but exec_shell, in the order the model sees them. */
const FILE_TOOLS = ['read_file', 'list_dir', 'grep_files', 'write_file', 'edit_file'];
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('agentctl record', () => {
  it('runs the loop live, prints NDJSON events and a summary, and stores the run', async () => {
    const llm = await startMockLlm(loadScenario('tool-calls-then-answer'));
    const store = join(dir, 'store-json');
    try {
      const result = await runCli(
        ['record', '--task', 'look around', '--base-url', llm.baseURL, '--workspace', workspace, '--store', store, '--json'],
        { env: noKey },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const summary = lines.at(-1);
      expect(summary).toMatchObject({ type: 'summary', state: 'COMPLETED', steps: 2, exitCode: 0 });
      expect(lines.filter((l) => l.type === 'tool_result').map((l) => l.status)).toEqual(['ok', 'ok']);
      for (const line of lines.slice(0, -1)) expect(line).toHaveProperty('seq');
      const guardrail = lines.find((l) => l.type === 'guardrail');
      expect(Object.keys(guardrail ?? {})).toEqual(expect.arrayContaining(['gate', 'verdict', 'rule', 'tool', 'reason']));
      llm.assertConsumed();

      const db = await TapeStore.open(store);
      try {
        const meta = await db.getRun(String(summary?.runId));
        expect(meta).toMatchObject({ status: 'complete', finalState: 'COMPLETED', kind: 'record', eventCount: lines.length - 1 });
        expect(meta.baseUrl).toBe(llm.baseURL.replace(/\/$/, ''));
      } finally {
        await db.close();
      }
    } finally {
      await llm.close();
    }
  });

  it('prints one readable line per event without --json', async () => {
    const llm = await startMockLlm(loadScenario('tool-calls-then-answer'));
    try {
      const result = await runCli(
        ['record', '--task', 'look around', '--base-url', llm.baseURL, '--workspace', workspace, '--store', join(dir, 'store-text')],
        { env: noKey },
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/RUNNING → WAITING_FOR_TOOL/);
      expect(result.stdout).toMatch(/call read_file/);
      expect(result.stdout).toMatch(/COMPLETED/);
    } finally {
      await llm.close();
    }
  });

  it('fails fast with a hint when no model is configured (exit 2)', async () => {
    const result = await runCli(['record', '--task', 'x', '--store', join(dir, 'none')], { env: noKey });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no model to talk to/);
    expect(result.stderr).toMatch(/--base-url/);
  });

  it('a --workspace that is a file exits 2 with one line', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    const result = await runCli(['record', '--task', 'x', '--workspace', file, '--base-url', 'http://127.0.0.1:9/v1', '--store', join(dir, 'ws-file-store')], { env: noKey });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^agentctl: the workspace .* is not a directory\n/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('a bad config field exits 2 naming the field', async () => {
    const config = join(dir, 'bad.config.json');
    await writeFile(config, JSON.stringify({ limits: { maxSteps: 'ten' } }));
    const result = await runCli(['record', '--task', 'x', '--config', config, '--base-url', 'http://127.0.0.1:9/v1'], { env: noKey });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/limits\.maxSteps/);
  });

  it('a fatal 401 ends the run in ERROR (exit 3) with a clear message', async () => {
    const llm = await startMockLlm(loadScenario('unauthorized'));
    try {
      const result = await runCli(
        ['record', '--task', 'x', '--base-url', llm.baseURL, '--store', join(dir, 'store-401'), '--workspace', join(dir, 'ws-401')],
        { env: { ...noKey, OPENAI_API_KEY: 'sk-test-marker-0123456789' } },
      );
      expect(result.code).toBe(3);
      expect(result.stdout).toMatch(/refused the API key/);
      expect(result.stdout + result.stderr).not.toContain('sk-test-marker-0123456789');
    } finally {
      await llm.close();
    }
  });

  it('Ctrl-C ends the run as CANCELLED (exit 130) and closes the tape cleanly', async () => {
    const llm = await startMockLlm([
      { content: 'Looking.', tool_calls: [{ name: 'list_dir', arguments: { path: '.' } }] },
      { content: 'never sent', delayMs: 20_000 },
    ]);
    const store = join(dir, 'store-sigint');
    try {
      const child = spawn(process.execPath, [BIN, 'record', '--task', 'x', '--base-url', llm.baseURL, '--workspace', workspace, '--store', store, '--json'], {
        env: { ...process.env, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
      await new Promise<void>((resolve) => {
        child.stdout.setEncoding('utf8').on('data', (data: string) => {
          stdout += data;
          // The second request is on its way (and will not be answered for 20 s): interrupt it.
          if ((stdout.match(/"type":"llm_request"/g) ?? []).length >= 2 && !child.killed) {
            child.kill('SIGINT');
            resolve();
          }
        });
      });
      expect(await closed).toBe(130);
      const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.at(-1)).toMatchObject({ type: 'summary', state: 'CANCELLED', exitCode: 130 });
      const db = await TapeStore.open(store);
      try {
        const meta = await db.getRun(String(lines.at(-1)?.runId));
        expect(meta).toMatchObject({ status: 'complete', finalState: 'CANCELLED' });
      } finally {
        await db.close();
      }
    } finally {
      await llm.close();
    }
  });
});

describe('agentctl record where exec_shell cannot run commands', () => {
  type WireTools = { tools?: Array<{ function: { name: string } }> };
  /** The tool names of every request the model server received. */
  const offered = (llm: MockLlm): string[][] =>
    llm.requests.map((request) => ((request.body as WireTools).tools ?? []).map((tool) => tool.function.name));
  const leftOutLines = (stderr: string): string[] => stderr.split('\n').filter((line) => line.includes('exec_shell'));

  it('without bubblewrap: runs without exec_shell, says so once on stderr; show says so and a replay reproduces the run', async () => {
    const llm = await startMockLlm(loadScenario('tool-calls-then-answer'));
    const store = join(dir, 'store-nobwrap');
    try {
      // A PATH with bash (which starts every command) and no bwrap.
      const onlyBash = await programsDir(join(dir, 'bins'), { real: ['bash'] });
      const args = ['record', '--task', 'look around', '--base-url', llm.baseURL, '--store', store, '--workspace', workspace, '--name', 'noshell'];
      const recorded = await runCli(args, { env: { ...noKey, PATH: onlyBash } });
      expect(recorded.code, recorded.stderr).toBe(0);
      expect(leftOutLines(recorded.stderr)).toEqual([`agentctl: running without exec_shell: ${BWRAP_MISSING}`]);
      expect(recorded.stdout).toMatch(/^\[0\] run: look around \(model [^)]*, seed \d+, without exec_shell\)$/m);
      // The model was never offered it; the other tools ran.
      expect(offered(llm)).toEqual([FILE_TOOLS, FILE_TOOLS]);
      llm.assertConsumed();

      const shown = await runCli(['show', 'noshell', '--store', store]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toMatch(/^sandbox +on, network off \(exec_shell left out\)$/m);
      expect(shown.stdout).toMatch(new RegExp(`^left out +exec_shell: ${escapeRegExp(BWRAP_MISSING)}$`, 'm'));
      const json = JSON.parse((await runCli(['show', 'noshell', '--store', store, '--json'])).stdout) as Record<string, unknown>;
      expect(json['toolsLeftOut']).toEqual([{ name: 'exec_shell', reason: BWRAP_MISSING }]);
      expect(json['tools']).toEqual(FILE_TOOLS.map((name) => ({ name, custom: false })));

      // The recorded tools are the replay's: it reproduces the run, from the store and from a tape file.
      const replayed = await runCli(['replay', 'noshell', '--store', store, '--json'], { env: { ...noKey, PATH: onlyBash } });
      expect(replayed.code, replayed.stderr).toBe(0);
      const lines = replayed.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.at(-1)).toMatchObject({ type: 'summary', verdict: 'reproduced', firstDivergence: null, liveCalls: 0 });
      expect(lines.find((line) => line['type'] === 'run_start')).toMatchObject({ toolsLeftOut: [{ name: 'exec_shell', reason: BWRAP_MISSING }] });
      expect(replayed.stderr).not.toMatch(/running without/);
      // A what-if that gives exec_shell back: the replay offers it, its run_start no longer says it was left
      // out, and the first difference is the tool the model is offered.
      const whatIf = await runCli(['replay', 'noshell', '--store', store, '--no-save', '--set', `tools=${JSON.stringify([...FILE_TOOLS, 'exec_shell'])}`], { env: noKey });
      expect(whatIf.code, whatIf.stderr).toBe(0);
      expect(whatIf.stdout).toMatch(/^\[0\] run: look around \(model [^)]*, seed \d+\)$/m);
      expect(whatIf.stdout).toContain('diverged as expected at step 0: request 0 differs at tools[5]');
      const tape = join(dir, 'noshell.tape.jsonl');
      expect((await runCli(['export', 'noshell', '-o', tape, '--store', store])).code).toBe(0);
      const checked = await runCli(['ci', tape], { env: noKey });
      expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    } finally {
      await llm.close();
    }
  });

  it('where bubblewrap cannot set the sandbox up (no user namespaces, as in many containers): runs without exec_shell, with bwrap’s reason', async () => {
    const llm = await startMockLlm([{ content: 'Nothing to run.' }]);
    try {
      const brokenBwrap = await programsDir(join(dir, 'bins'), { real: ['bash'], scripts: { bwrap: BWRAP_WITHOUT_NAMESPACES } });
      const args = ['record', '--task', 'x', '--base-url', llm.baseURL, '--store', join(dir, 'store-broken-bwrap'), '--workspace', join(dir, 'ws-broken-bwrap')];
      const recorded = await runCli(args, { env: { ...noKey, PATH: brokenBwrap } });
      expect(recorded.code, recorded.stderr).toBe(0);
      const [line, ...more] = leftOutLines(recorded.stderr);
      expect(more).toEqual([]);
      expect(line).toMatch(/^agentctl: running without exec_shell: the sandbox could not start \(bwrap: No permissions to create new namespace, /);
      expect(line).toMatch(/; see "sandbox" in the agentctl docs, or set "sandbox": "none" to run commands unconfined$/);
      expect(offered(llm)).toEqual([FILE_TOOLS]);
    } finally {
      await llm.close();
    }
  });

  it('says nothing when exec_shell is not among the tools, or bwrap is there', async () => {
    const llm = await startMockLlm([{ content: 'Done.' }, { content: 'Done.' }]);
    try {
      const args = ['record', '--task', 'x', '--base-url', llm.baseURL, '--store', join(dir, 'store-shell-fine'), '--workspace', join(dir, 'ws-shell-fine')];
      // Without exec_shell among the tools, nothing needs bash or the sandbox.
      const readOnly = await runCli([...args, '--set', 'tools=["read_file"]'], { env: { ...noKey, PATH: '/nonexistent' } });
      expect(readOnly.code, readOnly.stderr).toBe(0);
      expect(readOnly.stderr).not.toMatch(/exec_shell/);
      const sandboxed = await runCli(args, { env: noKey });
      expect(sandboxed.code, sandboxed.stderr).toBe(0);
      expect(sandboxed.stderr).not.toMatch(/exec_shell/);
      expect(offered(llm)).toEqual([['read_file'], [...FILE_TOOLS, 'exec_shell']]);
    } finally {
      await llm.close();
    }
  });
});
