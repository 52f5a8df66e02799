/** Flags every command accepts (README, "Commands"). */
export interface GlobalOptions {
  store?: string;
  json?: boolean;
  tui?: boolean;
  quiet?: boolean;
}

/** Write a line to standard output. */
export function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Write a line to standard error (progress, notes). */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}
