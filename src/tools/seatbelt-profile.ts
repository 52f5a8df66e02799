/**
 * The macOS sandbox profile `exec_shell` runs commands under (`sandbox-exec -p`), written in Apple's
 * sandbox profile language (SBPL), to confine a command as the Linux sandbox does (sandbox.ts):
 *
 * - everything is denied unless allowed (`deny default`);
 * - the workspace read-write, except agentctl's store when it lies there (each `hidden` entry: no
 *   reading, writing, creating, renaming or removing it);
 * - the system read-only: `/usr`, `/bin`, `/sbin`, `/System`, `/Library/Apple`, the command-line
 *   developer tools, Homebrew's `/opt/homebrew`, and from `/private/etc` only what programs need;
 * - a private directory of its own for `$HOME` and `$TMPDIR`, fresh for each command;
 * - nothing else of the host: no `/Users`, no keychains, no `/private/var` beyond the time zone
 *   database and the dynamic linker's cache, not the shared `/tmp`;
 * - processes may start processes, and signal and inspect only those in the same sandbox;
 * - no network (not even loopback) unless the config allows it.
 *
 * Host paths never appear in the profile's text: they are parameters (`(param "WORKSPACE")`), whose
 * values `sandbox-exec` takes as `-D NAME=value` arguments and never parses. A path holding `"`,
 * `\`, `)` or a newline cannot change the profile. `seatbeltParams` gives those arguments.
 *
 * Pure functions, unit-tested on any platform; whether macOS accepts and enforces the profile is not
 * tested here (docs/sandbox.md).
 */

/** Where macOS keeps `sandbox-exec`: only this one is used, never one found on PATH. */
export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

/** What the profile depends on besides the paths it takes as parameters. */
export interface SeatbeltProfileOptions {
  network: boolean;
  /** How many masked entries (`HIDDEN_0`, `HIDDEN_1`, …) the parameters name. */
  hiddenCount: number;
}

/** The paths a profile is applied with. */
export interface SeatbeltPaths {
  /** Real path of the workspace. */
  workspace: string;
  /** Real paths inside the workspace no command may reach (agentctl's store). */
  hidden: readonly string[];
  /** Real path of the command's private directory (its `$HOME` and `$TMPDIR` are inside). */
  privateDir: string;
}

/** System directories a command may read and run programs from. */
const SYSTEM_TREES = [
  '/usr', '/bin', '/sbin', '/System', '/Library/Apple', '/opt/homebrew',
  // Xcode's command-line tools (git, make, cc behind /usr/bin's shims) and where xcode-select points.
  '/Library/Developer/CommandLineTools', '/Applications/Xcode.app/Contents/Developer', '/private/var/db/xcode_select_link',
  // /bin/sh reads which shell to be from here; the time zone database; the dynamic linker's cache.
  '/private/var/select', '/private/var/db/timezone', '/private/var/db/dyld',
];

/** What of `/private/etc` a command sees: name resolution, certificates, time zone, shells' settings. */
const ETC_ENTRIES = ['hosts', 'resolv.conf', 'ssl', 'services', 'protocols', 'shells', 'localtime', 'passwd', 'group', 'paths', 'profile', 'bashrc', 'zshrc'];

/** Symlinks at the root a path may pass through (`/etc` → `/private/etc`, …). */
const ROOT_LINKS = ['/etc', '/tmp', '/var'];

/** Services a command may ask for by name: user and group lookups, the system log. */
const SERVICES = ['com.apple.system.opendirectoryd.libinfo', 'com.apple.system.logger'];

/** With the network: name resolution, and the trust services TLS clients ask. */
const NETWORK_SERVICES = [
  'com.apple.SystemConfiguration.DNSConfiguration', 'com.apple.SystemConfiguration.configd', 'com.apple.networkd',
  'com.apple.trustd', 'com.apple.trustd.agent', 'com.apple.ocspd', 'com.apple.SecurityServer',
];

