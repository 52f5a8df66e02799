/**
 * The sandbox `exec_shell` runs commands in: bubblewrap (`bwrap`), the unprivileged sandbox
 * Flatpak is built on. What a command sees:
 *
 * - the workspace, read-write, at `/workspace` (its working directory); the workspace's host path
 *   is not in its environment, its working directory or bwrap's command line (bwrap reads its
 *   options from a pipe, `--args`), but the kernel shows it in `/proc/self/mountinfo` as the bind
 *   mount's source, and no bwrap option hides that while keeping a `/proc`;
 * - agentctl's store, when it lies in the workspace, masked: the workspace's top-level entry that
 *   holds it (`.agentctl`) is an empty, read-only directory, which cannot be renamed or removed;
 * - the system read-only: `/usr` and its `/bin`, `/sbin`, `/lib*` companions, and the parts of
 *   `/etc` programs need to run (dynamic linker, alternatives, certificates, name resolution,
 *   locale and time zone); `/etc/passwd` and `/etc/group` name only the sandbox's own user;
 * - nothing else of the host: no home directories, `/root`, `/opt`, `/var`, `/srv`, `/mnt`, `/run`;
 *   an empty `/tmp` and `$HOME` of its own, a minimal `/dev`, a fresh `/proc`;
 * - none of agentctl's open files: bwrap is started by the launcher (launcher.ts), which closes
 *   every descriptor but stdio and the pipes set up for bwrap;
 * - its own PID namespace (it cannot see or signal the host's processes, agentctl included), IPC
 *   and UTS namespaces, no capabilities, and no network unless the config allows it;
 * - an environment of its own: PATH, HOME, USER, LOGNAME, SHELL, TMPDIR, plus the host's locale,
 *   time zone and TERM. Nothing else of agentctl's environment (API keys included) is passed; bwrap
 *   itself (pid 1 inside) runs with an empty one.
 *
 * The rest of the root is read-only, so a write anywhere but the workspace, `/tmp` and `$HOME`
 * fails. `--die-with-parent` and the PID namespace make killing bwrap end everything inside.
 */
import { lstat, readdir, readlink } from 'node:fs/promises';
import { posix, relative, sep } from 'node:path';
import { findProgram, launch, shellSayingStarted } from './launcher.js';

/** How `exec_shell` is confined: config `sandbox`. */
export type SandboxSetting = 'none' | { network: boolean };

/** The default: sandboxed, no network. */
export const DEFAULT_SANDBOX: SandboxSetting = { network: false };

/** Where the workspace is inside the sandbox, and the commands' working directory. */
export const SANDBOX_WORKSPACE = '/workspace';
/** The sandbox's private, empty home directory. */
export const SANDBOX_HOME = '/home/agent';
const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The one line `exec_shell` answers with when bubblewrap is not installed. */
export const BWRAP_MISSING =
  'exec_shell runs commands in a bubblewrap sandbox, and bwrap is not installed: install it ' +
  '(apt-get install bubblewrap; dnf install bubblewrap; pacman -S bubblewrap), ' +
  'or set "sandbox": "none" in the config to run commands unconfined';

/** Host variables a sandboxed command gets: locale, time zone, terminal type. Nothing that can hold a secret. */
const PASSED_ENV = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM)$/;

/** Top-level system directories, bound read-only (or recreated as the symlinks they are on merged-/usr systems). */
const SYSTEM_DIRS = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/**
 * What of `/etc` a command sees: what programs need to start and work (the dynamic linker's cache,
 * Debian's alternatives, TLS certificates, name resolution, locale, time zone, terminfo, shells,
 * language runtimes' own settings). Not the accounts, passwords, keys, sudoers or service configs.
 */
const ETC_ENTRIES = new RegExp(
  '^(' +
    [
      'alternatives', 'ld\\.so\\.(cache|conf|conf\\.d)', 'localtime', 'timezone',
      'ssl', 'pki', 'ca-certificates(\\.conf)?', 'crypto-policies',
      'resolv\\.conf', 'hosts', 'host\\.conf', 'nsswitch\\.conf', 'gai\\.conf', 'protocols', 'services', 'networks',
      'mime\\.types', 'magic(\\.mime)?', 'locale\\.(alias|conf)', 'bash\\.bashrc', 'inputrc', 'terminfo', 'shells',
      'os-release', 'debian_version', 'lsb-release', '(python|perl|java)[\\w.-]*',
    ].join('|') +
    ')$',
);

