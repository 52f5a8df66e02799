/**
 * How `exec_shell` starts a program (bwrap, sandbox-exec, or `/bin/sh` unconfined) with nothing of
 * agentctl's open but what it is handed: stdio and the descriptors set up for it.
 *
 * Why: agentctl's store is LevelDB (classic-level), which opens its files — the MANIFEST, the
 * write-ahead log, LOCK, tables — without O_CLOEXEC, from its own threads, at any time. A child
 * inherits them open for writing, and one `: > /proc/self/fd/N` destroys every run in the store.
 * Node's child_process cannot close descriptors, and closing them from JavaScript would race with
 * LevelDB's threads (a list taken before the fork misses a file opened after it). So the closing
 * happens in the child, after the fork, where no other thread runs: a bash launcher closes every
 * descriptor /dev/fd lists above the kept ones, then execs the program. (libuv's stdio array could
 * cover a range of fds with /dev/null, but only a range fixed before the fork — the same race.
 * Debian's /bin/sh is dash, which cannot name a descriptor above 9.)
 */
import { constants } from 'node:fs';
import { access, lstat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

/** The one line `exec_shell` answers with when bash is not installed. */
export const BASH_MISSING =
  'exec_shell starts commands through bash (it closes agentctl’s own open files first), and bash is not on PATH: ' +
  'install it (apt-get install bash; dnf install bash; pacman -S bash)';

/**
 * The launcher's script: `$1` is the highest descriptor to keep, `$2` `clear` to exec with an empty
 * environment; the rest is the program and its arguments. `-p` (below) keeps bash from running
 * `$BASH_ENV` or importing functions first. Without a /dev/fd to list, it refuses rather than
 * start the program with what it could not close.
 */
const CLOSE_AND_EXEC = [
  'keep=$1 env=$2; shift 2',
  '[ -d /dev/fd ] || { echo "agentctl: cannot list open files: /dev/fd is missing" >&2; exit 126; }',
  'for f in /dev/fd/*; do n=${f##*/}; case $n in ""|*[!0-9]*) continue;; esac; if [ "$n" -gt "$keep" ]; then eval "exec $n>&-"; fi; done',
  'if [ "$env" = clear ]; then exec -c "$@"; fi',
  'exec "$@"',
].join('\n');

/** `name` on `path` (a PATH value), as an absolute path; undefined when it is not there. */
export async function findProgram(name: string, path: string | undefined): Promise<string | undefined> {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue; // a relative PATH entry would depend on the current directory
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      if ((await lstat(candidate)).isDirectory()) continue;
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * `file args…` started by `bash` (an absolute path) with every descriptor above `keepThrough`
 * closed; with `clearEnv`, with an empty environment (bwrap, which sets the sandbox's own).
 */
export function launch(
  bash: string,
  options: { keepThrough: number; clearEnv: boolean },
  file: string,
  args: readonly string[],
): { file: string; args: string[] } {
  return {
    file: bash,
    args: ['-p', '-c', CLOSE_AND_EXEC, 'agentctl-launch', String(options.keepThrough), options.clearEnv ? 'clear' : 'keep', file, ...args],
  };
}

/**
 * `/bin/sh -c command`, run by a shell that first writes a byte to `startFd` and closes it: started
 * inside a sandbox, that byte says the sandbox was set up, so a failure without it is the sandbox's
 * own, not the command's.
 */
export function shellSayingStarted(startFd: number, command: string): string[] {
  return ['/bin/sh', '-c', `printf . >&${startFd} && exec /bin/sh -c "$1" ${startFd}>&-`, 'sh', command];
}
