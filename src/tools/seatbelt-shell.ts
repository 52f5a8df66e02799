/**
 * `exec_shell`'s command on macOS: `/bin/sh -c command` under `sandbox-exec` with the profile of
 * seatbelt-profile.ts, started by the launcher (launcher.ts) with none of agentctl's descriptors.
 * Unlike bubblewrap, Seatbelt cannot move paths: the command runs in the workspace's own path, and
 * its `$HOME` and `$TMPDIR` are in a private directory made for the one command (`makePrivateDir`)
 * and removed after it.
 */
import { mkdir, mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, shellSayingStarted } from './launcher.js';
import { sandboxEnv, type SandboxedCommand } from './sandbox.js';
import { seatbeltParams, seatbeltProfile, type SeatbeltPaths } from './seatbelt-profile.js';

/** The standard system directories and Homebrew's, as a command's PATH. */
const SEATBELT_PATH = '/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

export interface SeatbeltShellOptions extends SeatbeltPaths {
  network: boolean;
  /** The environment the allow-listed variables (locale, time zone, TERM) are taken from. */
  hostEnv: Record<string, string | undefined>;
}

/** The command's environment: what the Linux sandbox passes, with macOS's PATH and the private `$HOME` and `$TMPDIR`. */
export function seatbeltEnv(hostEnv: Record<string, string | undefined>, privateDir: string): Record<string, string> {
  return { ...sandboxEnv(hostEnv, 'agent'), PATH: SEATBELT_PATH, HOME: join(privateDir, 'home'), TMPDIR: `${join(privateDir, 'tmp')}/` };
}

/**
 * `/bin/sh -c command` under `sandboxExec` (the absolute path of `sandbox-exec`), started by `bash`.
 * The shell says "started" on fd 3 once inside, as in bubblewrap (sandbox.ts).
 */
export function seatbeltShell(sandboxExec: string, bash: string, command: string, options: SeatbeltShellOptions): SandboxedCommand {
  const startFd = 3;
  const profile = seatbeltProfile({ network: options.network, hiddenCount: options.hidden.length });
  return {
    ...launch(bash, { keepThrough: startFd, clearEnv: false }, sandboxExec, [
      '-p', profile, ...seatbeltParams(options), '--', ...shellSayingStarted(startFd, command),
    ]),
    env: seatbeltEnv(options.hostEnv, options.privateDir),
    fdData: [],
    startFd,
  };
}

/** A fresh private directory for one command (its real path), with `home` and `tmp` inside. */
export async function makePrivateDir(): Promise<string> {
  const dir = await mkdtemp(join(await realpath(tmpdir()), 'agentctl-shell-'));
  await mkdir(join(dir, 'home'));
  await mkdir(join(dir, 'tmp'));
  return dir;
}
