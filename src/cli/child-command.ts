/**
 * The command `agentctl run` runs: found on PATH as a shell finds it (so a missing one is a line
 * and exit 127 before anything is opened or recorded), run with standard input, output and error
 * its own (inherited), with SIGINT and SIGTERM passed on to it — agentctl waits for it to end,
 * whatever it does with them.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { delimiter, join } from 'node:path';

/** How the command ended: its exit code, or the signal that killed it. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Whether `name` is a command this environment can run: a path to an executable file, or one on its PATH. */
export function findCommand(name: string, env: NodeJS.ProcessEnv): boolean {
  if (name === '') return false;
  if (name.includes('/')) return isExecutable(name);
  return (env['PATH'] ?? '').split(delimiter).some((dir) => isExecutable(join(dir === '' ? '.' : dir, name)));
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Run `command` to its end, passing SIGINT and SIGTERM on to it. Rejects only when it cannot be started. */
export function runChild(command: readonly string[], env: NodeJS.ProcessEnv): Promise<ChildExit> {
  const [file, ...args] = command as [string, ...string[]];
  const child = spawn(file, args, { stdio: 'inherit', env });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise<ChildExit>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal }));
  }).finally(() => {
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
  });
}

/** The exit code a shell gives for `exit`: the command's code, or 128 + the number of the signal that killed it. */
export function shellExitCode(exit: ChildExit): number {
  if (exit.code !== null) return exit.code;
  const number = exit.signal === null ? undefined : (osConstants.signals as Record<string, number | undefined>)[exit.signal];
  return 128 + (number ?? 0);
}
