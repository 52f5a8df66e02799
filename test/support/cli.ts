/** Run the real agentctl binary (bin/agentctl.js → dist/) as a child process. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/agentctl.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  input?: string;
  timeoutMs?: number;
  /** Options for node itself, before the binary (`--disallow-code-generation-from-strings`). */
  nodeOptions?: string[];
}

/** Run `agentctl ...args` to completion and capture its output. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return runProgram(process.execPath, [...(options.nodeOptions ?? []), BIN, ...args], options);
}

/** Run any program to completion (the binary inside a sandbox, say) and capture its output. */
export function runProgram(file: string, args: string[], options: Omit<CliOptions, 'nodeOptions'> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
    for (const [k, v] of Object.entries(options.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = spawn(file, args, { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