/**
 * An SBPL string literal of `text`. Only the constants above are written as literals (paths from
 * outside are parameters); it still escapes, and refuses what a literal should not hold, so a
 * constant edited carelessly cannot change the profile's structure.
 */
export function sbplString(text: string): string {
  if (/[\u0000-\u001f\u007f]/.test(text)) throw new Error(`a sandbox profile string cannot hold control characters: ${JSON.stringify(text)}`);
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

const param = (name: string): string => `(param ${sbplString(name)})`;
const hiddenParam = (index: number): string => `HIDDEN_${index}`;

/** The profile for `options`; its paths are the parameters `seatbeltParams` gives. */
export function seatbeltProfile(options: SeatbeltProfileOptions): string {
  const hidden = Array.from({ length: options.hiddenCount }, (_, i) => param(hiddenParam(i)));
  // A masked entry, and everything under it (`literal` too: creating the entry itself, as mkdir does).
  const masked = hidden.flatMap((p) => [`(literal ${p})`, `(subpath ${p})`]);
  const workspace = masked.length === 0
    ? `(subpath ${param('WORKSPACE')})`
    : `(require-all (subpath ${param('WORKSPACE')}) ${masked.map((m) => `(require-not ${m})`).join(' ')})`;
  const lines = [
    '(version 1)',
    '(deny default)',
    '; Commands start commands; they signal and inspect only their own.',
    '(allow process-exec process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow ipc-posix-sem)',
    `(allow mach-lookup ${SERVICES.map((name) => `(global-name ${sbplString(name)})`).join(' ')})`,
    '(allow pseudo-tty)',
    '; The system, read-only.',
    `(allow file-read* file-map-executable ${SYSTEM_TREES.map((path) => `(subpath ${sbplString(path)})`).join(' ')})`,
    `(allow file-read* ${ETC_ENTRIES.map((name) => `(subpath ${sbplString(`/private/etc/${name}`)})`).join(' ')})`,
    `(allow file-read-metadata (literal "/") (literal "/private") (literal "/private/etc") (literal "/dev") ${ROOT_LINKS.map((path) => `(literal ${sbplString(path)})`).join(' ')})`,
    '(allow file-read* file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (subpath "/dev/fd"))',
    '(allow file-read* (literal "/dev/random") (literal "/dev/urandom"))',
    '(allow file-read* file-write* file-ioctl (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$"))',
    '; The workspace, read-write (agentctl\'s store aside), and the directories above it, to be found.',
    `(allow file-read-metadata (path-ancestors ${param('WORKSPACE')}))`,
    `(allow file-read* file-write* file-map-executable ${workspace})`,
    '; The command\'s own $HOME and $TMPDIR.',
    `(allow file-read-metadata (path-ancestors ${param('PRIVATE')}))`,
    `(allow file-read* file-write* file-map-executable (subpath ${param('PRIVATE')}))`,
  ];
  if (options.network) {
    lines.push(
      '; The network, as the config allows.',
      '(allow network-outbound network-inbound network-bind system-socket)',
      `(allow mach-lookup ${NETWORK_SERVICES.map((name) => `(global-name ${sbplString(name)})`).join(' ')})`,
    );
  }
  if (masked.length > 0) {
    // Already outside every allow above; denied again last, so no rule added above can let it in.
    lines.push('; agentctl\'s store.', `(deny file-read* file-write* file-map-executable ${masked.join(' ')})`);
  }
  return `${lines.join('\n')}\n`;
}

/** `sandbox-exec` arguments giving the profile's parameters their values: the paths, as they are. */
export function seatbeltParams(paths: SeatbeltPaths): string[] {
  return [
    `-DWORKSPACE=${paths.workspace}`,
    `-DPRIVATE=${paths.privateDir}`,
    ...paths.hidden.map((path, i) => `-D${hiddenParam(i)}=${path}`),
  ];
}
