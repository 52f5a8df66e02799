/**
 * exec_shell's macOS path, on any platform: which sandbox a platform gets, the exact command line
 * `sandbox-exec` is started with, and — with a stand-in `sandbox-exec` that checks its arguments
 * and runs the command without confining it — what exec_shell does around it (the private
 * directory, the environment, telling the sandbox's failure from the command's). That macOS accepts
 * the profile and confines the command is not tested here (no Mac).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execShellTool, type ExecShellOptions } from './exec-shell.js';
import { findProgram, launch, shellSayingStarted } from './launcher.js';
import { BWRAP_MISSING } from './sandbox.js';
import { SANDBOX_EXEC, seatbeltProfile } from './seatbelt-profile.js';
import { seatbeltShell } from './seatbelt-shell.js';
import { SANDBOX_EXEC_MISSING, findShellSandbox, noSandboxOn } from './shell-sandbox.js';
import { useTempDirs } from './test-support/temp-dirs.js';
import { ToolError } from './tool.js';

const tempDir = useTempDirs();

/**
 * A stand-in for sandbox-exec: refuses unless called as exec_shell calls it (`-p`, a profile,
 * `-D` parameters, `--`), then runs the command after `--` as it is.
 */
const FAKE_SANDBOX_EXEC = [
  '#!/bin/sh',
  '[ "$1" = -p ] || { echo "sandbox-exec: no -p" >&2; exit 64; }',
  'case "$2" in "(version 1)"*) ;; *) echo "sandbox-exec: not a profile" >&2; exit 64;; esac',
  'shift 2',
  'while [ "$1" != -- ]; do case "$1" in -D*=*) shift;; *) echo "sandbox-exec: bad argument $1" >&2; exit 64;; esac; done',
  'shift',
  'exec "$@"',
  '',
].join('\n');

/** A stand-in for sandbox-exec where the kernel refuses the profile (after a line of something else). */
const REFUSING_SANDBOX_EXEC = '#!/bin/sh\necho "a warning first" >&2\necho "sandbox-exec: sandbox_apply: Operation not permitted" >&2\nexit 71\n';

async function program(text: string): Promise<string> {
  const path = join(await tempDir(), 'sandbox-exec');
  await writeFile(path, text, { mode: 0o755 });
  return path;
}

function run(ws: string, command: string, options: ExecShellOptions, hidden: readonly string[] = []): Promise<string> {
  return execShellTool(options).run({ command }, { workspace: ws, hidden, signal: new AbortController().signal });
}

describe('which sandbox exec_shell uses', () => {
  it('bubblewrap on Linux, /usr/bin/sandbox-exec on macOS (never one on PATH), none elsewhere', async () => {
    const bwrap = await findProgram('bwrap', process.env['PATH']);
    expect(await findShellSandbox({ platform: 'linux', path: process.env['PATH'] })).toEqual({ kind: 'bubblewrap', program: bwrap });
    expect(await findShellSandbox({ platform: 'linux', path: '/nonexistent' })).toEqual({ missing: BWRAP_MISSING });
    const fake = await program(FAKE_SANDBOX_EXEC);
    expect(await findShellSandbox({ platform: 'darwin', path: '/nonexistent', sandboxExec: fake })).toEqual({ kind: 'seatbelt', program: fake });
    expect(await findShellSandbox({ platform: 'darwin', path: process.env['PATH'], sandboxExec: join(fake, 'none') })).toEqual({ missing: SANDBOX_EXEC_MISSING });
    expect(await findShellSandbox({ platform: 'win32', path: process.env['PATH'] })).toEqual({ missing: noSandboxOn('win32') });
    for (const line of [SANDBOX_EXEC_MISSING, noSandboxOn('freebsd')]) {
      expect(line).not.toContain('\n');
      expect(line).toMatch(/"sandbox": "none"/);
    }
    expect(SANDBOX_EXEC).toBe('/usr/bin/sandbox-exec');
  });
});

