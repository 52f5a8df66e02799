/** End-to-end: `agentctl record` (the real binary) against the scripted model server on 127.0.0.1. */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TapeStore } from '../src/tape/tape-store.js';
import { findProgram } from '../src/tools/index.js';
import { BIN, runCli } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import { loadScenario } from './support/scenario.js';

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

describe('agentctl record and the exec_shell sandbox', () => {
  it('refuses up front, with how to install it, when bubblewrap is missing and exec_shell is enabled', async () => {
    const llm = await startMockLlm([{ content: 'never asked' }]);
    try {
      const args = ['record', '--task', 'x', '--base-url', llm.baseURL, '--store', join(dir, 'store-nobwrap'), '--workspace', join(dir, 'ws-nobwrap')];
      // A PATH with bash (which starts every command) and no bwrap.
      const bash = await findProgram('bash', process.env['PATH']);
      if (bash === undefined) throw new Error('bash is not installed on this machine; this test needs it');
      const onlyBash = join(dir, 'bin-only-bash');
      await mkdir(onlyBash);
      await symlink(bash, join(onlyBash, 'bash'));
      const refused = await runCli(args, { env: { ...noKey, PATH: onlyBash } });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/bwrap is not installed/);
      expect(refused.stderr).toMatch(/apt-get install bubblewrap|"sandbox": "none"/);
      expect(llm.requests).toHaveLength(0);
      // Without exec_shell among the tools, nothing needs the sandbox.
      const readOnly = await runCli([...args, '--set', 'tools=["read_file"]'], { env: { ...noKey, PATH: '/nonexistent' } });
      expect(readOnly.code, readOnly.stderr).toBe(0);
    } finally {
      await llm.close();
    }
  });
});
