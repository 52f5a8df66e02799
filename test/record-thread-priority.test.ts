/**
 * `agentctl record` runs its helper threads (V8's workers, the thread pool) at the lowest priority
 * and its main thread as it was, so the loop gets a core as soon as a synced model reply is on disk
 * (src/cli/helper-threads.ts); so does `agentctl proxy` when it records, and only then. Checked on
 * the real binary from /proc (Linux: a thread's nice value is its own there, and nowhere else is
 * this done).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lowerHelperThreads } from '../src/cli/helper-threads.js';
import { BIN } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-priority-'));
  await mkdir(join(dir, 'ws'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Each thread's nice value, by thread id: field 19 of /proc/<pid>/task/<tid>/stat (after the name in parentheses). */
function niceByThread(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(Number(task), Number(fields[16]));
  }
  return out;
}

/** Start `agentctl proxy … --json` on a free port; resolves once it listens (its `--json` line). */
async function startProxy(args: string[]): Promise<{ pid: number; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, 'proxy', '--port', '0', '--json', '--store', join(dir, 'proxy-store'), ...args], {
    env: { ...process.env, NO_COLOR: '1', OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the proxy did not start: ${stderr}`)), 10_000);
    void exited.then((code) => reject(new Error(`the proxy exited with ${code}: ${stderr}`)));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (stdout.includes('\n')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return {
    pid: child.pid as number,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('the priority of a recording\'s threads', () => {
  it('is left alone outside Linux, where setpriority takes process ids, not thread ids', () => {
    expect(lowerHelperThreads('darwin')).toBe(0);
    expect(lowerHelperThreads('win32')).toBe(0);
  });

  it('agentctl record: every thread but the main one at nice 19 while the run is recorded, the main thread as it was', async () => {
    if (process.platform !== 'linux') {
      // Nothing is lowered elsewhere (the test above); /proc, which this reads, is Linux's.
      expect(lowerHelperThreads()).toBe(0);
      return;
    }
    const ownNice = niceByThread(process.pid).get(process.pid);
    // The model takes its time over the first call: the recorder is waiting on it when the threads are read.
    const llm = await startMockLlm([{ content: 'done', delayMs: 1500 }]);
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
    const child = spawn(process.execPath, [BIN, 'record', '--task', 'wait', '--base-url', llm.baseURL, '--workspace', join(dir, 'ws'), '--store', join(dir, 'store'), '--quiet'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      for (let i = 0; i < 200 && llm.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(llm.requests.length, `the recording never called the model: ${stderr}`).toBe(1);
      const nice = niceByThread(child.pid as number);
      expect(nice.get(child.pid as number)).toBe(ownNice);
      const helpers = [...nice].filter(([tid]) => tid !== child.pid).map(([, value]) => value);
      // V8's workers and the thread pool at least.
      expect(helpers.length).toBeGreaterThanOrEqual(4);
      expect(helpers).toEqual(helpers.map(() => 19));
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await llm.close();
    }
  });

  it('agentctl proxy: the same while it records, and every thread left as it was when it only passes requests on', async () => {
    if (process.platform !== 'linux') {
      expect(lowerHelperThreads()).toBe(0);
      return;
    }
    const ownNice = niceByThread(process.pid).get(process.pid);
    const llm = await startMockLlm([]);
    try {
      for (const [args, helperNice] of [
        [['--record', 'priority', '--upstream', llm.baseURL], 19],
        [['--mode', 'passthrough', '--upstream', llm.baseURL], ownNice],
      ] as const) {
        const proxy = await startProxy([...args]);
        try {
          const nice = niceByThread(proxy.pid);
          expect(nice.get(proxy.pid)).toBe(ownNice);
          const helpers = [...nice].filter(([tid]) => tid !== proxy.pid).map(([, value]) => value);
          expect(helpers.length).toBeGreaterThanOrEqual(4);
          expect(helpers, args.join(' ')).toEqual(helpers.map(() => helperNice));
        } finally {
          expect(await proxy.stop()).toBe(0);
        }
      }
    } finally {
      await llm.close();
    }
  });
});