describe('exec_shell under sandbox-exec', () => {
  it('is started by the launcher as sandbox-exec -p <profile> -D… -- /bin/sh, with the sandbox’s environment and nothing secret', () => {
    const options = {
      workspace: '/Users/me/project', hidden: ['/Users/me/project/.agentctl'], privateDir: '/private/var/folders/x/agentctl-shell-1', network: false,
      hostEnv: { PATH: '/host/bin', HOME: '/Users/me', OPENAI_API_KEY: 'sk-secret', LANG: 'en_US.UTF-8', TERM: 'xterm' },
    };
    const command = seatbeltShell('/usr/bin/sandbox-exec', '/bin/bash', 'echo "$HOME"', options);
    const expected = launch('/bin/bash', { keepThrough: 3, clearEnv: false }, '/usr/bin/sandbox-exec', [
      '-p', seatbeltProfile({ network: false, hiddenCount: 1 }),
      '-DWORKSPACE=/Users/me/project', '-DPRIVATE=/private/var/folders/x/agentctl-shell-1', '-DHIDDEN_0=/Users/me/project/.agentctl',
      '--', ...shellSayingStarted(3, 'echo "$HOME"'),
    ]);
    expect(command).toEqual({
      ...expected,
      env: {
        LANG: 'en_US.UTF-8', TERM: 'xterm',
        PATH: '/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin',
        HOME: '/private/var/folders/x/agentctl-shell-1/home', TMPDIR: '/private/var/folders/x/agentctl-shell-1/tmp/',
        USER: 'agent', LOGNAME: 'agent', SHELL: '/bin/sh',
      },
      fdData: [],
      startFd: 3,
    });
    expect(shellSayingStarted(3, 'true')).toEqual(['/bin/sh', '-c', 'printf . >&3 && exec /bin/sh -c "$1" 3>&-', 'sh', 'true']);
    expect(seatbeltShell('/usr/bin/sandbox-exec', '/bin/bash', 'true', { ...options, network: true }).args).toContain(seatbeltProfile({ network: true, hiddenCount: 1 }));
  });

  it('runs the command in the workspace with a private $HOME and $TMPDIR, removed when it ends', async () => {
    const ws = await tempDir();
    const options = { platform: 'darwin', sandboxExec: await program(FAKE_SANDBOX_EXEC), env: { PATH: process.env['PATH'], OPENAI_API_KEY: 'sk-secret' } } satisfies ExecShellOptions;
    const output = await run(ws, 'pwd; echo "$HOME"; echo "$TMPDIR"; touch "$HOME/h" "$TMPDIR/t" && echo wrote; echo "key=$OPENAI_API_KEY"', options, [join(ws, '.agentctl')]);
    const [cwd, home, tmp, wrote, key, exit] = output.split('\n');
    expect(cwd).toBe(ws);
    expect(home).toMatch(/\/agentctl-shell-[^/]+\/home$/);
    expect(tmp).toBe(`${home?.replace(/home$/, 'tmp')}/`);
    expect([wrote, key, exit]).toEqual(['wrote', 'key=', '[exit code: 0]']);
    expect(existsSync(home?.replace(/\/home$/, '') ?? '/')).toBe(false);
  });

  it('says the sandbox could not start when sandbox-exec fails before the command runs, and keeps a command’s own failure its own', async () => {
    const ws = await tempDir();
    const refusing = { platform: 'darwin', sandboxExec: await program(REFUSING_SANDBOX_EXEC), env: { PATH: process.env['PATH'] } } satisfies ExecShellOptions;
    const attempt = run(ws, 'echo ran > ran.txt', refusing);
    await expect(attempt).rejects.toBeInstanceOf(ToolError);
    await expect(attempt).rejects.toThrow(
      'the sandbox could not start (sandbox-exec: sandbox_apply: Operation not permitted); see "sandbox" in the agentctl docs, or set "sandbox": "none" to run commands unconfined',
    );
    expect(existsSync(join(ws, 'ran.txt'))).toBe(false);
    const working = { ...refusing, sandboxExec: await program(FAKE_SANDBOX_EXEC) };
    await expect(run(ws, 'echo "sandbox-exec: not really"; exit 3', working)).rejects.toThrow(/^sandbox-exec: not really\n\[exit code: 3\]$/);
  });

  it('is refused with one line when /usr/bin/sandbox-exec is not there', async () => {
    const ws = await tempDir();
    const attempt = run(ws, 'echo ran > ran.txt', { platform: 'darwin', sandboxExec: join(ws, 'missing'), env: { PATH: process.env['PATH'] } });
    await expect(attempt).rejects.toThrow(SANDBOX_EXEC_MISSING);
    expect(existsSync(join(ws, 'ran.txt'))).toBe(false);
  });
});
