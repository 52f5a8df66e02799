/**
 * `exec_shell`: run a command with `/bin/sh -c` in the workspace — by default inside a sandbox that
 * gives it the workspace, the system read-only and no network: bubblewrap on Linux (sandbox.ts, the
 * workspace at `/workspace`), sandbox-exec on macOS (seatbelt-shell.ts); with config
 * `sandbox: "none"`, unconfined in the workspace directory. Without the sandbox's program, the call
 * is refused (one line saying how to install it or turn the sandbox off: shell-sandbox.ts).
 * Either way the command is started by the launcher (launcher.ts), so it inherits none of
 * agentctl's open files (the store's among them); without bash, the call is refused the same way.
 *
 * The command gets its own process group, so a timeout or cancellation kills everything it started
 * (pipelines, `&` jobs), and the group is also killed when the shell exits: a tool call leaves no
 * processes behind. In bubblewrap, killing bwrap ends its PID namespace, and all that is in it.
 *
 * Semantics: mutating and not idempotent — a command can do anything, including things that must
 * not happen twice.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { OUTPUT_CAP_BYTES, OutputCollector } from './output-cap.js';
import { builtinArgsJson } from './args-json.js';
import { parseArgs } from './tool-args.js';
import { ToolError, type Tool } from './tool.js';
import { BASH_MISSING, findProgram, launch } from './launcher.js';
import { DEFAULT_SANDBOX, sandboxedShell, type SandboxSetting } from './sandbox.js';
import { makePrivateDir, seatbeltShell } from './seatbelt-shell.js';
import { findShellSandbox } from './shell-sandbox.js';
import { resolveInWorkspace } from './workspace.js';

/**
 * Environment variables not passed to commands: the model could print them, and tool output is
 * written to tapes. (Tapes are redacted too; this keeps secrets from reaching the model at all.)
 */
export const SECRET_ENV_PATTERN = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_?KEY)/i;

/** Room kept under the shared cap for the exit-code line, so the executor never cuts it off. */
const EXIT_LINE_RESERVE = 256;
/** How long to wait for the pipes to close after the shell exits (a process that left the group may hold them). */
const CLOSE_GRACE_MS = 1000;

/** Options of the `exec_shell` tool. */
export interface ExecShellOptions {
  timeoutMs?: number;
  /**
   * The environment commands' environments are drawn from; default: this process's. Unconfined, a
   * command gets it minus names matching SECRET_ENV_PATTERN; in the sandbox, only its locale, time
   * zone and TERM. Its PATH is where `bash` and `bwrap` are looked for.
   */
  env?: Record<string, string | undefined>;
  /** Config `sandbox`; default: sandboxed without network. */
  sandbox?: SandboxSetting;
  /** Which platform's sandbox confines commands (shell-sandbox.ts); default: this one's. */
  platform?: NodeJS.Platform;
  /** Where macOS's `sandbox-exec` is; default `/usr/bin/sandbox-exec`. Tests point it elsewhere. */
  sandboxExec?: string;
}

/** `process.env` without variables whose names look like secrets. */
export function scrubbedEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !SECRET_ENV_PATTERN.test(name)));
}

/** bash on `path`, which starts every command (launcher.ts); a ToolError saying so when it is not there. */
async function launcherOn(path: string | undefined): Promise<string> {
  const bash = await findProgram('bash', path);
  if (bash === undefined) throw new ToolError(BASH_MISSING);
  return bash;
}

/** Signal the whole process group led by `pid`; it may already be gone. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left in the group. Nothing to do.
  }
}

/** What to spawn: a program, its arguments, environment and directory, and data for fds 3, 4, …. */
interface Spawnable {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  fdData?: string[];
  /** A file descriptor (after the data's) the command writes to once it has started. */
  startFd?: number;
  /** The sandbox's program (bwrap, sandbox-exec), whose own messages say why it did not start. */
  sandboxProgram?: string;
  /** A directory made for this command alone, removed when it ends. */
  privateDir?: string;
}

interface ShellResult {
  output: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Something arrived on `startFd` (always true without one). */
  started: boolean;
}