/** `bwrap` on `path` (a PATH value), as an absolute path; undefined when it is not there. */
export function findBwrap(path: string | undefined): Promise<string | undefined> {
  return findProgram('bwrap', path);
}

/**
 * A command to spawn: the launcher running bwrap, its environment, and what to write to fds 3, 4, ….
 * bwrap's options are on fd 3 (`--args`), so its command line holds no host path.
 */
export interface SandboxedCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Data bwrap reads from extra file descriptors, starting at 3. */
  fdData: string[];
  /**
   * The file descriptor (the one after the data's) on which the sandbox writes a byte once it is
   * set up, just before the command starts: without it, a failure is bwrap's, not the command's.
   */
  startFd: number;
}

export interface SandboxOptions {
  /** Real path of the workspace. */
  workspace: string;
  /** Real paths inside the workspace masked by an empty read-only directory (see `hiddenEntries`). */
  hidden: readonly string[];
  network: boolean;
  /** The environment the allow-listed variables are taken from. */
  hostEnv: Record<string, string | undefined>;
}

/** The environment inside the sandbox. */
export function sandboxEnv(hostEnv: Record<string, string | undefined>, user: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(hostEnv)) if (PASSED_ENV.test(name) && value !== undefined) env[name] = value;
  return { ...env, PATH: SANDBOX_PATH, HOME: SANDBOX_HOME, USER: user, LOGNAME: user, SHELL: '/bin/sh', TMPDIR: '/tmp' };
}

/** bwrap arguments for the host's system directories. */
async function systemMounts(): Promise<string[]> {
  const args: string[] = [];
  for (const name of SYSTEM_DIRS) {
    const host = `/${name}`;
    const entry = await lstat(host).catch(() => undefined);
    if (entry?.isSymbolicLink()) args.push('--symlink', await readlink(host), host);
    else if (entry?.isDirectory()) args.push('--ro-bind', host, host);
  }
  const etc = await readdir('/etc').catch(() => [] as string[]);
  for (const name of etc.filter((n) => ETC_ENTRIES.test(n)).sort()) args.push('--ro-bind-try', `/etc/${name}`, `/etc/${name}`);
  return args;
}

/** bwrap arguments masking each of `hidden` (inside `workspace`) with an empty read-only tmpfs. */
function masks(workspace: string, hidden: readonly string[]): string[] {
  return hidden.flatMap((path) => {
    const inside = posix.join(SANDBOX_WORKSPACE, relative(workspace, path).split(sep).join('/'));
    return ['--tmpfs', inside, '--remount-ro', inside];
  });
}

/**
 * `/bin/sh -c command` in a bubblewrap sandbox, run with `bwrap` and started by `bash` (absolute
 * paths) with none of agentctl's descriptors.
 */
export async function sandboxedShell(bwrap: string, bash: string, command: string, options: SandboxOptions): Promise<SandboxedCommand> {
  const uid = process.getuid?.() ?? 65534;
  const gid = process.getgid?.() ?? 65534;
  const user = uid === 0 ? 'root' : 'agent';
  const group = gid === 0 ? 'root' : 'agent';
  const passwd = `${user}:x:${uid}:${gid}:${user}:${SANDBOX_HOME}:/bin/sh\n` +
    (uid === 65534 ? '' : 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n');
  const groups = `${group}:x:${gid}:\n` + (gid === 65534 ? '' : 'nogroup:x:65534:\n');
  // fd 3: these options; 4, 5: /etc/passwd and /etc/group; 6: "started".
  const bwrapOptions = [
    '--unshare-all',
    ...(options.network ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--cap-drop', 'ALL',
    '--hostname', 'sandbox',
    ...Object.entries(sandboxEnv(options.hostEnv, user)).flatMap(([name, value]) => ['--setenv', name, value]),
    ...(await systemMounts()),
    '--ro-bind-data', '4', '/etc/passwd',
    '--ro-bind-data', '5', '/etc/group',
    '--proc', '/proc',
    '--dev', '/dev',
    '--tmpfs', '/tmp',
    '--tmpfs', SANDBOX_HOME,
    '--bind', options.workspace, SANDBOX_WORKSPACE,
    ...masks(options.workspace, options.hidden),
    '--chdir', SANDBOX_WORKSPACE,
    '--remount-ro', '/',
  ];
  const startFd = 6;
  return {
    ...launch(bash, { keepThrough: startFd, clearEnv: true }, bwrap, ['--args', '3', '--', ...shellSayingStarted(startFd, command)]),
    env: {},
    fdData: [bwrapOptions.map((arg) => `${arg}\0`).join(''), passwd, groups],
    startFd,
  };
}
