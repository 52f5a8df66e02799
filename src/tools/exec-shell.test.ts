import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execShellTool, scrubbedEnv, type ExecShellOptions } from './exec-shell.js';
import { executeTool } from './executor.js';
import { BASH_MISSING, findProgram } from './launcher.js';
import { OUTPUT_CAP_BYTES } from './output-cap.js';
import { ToolRegistry } from './registry.js';
import { BWRAP_MISSING, findBwrap } from './sandbox.js';
import { useTempDirs } from './test-support/temp-dirs.js';
import { ToolError } from './tool.js';

const tempDir = useTempDirs();

/** True while `pid` is a live (not zombie) process. */
async function isAlive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat !== undefined) return !/^\d+ \(.*\) Z/.test(stat);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Poll until `pid` is gone; false if it is still alive after `attempts` tries. */
async function waitGone(pid: number, attempts = 100): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (!(await isAlive(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** Host processes running `sleep <marker>` (a marker no other process uses). */
async function sleepers(marker: string): Promise<number> {
  let found = 0;
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').includes(marker) && (await isAlive(Number(pid)))) found++;
  }
  return found;
}

/** Poll until no `sleep <marker>` is left; false if some still run after `attempts` tries. */
async function sleepersGone(marker: string, attempts = 100): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if ((await sleepers(marker)) === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** A sleep duration no other process on the machine is likely to use, as a marker. */
function marker(): string {
  return `${300 + Math.floor(Math.random() * 1e6)}.${Math.floor(Math.random() * 1e6)}`;
}

function run(ws: string, command: string, options: ExecShellOptions = {}): Promise<string> {
  return execShellTool(options).run({ command }, { workspace: ws, signal: new AbortController().signal });
}

const UNCONFINED: ExecShellOptions = { sandbox: 'none' };

/** A directory holding only `program` (a link to the one on PATH), to use as a PATH without the others. */
async function binWith(program: string): Promise<string> {
  const found = await findProgram(program, process.env['PATH']);
  if (found === undefined) throw new Error(`${program} is not installed on this machine; these tests need it`);
  const bin = await tempDir();
  await symlink(found, join(bin, program));
  return bin;
}

describe('exec_shell', () => {
  it('is mutating, not idempotent, with a 60 s default limit', () => {
    expect(execShellTool()).toMatchObject({ name: 'exec_shell', idempotent: false, mutating: true, timeoutMs: 60_000 });
    expect(execShellTool({ timeoutMs: 5 }).timeoutMs).toBe(5);
  });

  it('runs in the workspace — /workspace in the sandbox — and reports output and exit code', async () => {
    const ws = await tempDir();
    await expect(run(ws, 'pwd; echo err >&2')).resolves.toBe('/workspace\nerr\n[exit code: 0]');
    await expect(run(ws, 'echo hi > f.txt && cat f.txt')).resolves.toBe('hi\n[exit code: 0]');
    expect(await readFile(join(ws, 'f.txt'), 'utf8')).toBe('hi\n');
    await expect(run(ws, 'true')).resolves.toBe('[exit code: 0]');
    await expect(run(ws, 'pwd', UNCONFINED)).resolves.toBe(`${ws}\n[exit code: 0]`);
  });

  it('makes a non-zero exit a tool error that still shows the output', async () => {
    const ws = await tempDir();
    const attempt = run(ws, 'echo failing; exit 3');
    await expect(attempt).rejects.toBeInstanceOf(ToolError);
    await expect(attempt).rejects.toThrow('failing\n[exit code: 3]');
  });

  it('caps the output, keeping head and tail', async () => {
    const ws = await tempDir();
    const output = await run(ws, 'echo START; head -c 300000 /dev/zero | tr "\\0" x; echo; echo END');
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(OUTPUT_CAP_BYTES + 100);
    expect(output).toMatch(/^START\n/);
    expect(output).toMatch(/\[output truncated: \d+ bytes omitted\]/);
    expect(output).toMatch(/END\n\[exit code: 0\]$/);
  });

  it('unconfined, does not pass secret-looking environment variables to commands', async () => {
    const env = scrubbedEnv({ PATH: '/usr/bin:/bin', OPENAI_API_KEY: 'sk-x', GITHUB_TOKEN: 't', HOME: '/h' });
    expect(env).toEqual({ PATH: '/usr/bin:/bin', HOME: '/h' });
    const ws = await tempDir();
    const tool = execShellTool({ env: { PATH: '/usr/bin:/bin', OPENAI_API_KEY: 'sk-x', VISIBLE: 'yes' }, sandbox: 'none' });
    const output = await tool.run({ command: 'echo "$VISIBLE-$OPENAI_API_KEY"' }, { workspace: ws, signal: new AbortController().signal });
    expect(output).toBe('yes-\n[exit code: 0]');
  });

  it('unconfined, kills background jobs when the shell exits', async () => {
    const ws = await tempDir();
    await run(ws, 'sleep 30 > /dev/null 2>&1 & echo $! > bg.pid', UNCONFINED);
    const pid = Number(await readFile(join(ws, 'bg.pid'), 'utf8'));
    expect(await waitGone(pid)).toBe(true);
  });

  it('unconfined, times out through the executor and kills the whole process group', async () => {
    const ws = await tempDir();
    const registry = new ToolRegistry().register(execShellTool({ timeoutMs: 200, sandbox: 'none' }));
    const result = await executeTool(registry, 'exec_shell', { command: 'sleep 5 & echo $! > sleep.pid; wait' }, { workspace: ws });
    expect(result.status).toBe('timeout');
    expect(result.output).toMatch(/timed out after 200 ms/);
    const pid = Number(await readFile(join(ws, 'sleep.pid'), 'utf8'));
    expect(await waitGone(pid)).toBe(true);
  });

  it('stops when the run is cancelled', async () => {
    const ws = await tempDir();
    const registry = new ToolRegistry().register(execShellTool());
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(new Error('SIGINT')), 100);
    const result = await executeTool(registry, 'exec_shell', { command: 'sleep 5' }, { workspace: ws, signal: cancel.signal });
    expect(result).toMatchObject({ status: 'error', output: "tool 'exec_shell' was cancelled" });
  });
});

describe('exec_shell in the bubblewrap sandbox', () => {
  beforeAll(async () => {
    // Not a skip: a machine without bubblewrap cannot show that exec_shell is confined.
    if ((await findBwrap(process.env['PATH'])) === undefined) {
      throw new Error('bubblewrap (bwrap) is not installed on this machine; these tests need it: apt-get install bubblewrap');
    }
  });

  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('sees the system read-only and not the host’s accounts: /etc/passwd names only its own user, /etc/shadow is not there', async () => {
    const ws = await tempDir();
    const passwd = await run(ws, 'cat /etc/passwd');
    expect(passwd).toMatch(/^(root|agent):x:\d+:\d+:[^:]*:\/home\/agent:\/bin\/sh\n/);
    expect(passwd.split('\n').filter((line) => line.includes(':x:'))).toHaveLength(passwd.includes('nobody') ? 2 : 1);
    const hostPasswd = await readFile('/etc/passwd', 'utf8');
    for (const line of hostPasswd.split('\n').filter((l) => l !== '' && !l.startsWith('nobody:'))) expect(passwd).not.toContain(line);
    await expect(run(ws, 'test -e /etc/shadow && echo present || echo absent')).resolves.toBe('absent\n[exit code: 0]');
    await expect(run(ws, 'echo x > /etc/planted')).rejects.toThrow(/Read-only file system/);
    await expect(run(ws, 'touch /usr/planted')).rejects.toThrow(/Read-only file system/);
    await expect(run(ws, 'ls /root /opt /var /srv /mnt /run 2>&1 | grep -c "No such file"')).resolves.toBe('6\n[exit code: 0]');
  });

  it('can write in the workspace, its own /tmp and $HOME, and nowhere else', async () => {
    const ws = join(await tempDir(), 'ws');
    await mkdir(ws);
    await writeFile(join(ws, 'in.txt'), 'input\n');
    await expect(run(ws, 'cat in.txt > out.txt && echo ok > "$HOME/h" && cat "$HOME/h" && echo t > /tmp/t && cat /tmp/t')).resolves.toBe(
      'ok\nt\n[exit code: 0]',
    );
    expect(await readFile(join(ws, 'out.txt'), 'utf8')).toBe('input\n');
    await expect(run(ws, 'echo x > ../escaped.txt')).rejects.toThrow(/Read-only file system\n\[exit code: 2\]$/);
    await expect(run(ws, 'echo x > /escaped.txt')).rejects.toThrow(/Read-only file system/);
    expect(existsSync(join(dirname(ws), 'escaped.txt'))).toBe(false);
    // $HOME and /tmp are the sandbox's own, empty each call.
    await expect(run(ws, 'find "$HOME" /tmp -mindepth 1 | wc -l')).resolves.toBe('0\n[exit code: 0]');
  });

  it('does not see agentctl’s environment: not in `env`, not in any /proc/*/environ', async () => {
    const ws = await tempDir();
    const hostEnv: Record<string, string | undefined> = {
      ...process.env, SECRET_TOKEN: 'tok-sandbox-0123', HARMLESS_SETTING: 'harmless-value', LANG: 'C.UTF-8',
    };
    const options: ExecShellOptions = { env: hostEnv };
    const env = await run(ws, 'env', options);
    const names = env.split('\n').filter((line) => line.includes('=')).map((line) => line.slice(0, line.indexOf('=')));
    const passed = Object.keys(hostEnv).filter((name) => /^(LC_[A-Z]+|LANGUAGE|TZ|TERM)$/.test(name));
    expect(names.sort()).toEqual(['HOME', 'LANG', 'LOGNAME', 'PATH', 'PWD', 'SHELL', 'TMPDIR', 'USER', ...passed].sort());
    expect(env).not.toContain('tok-sandbox-0123');
    expect(env).not.toContain('harmless-value');
    expect(env).toContain('HOME=/home/agent\n');
    // Every process it can see is its own: pid 1 (bwrap's reaper, started with the sandbox's environment), its parent, itself.
    const environs = await run(ws, 'echo "parent $PPID"; for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < "$f"; done', options);
    expect(environs).toMatch(/^parent 1\n/);
    expect(environs).not.toContain('tok-sandbox-0123');
    expect(environs).not.toContain('harmless-value');
    if (process.env['HOME'] !== undefined) expect(environs).not.toContain(`HOME=${process.env['HOME']}\n`);
    await expect(run(ws, `test -e /proc/${process.pid} && echo visible || echo hidden`)).resolves.not.toContain('visible');
  });

  it('has no network unless the config allows it: a server on the host’s 127.0.0.1 is unreachable, then reachable', async () => {
    const ws = await tempDir();
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.end('hello from the host\n');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    // Shell-only: bash's /dev/tcp, and the interfaces the network namespace has.
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`;
    const bash = (command: string): string => `bash -c '${command}' 2>&1`;

    const off = await run(ws, `${bash(connect)}; echo "exit $?"; grep -c : /proc/net/dev`);
    expect(off).toMatch(/Connection refused/);
    expect(off).toMatch(/exit 1\n1\n\[exit code: 0\]$/); // only the loopback interface
    expect(connections).toBe(0);

    const on = await run(ws, bash(connect), { sandbox: { network: true } });
    expect(on).toBe('hello from the host\n[exit code: 0]');
    expect(connections).toBe(1);
  });

  it('runs in its own PID namespace, without capabilities', async () => {
    const ws = await tempDir();
    const output = await run(ws, 'echo $$; ls /proc | grep -c "^[0-9]"; grep CapEff /proc/self/status');
    const [pid, count, caps] = output.split('\n');
    expect(Number(pid)).toBeLessThan(10);
    expect(Number(count)).toBeLessThan(10);
    expect(caps).toMatch(/^CapEff:\s+0+$/);
  });

  it('kills everything in the sandbox on timeout, and background jobs when the shell exits', async () => {
    const ws = await tempDir();
    const [a, b, c] = [marker(), marker(), marker()];
    const registry = new ToolRegistry().register(execShellTool({ timeoutMs: 300 }));
    const result = await executeTool(registry, 'exec_shell', { command: `sleep ${a} & (sleep ${b} &); sleep ${c}` }, { workspace: ws });
    expect(result).toMatchObject({ status: 'timeout', output: "tool 'exec_shell' timed out after 300 ms and was stopped" });
    for (const m of [a, b, c]) expect(await sleepersGone(m)).toBe(true);

    const d = marker();
    await expect(run(ws, `sleep ${d} > /dev/null 2>&1 & echo started`)).resolves.toBe('started\n[exit code: 0]');
    expect(await sleepersGone(d)).toBe(true);
  });

  it('is refused with one line saying how to install bubblewrap when bwrap is not on PATH', async () => {
    const ws = await tempDir();
    const attempt = run(ws, 'echo should not run > ran.txt', { env: { PATH: '/nonexistent:/also-not-here' } });
    await expect(attempt).rejects.toBeInstanceOf(ToolError);
    await expect(attempt).rejects.toThrow(BWRAP_MISSING);
    expect(BWRAP_MISSING).not.toContain('\n');
    expect(BWRAP_MISSING).toMatch(/apt-get install bubblewrap/);
    expect(BWRAP_MISSING).toMatch(/"sandbox": "none"/);
    expect(existsSync(join(ws, 'ran.txt'))).toBe(false);
    // Unconfined needs no bwrap, only bash (which starts every command).
    const onlyBash = await binWith('bash');
    await expect(run(ws, 'echo ran', { env: { PATH: onlyBash }, sandbox: 'none' })).resolves.toBe('ran\n[exit code: 0]');
  });

  it('is refused with one line saying how to install bash when bash is not on PATH, sandboxed or not', async () => {
    const ws = await tempDir();
    for (const options of [{ env: { PATH: await binWith('bwrap') } }, { env: { PATH: '/nonexistent' }, sandbox: 'none' }] satisfies ExecShellOptions[]) {
      const attempt = run(ws, 'echo should not run > ran.txt', options);
      await expect(attempt).rejects.toBeInstanceOf(ToolError);
      await expect(attempt).rejects.toThrow(BASH_MISSING);
    }
    expect(BASH_MISSING).not.toContain('\n');
    expect(BASH_MISSING).toMatch(/apt-get install bash/);
    expect(existsSync(join(ws, 'ran.txt'))).toBe(false);
  });

  it('says so when the sandbox cannot start (bwrap fails before the command runs)', async () => {
    const ws = await tempDir();
    const bin = await tempDir();
    const fake = '#!/bin/sh\necho "bwrap: No permissions to create a new namespace" >&2\nexit 1\n';
    await writeFile(join(bin, 'bwrap'), fake, { mode: 0o755 });
    const attempt = run(ws, 'true', { env: { PATH: `${bin}:/usr/bin:/bin` } });
    await expect(attempt).rejects.toBeInstanceOf(ToolError);
    await expect(attempt).rejects.toThrow(
      'the sandbox could not start (bwrap: No permissions to create a new namespace); see "sandbox" in the agentctl docs, or set "sandbox": "none" to run commands unconfined',
    );
  });

  it('tells a command’s own failure from the sandbox’s, whatever the command prints', async () => {
    const ws = await tempDir();
    const attempt = run(ws, 'echo "bwrap: not really"; exit 1');
    await expect(attempt).rejects.toThrow(/^bwrap: not really\n\[exit code: 1\]$/);
  });
});