/** Run `what`, collecting combined stdout/stderr; rejects with `signal.reason` on abort. */
function runShell(what: Spawnable, signal: AbortSignal): Promise<ShellResult> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    const fdData = what.fdData ?? [];
    const extraFds = Math.max(fdData.length, (what.startFd ?? 0) - 2);
    const child = spawn(what.file, what.args, {
      cwd: what.cwd,
      env: what.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...Array.from({ length: extraFds }, () => 'pipe' as const)],
    });
    const [, stdout, stderr] = child.stdio;
    if (!(stdout instanceof Readable) || !(stderr instanceof Readable)) throw new Error('spawn gave no output pipes');
    fdData.forEach((data, i) => {
      const stream = child.stdio[3 + i];
      if (!(stream instanceof Writable)) return;
      // bwrap reads these while it sets up; if it fails first, the write's EPIPE is not ours to report.
      stream.on('error', () => undefined);
      stream.end(data);
    });
    let started = what.startFd === undefined;
    const startStream = what.startFd === undefined ? undefined : child.stdio[what.startFd];
    if (startStream instanceof Readable) {
      startStream.on('error', () => undefined);
      startStream.on('data', () => (started = true));
    }
    const output = new OutputCollector(OUTPUT_CAP_BYTES - EXIT_LINE_RESERVE);
    stdout.on('data', (chunk: Buffer) => output.push(chunk));
    stderr.on('data', (chunk: Buffer) => output.push(chunk));

    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (finish: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(graceTimer);
      signal.removeEventListener('abort', onAbort);
      finish();
    };
    const finishOk = (): void =>
      settle(() => resolve({ output: output.text(), code: exit?.code ?? null, signal: exit?.signal ?? null, started }));
    const onAbort = (): void => {
      killGroup(child.pid);
      stdout.destroy();
      stderr.destroy();
      // Report once the shell is reaped, so the caller knows the command has stopped.
      if (exit !== undefined) settle(() => reject(signal.reason));
    };
    signal.addEventListener('abort', onAbort, { once: true });

    child.on('error', (error) => settle(() => reject(new ToolError(`could not start ${what.file}: ${error.message}`, { cause: error }))));
    child.on('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      if (signal.aborted) {
        settle(() => reject(signal.reason));
        return;
      }
      killGroup(child.pid); // background jobs must not outlive the call
      graceTimer = setTimeout(() => {
        stdout.destroy();
        stderr.destroy();
        finishOk();
      }, CLOSE_GRACE_MS);
    });
    child.on('close', () => {
      if (exit !== undefined && !signal.aborted) finishOk();
    });
  });
}

/** The `exec_shell` tool. Not idempotent, mutating. */
export function execShellTool(options: ExecShellOptions = {}): Tool {
  const sandbox = options.sandbox ?? DEFAULT_SANDBOX;
  return {
    name: 'exec_shell',
    description:
      'Run a shell command (/bin/sh -c) in the workspace directory. Returns combined stdout and stderr and the exit code; a non-zero exit code is an error. Output is capped; background processes are killed when the command ends.',
    parameters: builtinArgsJson('exec_shell'),
    idempotent: false,
    mutating: true,
    timeoutMs: options.timeoutMs ?? 60_000,
    async run(args, ctx) {
      const { command } = await parseArgs('exec_shell', args);
      const cwd = await resolveInWorkspace(ctx.workspace, '.');
      const hostEnv = options.env ?? process.env;
      let what: Spawnable;
      if (sandbox === 'none') {
        const bash = await launcherOn(hostEnv['PATH']);
        what = { ...launch(bash, { keepThrough: 2, clearEnv: false }, '/bin/sh', ['-c', command]), cwd, env: scrubbedEnv(hostEnv) };
      } else {
        const found = await findShellSandbox({ platform: options.platform ?? process.platform, path: hostEnv['PATH'], ...(options.sandboxExec === undefined ? {} : { sandboxExec: options.sandboxExec }) });
        if ('missing' in found) throw new ToolError(found.missing);
        const bash = await launcherOn(hostEnv['PATH']);
        const sandboxOptions = { workspace: cwd, hidden: ctx.hidden ?? [], network: sandbox.network, hostEnv };
        if (found.kind === 'bubblewrap') {
          what = { ...(await sandboxedShell(found.program, bash, command, sandboxOptions)), cwd, sandboxProgram: found.program };
        } else {
          const privateDir = await makePrivateDir();
          const shell = seatbeltShell(found.program, bash, command, { ...sandboxOptions, privateDir });
          what = { ...shell, cwd, sandboxProgram: found.program, privateDir };
        }
      }
      let result: ShellResult;
      try {
        result = await runShell(what, ctx.signal);
      } finally {
        if (what.privateDir !== undefined) await rm(what.privateDir, { recursive: true, force: true });
      }
      if (!result.started) {
        // The sandbox itself failed (no user namespaces, a mount refused, a profile refused): the command never ran.
        const program = basename(what.sandboxProgram ?? 'sandbox');
        const lines = result.output.split('\n');
        const reason = lines.find((line) => line.startsWith(`${program}: `)) ?? lines[0] ?? '';
        throw new ToolError(
          `the sandbox could not start (${reason.trim() || `${program} exit code ${result.code ?? 'unknown'}`}); ` +
            'see "sandbox" in the agentctl docs, or set "sandbox": "none" to run commands unconfined',
        );
      }
      const body = result.output === '' || result.output.endsWith('\n') ? result.output : `${result.output}\n`;
      if (result.signal !== null) throw new ToolError(`${body}[killed by signal ${result.signal}]`);
      if (result.code !== 0) throw new ToolError(`${body}[exit code: ${result.code ?? 'unknown'}]`);
      return `${body}[exit code: 0]`;
    },
  };
}
