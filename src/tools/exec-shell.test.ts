import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execShellTool, scrubbedEnv } from './exec-shell.js';
import { executeTool } from './executor.js';
import { OUTPUT_CAP_BYTES } from './output-cap.js';
import { ToolRegistry } from './registry.js';
import { useTempDirs } from './test-support/temp-dirs.js';
import { ToolError } from './tool.js';

const tempDir = useTempDirs();

/** True while `pid` is a live (not zombie) process. */
async function isAlive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat !== undefined) return !/^\d+ \(.*\) Z/.test(stat);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Poll until `pid` is gone; false if it is still alive after `attempts` tries. */
async function waitGone(pid: number, attempts = 100): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (!(await isAlive(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

function run(ws: string, command: string): Promise<string> {
  return execShellTool().run({ command }, { workspace: ws, signal: new AbortController().signal });
}

describe('exec_shell', () => {
  it('is mutating, not idempotent, with a 60 s default limit', () => {
    expect(execShellTool()).toMatchObject({ name: 'exec_shell', idempotent: false, mutating: true, timeoutMs: 60_000 });
    expect(execShellTool({ timeoutMs: 5 }).timeoutMs).toBe(5);
  });

  it('runs in the workspace and reports output and exit code', async () => {
    const ws = await tempDir();
    await expect(run(ws, 'pwd; echo err >&2')).resolves.toBe(`${ws}\nerr\n[exit code: 0]`);
    await expect(run(ws, 'echo hi > f.txt && cat f.txt')).resolves.toBe('hi\n[exit code: 0]');
    await expect(run(ws, 'true')).resolves.toBe('[exit code: 0]');
  });

  it('makes a non-zero exit a tool error that still shows the output', async () => {
    const ws = await tempDir();
    const attempt = run(ws, 'echo failing; exit 3');
    await expect(attempt).rejects.toBeInstanceOf(ToolError);
    await expect(attempt).rejects.toThrow('failing\n[exit code: 3]');
  });

  it('caps the output, keeping head and tail', async () => {
    const ws = await tempDir();
    const output = await run(ws, 'echo START; head -c 300000 /dev/zero | tr "\\0" x; echo; echo END');
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(OUTPUT_CAP_BYTES + 100);
    expect(output).toMatch(/^START\n/);
    expect(output).toMatch(/\[output truncated: \d+ bytes omitted\]/);
    expect(output).toMatch(/END\n\[exit code: 0\]$/);
  });

  it('does not pass secret-looking environment variables to commands', async () => {
    const env = scrubbedEnv({ PATH: '/usr/bin:/bin', OPENAI_API_KEY: 'sk-x', GITHUB_TOKEN: 't', HOME: '/h' });
    expect(env).toEqual({ PATH: '/usr/bin:/bin', HOME: '/h' });
    const ws = await tempDir();
    const tool = execShellTool({ env: { ...env, VISIBLE: 'yes' } });
    const output = await tool.run({ command: 'echo "$VISIBLE-$OPENAI_API_KEY"' }, { workspace: ws, signal: new AbortController().signal });
    expect(output).toBe('yes-\n[exit code: 0]');
  });

  it('kills background jobs when the shell exits', async () => {
    const ws = await tempDir();
    await run(ws, 'sleep 30 > /dev/null 2>&1 & echo $! > bg.pid');
    const pid = Number(await readFile(join(ws, 'bg.pid'), 'utf8'));
    expect(await waitGone(pid)).toBe(true);
  });

  it('times out through the executor and kills the whole process group', async () => {
    const ws = await tempDir();
    const registry = new ToolRegistry().register(execShellTool({ timeoutMs: 200 }));
    const result = await executeTool(registry, 'exec_shell', { command: 'sleep 5 & echo $! > sleep.pid; wait' }, { workspace: ws });
    expect(result.status).toBe('timeout');
    expect(result.output).toMatch(/timed out after 200 ms/);
    const pid = Number(await readFile(join(ws, 'sleep.pid'), 'utf8'));
    expect(await waitGone(pid)).toBe(true);
  });

  it('stops when the run is cancelled', async () => {
    const ws = await tempDir();
    const registry = new ToolRegistry().register(execShellTool());
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(new Error('SIGINT')), 100);
    const result = await executeTool(registry, 'exec_shell', { command: 'sleep 5' }, { workspace: ws, signal: cancel.signal });
    expect(result).toMatchObject({ status: 'error', output: "tool 'exec_shell' was cancelled" });
  });
});
