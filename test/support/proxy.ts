/**
 * `agentctl proxy` as end-to-end tests run it: the real binary on a free port, started with
 * `--json` and known once its first line says where it listens; stopped by a signal, with its exit
 * and output. Every proxy started is killed by `killProxies()` (afterEach) if a test left it running:
 * it holds its store.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './cli.js';

export interface ProxyExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningProxy {
  url: string;
  port: number;
  runId: string | null;
  tape: string | null;
  child: ChildProcess;
  /** What it has written to standard error so far. */
  stderr(): string;
  /** Resolves when it has exited (by itself or by a signal). */
  exited: Promise<ProxyExit>;
  /** Send `signal` and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<ProxyExit>;
}

const started: ChildProcess[] = [];

/** Start `agentctl proxy --port 0 --json --store <store> ...args` and wait for its `--json` line. */
export function startProxy(args: string[], options: { store: string; env: Record<string, string | undefined> }): Promise<RunningProxy> {
  const child = spawn(process.execPath, [BIN, 'proxy', '--port', '0', '--json', '--store', options.store, ...args], {
    env: withEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<ProxyExit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`proxy did not start: ${stderr}`)), 10_000);
    void exited.then(({ code }) => reject(new Error(`proxy exited with ${code}: ${stderr}`)));
    const onData = (): void => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) return;
      child.stdout.off('data', onData);
      clearTimeout(timer);
      const ready = JSON.parse(line) as { url: string; port: number; runId: string | null; tape: string | null };
      resolve({
        ...ready,
        child,
        stderr: () => stderr,
        exited,
        stop: (signal = 'SIGTERM') => {
          child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout.on('data', onData);
  });
}

/** Kill every proxy a test left running, and wait for each to exit. */
export async function killProxies(): Promise<void> {
  for (const child of started.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGKILL');
    await closed;
  }
}

/** The test process's environment with `env` applied (undefined: removed), colours off. */
function withEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  return out;
}
