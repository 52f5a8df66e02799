/**
 * A real terminal for end-to-end tests: a detached tmux session of exactly 80×24 on a tmux server
 * of its own (`tmux -L <socket>`), running an interactive `bash --norc` with CI unset, so the
 * binary sees two TTYs and opens its terminal UI as it would for a person.
 *
 *   const term = await openTerminal({ cwd });
 *   try {
 *     await term.type(`${BIN} replay tapes/demo-loop.tape.jsonl --no-save`);
 *     await term.waitFor((s) => s.text.includes('REPLAYING'), 'the UI');
 *     await term.press('q');
 *     await term.waitForPrompt();
 *     expect(await term.exitCode()).toBe(0);
 *   } finally {
 *     await term.kill();
 *   }
 *
 * Everything waits by polling the screen (every 50 ms, up to a bound), never by sleeping.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';

export const COLUMNS = 80;
export const ROWS = 24;
/** What the shell prints as its prompt: unique, so "the prompt is back" is easy to see. */
export const PROMPT = 'tui-e2e$';

const POLL_MS = 50;
const DEFAULT_WAIT_MS = 10_000;

/** Throws a clear error unless tmux can be run: the tests must fail, not skip, without it. */
export function requireTmux(): string {
  try {
    return execFileSync('tmux', ['-V'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (error) {
    throw new Error(
      'tmux is not installed (or cannot run): the terminal UI tests drive the real binary in a real terminal through tmux. ' +
        'Install it — `apt-get install tmux` (Debian/Ubuntu), `brew install tmux` (macOS) — and run the tests again. ' +
        `(${(error as Error).message})`,
    );
  }
}

export interface Screen {
  /** Exactly ROWS lines, trailing spaces removed. */
  lines: string[];
  /** The lines joined with newlines. */
  text: string;
  /** True while the program shows the alternate screen. */
  alternate: boolean;
}

export interface TerminalOptions {
  cwd: string;
  /** Extra environment for the shell; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
}

export interface Terminal {
  readonly socket: string;
  /** Type a command line and press Enter. */
  type(line: string): Promise<void>;
  /** Press keys, each as its own key press (tmux key names: `q`, `G`, `C-c`, `Escape`, …). */
  press(...keys: string[]): Promise<void>;
  /** The visible screen now. */
  screen(): Promise<Screen>;
  /** The visible screen with wrapped lines joined again (for long lines printed after the UI). */
  joinedLines(): Promise<string[]>;
  /** Poll the screen until `ready` holds; fails with `what` and the last screen after `timeoutMs`. */
  waitFor(ready: (screen: Screen) => boolean, what: string, timeoutMs?: number): Promise<Screen>;
  /** Wait until the shell shows an empty prompt on the last non-blank line (the program is gone). */
  waitForPrompt(timeoutMs?: number): Promise<Screen>;
  /** `echo EXIT=$?` at the prompt, and what it printed. Call right after `waitForPrompt`. */
  exitCode(): Promise<number>;
  /** Type a command and return the lines it printed before the next prompt. */
  run(line: string, timeoutMs?: number): Promise<string[]>;
  /** Kill this tmux server (and so the shell and anything still running in it). */
  kill(): Promise<void>;
}

function tmux(socket: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-L', socket, ...args], { encoding: 'utf8', timeout: 5_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`tmux ${args.join(' ')}: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}

/** Quote a word for bash. */
export function sh(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function render(screen: Screen): string {
  const rule = '-'.repeat(COLUMNS);
  return `${rule}\n${screen.lines.map((l, i) => `${String(i + 1).padStart(2)}|${l}`).join('\n')}\n${rule} (alternate screen: ${String(screen.alternate)})`;
}

/** Start a tmux server of its own with one 80×24 session running `bash --norc`, at its prompt. */
export async function openTerminal(options: TerminalOptions): Promise<Terminal> {
  requireTmux();
  const socket = `agentctl-e2e-${process.pid}-${randomBytes(4).toString('hex')}`;
  const target = 'e2e';
  // The shell gets no CI variables (the UI does not open under CI), no model credentials, no user
  // rc files and no history file; the prompt is fixed. No NODE_ENV either, as a user's shell has
  // none: vitest sets it to `test`, which would choose React's build for the UI instead of agentctl.
  const unset = ['CI', 'CONTINUOUS_INTEGRATION', 'TMUX', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'AGENTCTL_STORE', 'NO_COLOR', 'FORCE_COLOR', 'NODE_ENV'];
  const set: Record<string, string> = { PS1: `${PROMPT} `, PS2: '> ', HISTFILE: '/dev/null', PROMPT_COMMAND: '' };
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) unset.push(key);
    else set[key] = value;
  }
  const command = [
    'env',
    ...unset.flatMap((key) => ['-u', key]),
    ...Object.entries(set).map(([key, value]) => sh(`${key}=${value}`)),
    'bash',
    '--norc',
    '--noprofile',
  ].join(' ');
  await tmux(socket, ['-f', '/dev/null', 'new-session', '-d', '-s', target, '-x', String(COLUMNS), '-y', String(ROWS), '-c', options.cwd, command]);
  const socketPath = (await tmux(socket, ['display-message', '-p', '#{socket_path}'])).trim();

  const term: Terminal = {
    socket,
    async type(line) {
      await tmux(socket, ['send-keys', '-t', target, '-l', line]);
      await tmux(socket, ['send-keys', '-t', target, 'Enter']);
    },
    async press(...keys) {
      // One send-keys per key: keys that arrive together reach the program as one chunk of input.
      for (const key of keys) await tmux(socket, ['send-keys', '-t', target, key]);
    },
    async screen() {
      const [text, alternate] = await Promise.all([
        tmux(socket, ['capture-pane', '-p', '-t', target]),
        tmux(socket, ['display-message', '-p', '-t', target, '#{alternate_on}']),
      ]);
      const lines = text.replace(/\n$/, '').split('\n').map((l) => l.trimEnd());
      while (lines.length < ROWS) lines.push('');
      return { lines, text: lines.join('\n'), alternate: alternate.trim() === '1' };
    },
    async joinedLines() {
      const text = await tmux(socket, ['capture-pane', '-p', '-J', '-t', target]);
      return text.replace(/\n$/, '').split('\n').map((l) => l.trimEnd());
    },
    async waitFor(ready, what, timeoutMs = DEFAULT_WAIT_MS) {
      const deadline = Date.now() + timeoutMs;
      let last = await term.screen();
      while (!ready(last)) {
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the screen:\n${render(last)}`);
        await sleep(POLL_MS);
        last = await term.screen();
      }
      return last;
    },
    waitForPrompt(timeoutMs) {
      return term.waitFor((s) => !s.alternate && s.lines.filter((l) => l !== '').at(-1) === PROMPT, 'the shell prompt', timeoutMs);
    },
    async exitCode() {
      const lines = await term.run('echo EXIT=$?');
      const line = lines.find((l) => /^EXIT=\d+$/.test(l));
      if (line === undefined) throw new Error(`no EXIT= line after 'echo EXIT=$?': ${JSON.stringify(lines)}`);
      return Number(line.slice('EXIT='.length));
    },
    async run(line, timeoutMs) {
      // A marker after the command: its output is what comes between the command line and the marker.
      const marker = `__done_${randomBytes(3).toString('hex')}__`;
      await term.type(`${line}; echo ${marker}`);
      await term.waitFor((s) => s.lines.includes(marker), `'${line}' to finish`, timeoutMs);
      const lines = await term.joinedLines();
      const end = lines.lastIndexOf(marker);
      const start = lines.findLastIndex((l, i) => i < end && l.startsWith(`${PROMPT} ${line}`));
      return lines.slice(start + 1, end);
    },
    async kill() {
      await tmux(socket, ['kill-server']).catch(() => undefined);
      // tmux leaves its socket file behind.
      if (socketPath !== '') await rm(socketPath, { force: true });
    },
  };
  await term.waitFor((s) => s.lines[0] === PROMPT, 'the shell to start');
  const size = (await tmux(socket, ['display-message', '-p', '-t', target, '#{pane_width}x#{pane_height}'])).trim();
  if (size !== `${COLUMNS}x${ROWS}`) {
    await term.kill();
    throw new Error(`the tmux pane is ${size}, not ${COLUMNS}x${ROWS}`);
  }
  return term;
}
