/**
 * The command `agentctl run` runs: found on PATH as a shell finds it (so a missing one is a line
 * and exit 127, one that is not executable 126, before anything is opened or recorded), run with standard input, output and error
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

/** A shell's codes for a command it found but cannot execute, and for one it did not find. */
export const DENIED_EXIT_CODE = 126;
export const NOT_FOUND_EXIT_CODE = 127;

/**
 * Why a command cannot be run, as a shell says it, or undefined when it can: `name` is a path to an
 * executable file, or one on PATH. A file there that is not executable is "permission denied"
 * (exit 126) — on PATH only when no directory has an executable one, as bash finds it; nothing
 * there at all is "command not found" (127).
 */
export function commandProblem(name: string, env: NodeJS.ProcessEnv): { message: string; code: 126 | 127 } | undefined {
  const candidates = name === '' ? [] : name.includes('/') ? [name] : (env['PATH'] ?? '').split(delimiter).map((dir) => join(dir === '' ? '.' : dir, name));
  let denied = false;
  for (const path of candidates) {
    const state = fileState(path);
    if (state === 'executable') return undefined;
    if (state === 'denied') denied = true;
  }
  return denied ? { message: 'permission denied', code: DENIED_EXIT_CODE } : { message: 'command not found', code: NOT_FOUND_EXIT_CODE };
}

function fileState(path: string): 'executable' | 'denied' | 'missing' {
  try {
    if (!statSync(path).isFile()) return 'missing';
  } catch {
    return 'missing';
  }
  try {
    accessSync(path, fsConstants.X_OK);
    return 'executable';
  } catch {
    return 'denied';
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
