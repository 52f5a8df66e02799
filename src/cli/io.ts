import { fstatSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Tty from 'node:tty';
import { IoError } from '../core/errors.js';

/** Flags every command accepts (README, "Commands"). */
export interface GlobalOptions {
  store?: string;
  json?: boolean;
  tui?: boolean;
  quiet?: boolean;
}

/** Write a line to standard output (buffered: see writeOut). */
export function out(line: string): void {
  writeOut(`${line}\n`);
}

/** Text written once the buffer holds this much. */
const FLUSH_AT = 64 * 1024;
let buffered = '';
let flushQueued = false;
let flushOnExit = false;

/**
 * Write text to standard output, in batches: it joins a buffer that is written when it holds 64 KB,
 * at the end of the current turn of the event loop, and before the process exits. A replay printing
 * 100,000 NDJSON lines then makes a few hundred writes instead of one system call per line, and a
 * reader still sees each line as soon as the run waits for anything. Everything the CLI prints to
 * standard output goes through here, so lines keep their order.
 */
export function writeOut(text: string): void {
  buffered += text;
  if (!flushOnExit) {
    flushOnExit = true;
    process.on('exit', flushOut);
  }
  if (buffered.length >= FLUSH_AT) flushOut();
  else if (!flushQueued) {
    flushQueued = true;
    setImmediate(() => {
      flushQueued = false;
      flushOut();
    });
  }
}

/** Write what writeOut holds now. */
export function flushOut(): void {
  if (buffered === '') return;
  const text = buffered;
  buffered = '';
  writeStdout(text);
}

/** Whether standard output is still written to its descriptor directly (see writeStdout). */
let direct = true;

/**
 * Standard output as Node's stream, for what needs one (the terminal UI, a piped export, a check
 * for a terminal). From then on writeOut goes through it too, so nothing written is reordered.
 */
export function stdoutStream(): NodeJS.WriteStream {
  if (direct) {
    direct = false;
    process.stdout.on('error', outputFailed);
  }
  return process.stdout;
}

/**
 * Whether standard input and output are terminals, asked of their descriptors: reading
 * `process.stdin.isTTY` or `process.stdout.isTTY` would create Node's stream for each (milliseconds each,
 * and standard output would then be written through its stream for the rest of the run).
 * `node:tty` loads the stream machinery itself, so it is loaded only when asked (by `ls` only on a terminal).
 */
export function stdinIsTerminal(): boolean {
  return tty().isatty(0);
}

export function stdoutIsTerminal(): boolean {
  return tty().isatty(1);
}

/**
 * How wide lines should be to fit where standard output goes: the terminal's width when it is one,
 * else `$COLUMNS` when set (a pipe to a pager, a script that says so), else undefined — a pipe or a
 * file takes lines of any length, and cutting them would lose what a `grep` looks for.
 */
export function outputWidth(env: NodeJS.ProcessEnv = process.env): number | undefined {
  // Only on a terminal is the stream (which knows its width) worth creating; a pipe or a file is
  // told from one by fstat, without loading node:tty.
  if (isCharacterDevice(1) && stdoutIsTerminal()) {
    const columns = stdoutStream().columns;
    if (columns > 0) return columns;
  }
  const columns = Number(env['COLUMNS']);
  return Number.isInteger(columns) && columns > 0 ? columns : undefined;
}

function isCharacterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

let ttyModule: typeof Tty | undefined;
const tty = (): typeof Tty => (ttyModule ??= createRequire(import.meta.url)('node:tty') as typeof Tty);

/**
 * Standard output could not be written. A closed pipe (`agentctl … | head`) ends the output quietly,
 * as for any Unix tool; anything else (a full disk, an I/O error) is one line and the exit code of
 * an IoError. Either way the process ends here: the output cannot go on, and this may run where
 * nothing can catch a throw (a stream's error event, the process's exit).
 */
function outputFailed(error: NodeJS.ErrnoException): never {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  const failure = new IoError(`cannot write to standard output: ${error.message}`, { cause: error });
  writeSync(2, `agentctl: ${failure.message}\n`);
  process.exit(failure.exitCode);
}

/**
 * Text to standard output, written to its descriptor with writeSync while nothing needs the stream:
 * loading the stream machinery behind process.stdout costs milliseconds, more than all the work of
 * `ls`. A descriptor that is non-blocking and full (EAGAIN) sends the rest, and
 * everything after it, through the stream, which waits until it can write. Node itself makes a pipe
 * non-blocking when it creates process.stdout or process.stderr on it (commander reads the width of
 * standard output for its help; a note goes to standard error, which may be the same pipe), and so
 * may the program at the other end.
 */
function writeStdout(text: string): void {
  if (!direct) {
    stdoutStream().write(text);
    return;
  }
  const bytes = Buffer.from(text);
  let at = 0;
  try {
    while (at < bytes.length) at += writeSync(1, bytes, at);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') outputFailed(error as NodeJS.ErrnoException);
    stdoutStream().write(bytes.subarray(at));
  }
}

/** Write a line to standard error (progress, notes), after what standard output holds (see writeOut). */
export function note(line: string): void {
  flushOut();
  process.stderr.write(`${line}\n`);
}
