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
  process.stdout.write(text);
}

/** Write a line to standard error (progress, notes), after what standard output holds (see writeOut). */
export function note(line: string): void {
  flushOut();
  process.stderr.write(`${line}\n`);
}
