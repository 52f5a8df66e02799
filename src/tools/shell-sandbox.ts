/**
 * Which sandbox `exec_shell` confines commands with on this platform: bubblewrap on Linux
 * (sandbox.ts), `sandbox-exec` on macOS (seatbelt-shell.ts), none elsewhere. When the program is
 * not there, the one line saying so, and how to get it or run unconfined.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { BWRAP_MISSING, findBwrap } from './sandbox.js';
import { SANDBOX_EXEC } from './seatbelt-profile.js';

export type ShellSandbox = { kind: 'bubblewrap'; program: string } | { kind: 'seatbelt'; program: string };

/** Where a platform's sandbox program is looked for; the defaults, or a test's. */
export interface SandboxLookup {
  platform: NodeJS.Platform;
  /** A PATH value, where `bwrap` is looked for. */
  path: string | undefined;
  /** Where `sandbox-exec` is (macOS's, never one on PATH). */
  sandboxExec?: string;
}

/** The one line `exec_shell` answers with on macOS when `sandbox-exec` is not there. */
export const SANDBOX_EXEC_MISSING =
  `exec_shell runs commands under macOS's sandbox-exec, and ${SANDBOX_EXEC} is not there: ` +
  'set "sandbox": "none" in the config to run commands unconfined';

/** The one line `exec_shell` answers with on a platform agentctl has no sandbox for. */
export function noSandboxOn(platform: NodeJS.Platform): string {
  return `exec_shell has no sandbox on ${platform} (agentctl confines commands with bubblewrap on Linux and sandbox-exec on macOS): ` +
    'set "sandbox": "none" in the config to run commands unconfined';
}

/** The platform's sandbox program, or the line saying why there is none. */
export async function findShellSandbox(lookup: SandboxLookup): Promise<ShellSandbox | { missing: string }> {
  if (lookup.platform === 'darwin') {
    const program = lookup.sandboxExec ?? SANDBOX_EXEC;
    return (await isExecutable(program)) ? { kind: 'seatbelt', program } : { missing: SANDBOX_EXEC_MISSING };
  }
  if (lookup.platform !== 'linux') return { missing: noSandboxOn(lookup.platform) };
  const bwrap = await findBwrap(lookup.path);
  return bwrap === undefined ? { missing: BWRAP_MISSING } : { kind: 'bubblewrap', program: bwrap };
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
