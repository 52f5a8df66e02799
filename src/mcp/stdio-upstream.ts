/**
 * An MCP server as a child process speaking on its standard input and output (the protocol's stdio
 * transport: one JSON message per line). The process is started through the launcher that starts
 * exec_shell's commands (tools/launcher.ts): it closes every descriptor agentctl holds before the
 * server runs, so a server never holds the store's files open. Its standard error goes where the
 * caller says (agentctl's own, by default: a server's log is the user's to read).
 *
 * Stopping it follows the protocol's advice: close its input, wait, then SIGTERM, then SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import { InvalidOptionError } from '../core/errors.js';
import { BASH_MISSING, findProgram, launch } from '../tools/launcher.js';
import { LineSplitter, readMessage, type JsonRpcMessage } from './protocol.js';
import type { McpServerHandlers, McpServerPort, McpUpstream } from './upstream.js';

export interface StdioServerOptions {
  command: string;
  args?: readonly string[];
  /** The server's whole environment (the caller decides what of its own it passes on). */
  env: NodeJS.ProcessEnv;
  /** Its working directory; default the current one. */
  cwd?: string;
  /** Where its standard error goes: agentctl's (default), nowhere, or a function given each chunk. */
  stderr?: 'inherit' | 'ignore' | ((chunk: Buffer) => void);
  /** A line on its standard output that is not a JSON-RPC message (servers that print logs there): default ignored. */
  onNoise?(line: string, problem: string): void;
  /** How long each step of stopping it waits before the next (close input → SIGTERM → SIGKILL). Default 2000 ms. */
  stopGraceMs?: number;
}

/** How a process ended, in words. */
export function exitReason(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal !== null) return `killed by ${signal}`;
  return `exited with code ${code ?? 'unknown'}`;
}

export function stdioUpstream(options: StdioServerOptions): McpUpstream {
  const label = [options.command, ...(options.args ?? [])].join(' ');
  return { label, open: (handlers) => openProcess(options, label, handlers) };
}

/** The program to start: a path as given (relative to cwd), or a name found on the server's PATH. */
async function programOf(options: StdioServerOptions, label: string): Promise<string> {
  const { command } = options;
  if (command.includes('/')) return isAbsolute(command) ? command : resolve(options.cwd ?? process.cwd(), command);
  const found = await findProgram(command, options.env['PATH']);
  if (found === undefined) throw new InvalidOptionError(`MCP server '${label}' could not be started: '${command}' is not on its PATH`);
  return found;
}

async function openProcess(options: StdioServerOptions, label: string, handlers: McpServerHandlers): Promise<McpServerPort> {
  const program = await programOf(options, label);
  const bash = await findProgram('bash', options.env['PATH'] ?? process.env['PATH']);
  if (bash === undefined) throw new InvalidOptionError(`MCP server '${label}' could not be started: ${BASH_MISSING}`);
  const started = launch(bash, { keepThrough: 2, clearEnv: false }, program, options.args ?? []);
  const stderr = options.stderr ?? 'inherit';
  const child: ChildProcess = spawn(started.file, started.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', typeof stderr === 'function' ? 'pipe' : stderr],
    windowsHide: true,
  });
  await new Promise<void>((ready, fail) => {
    child.once('spawn', ready);
    child.once('error', (error) => fail(new InvalidOptionError(`MCP server '${label}' could not be started: ${error.message}`, { cause: error })));
  });
  if (typeof stderr === 'function') child.stderr?.on('data', stderr);

  let ended = false;
  let closing: Promise<void> | undefined;
  const closed = new Promise<void>((done) => {
    child.once('close', (code, signal) => {
      ended = true;
      handlers.ended(exitReason(code, signal));
      done();
    });
  });
  const lines = new LineSplitter(
    (line) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        options.onNoise?.(line, 'not JSON');
        return;
      }
      const message = readMessage(value);
      if (typeof message === 'string') options.onNoise?.(line, message);
      else handlers.message(message);
    },
    (bytes) => options.onNoise?.('', `a line of ${bytes} bytes, longer than agentctl reads, was dropped`),
  );
  child.stdout?.on('data', (chunk: Buffer) => lines.push(chunk));
  child.stdout?.on('end', () => lines.end());
  // A server that exits while a write is under way: the write's error is the end, which `close` reports.
  child.stdin?.on('error', () => undefined);

  const send = (message: JsonRpcMessage): Promise<void> =>
    new Promise((sent, fail) => {
      const input = child.stdin;
      if (ended || input === null || input.destroyed || input.writableEnded) {
        fail(new Error(`MCP server '${label}' has ended`));
        return;
      }
      input.write(`${JSON.stringify(message)}\n`, (error) => (error === null || error === undefined ? sent() : fail(error)));
    });

  const grace = options.stopGraceMs ?? 2000;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      if (ended) return;
      child.stdin?.end();
      if (await settlesWithin(closed, grace)) return;
      child.kill('SIGTERM');
      if (await settlesWithin(closed, grace)) return;
      child.kill('SIGKILL');
      await closed;
    })();
    return closing;
  };
  return { send, close };
}

/** Whether `promise` settles within `ms` (the timer does not keep the process alive). */
function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((answer) => {
    const timer = setTimeout(() => answer(false), ms);
    timer.unref();
    void promise.then(() => {
      clearTimeout(timer);
      answer(true);
    });
  });
}
