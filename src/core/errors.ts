/**
 * The error family of agentctl. Every expected failure is an `AgentctlError` subclass with a fixed
 * exit code (README, "Exit codes"); the CLI's single top-level handler prints `message` (and
 * `hint`) on one line and exits with `exitCode`. Anything else is a bug: stack printed, exit 1.
 */
export class AgentctlError extends Error {
  /** Process exit code for this failure. */
  readonly exitCode: number;
  /** An optional second line telling the user what to do next. */
  readonly hint: string | undefined;

  constructor(message: string, exitCode: number, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.hint = options.hint;
  }
}

/** Bad flag, bad `--patch`/`--set` syntax, bad config, missing input (exit 2). */
export class UsageError extends AgentctlError {
  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, 2, options);
  }
}

/** What every replay says when the tape has no answer for a call: the built-in loop, the library, the proxy. */
export function exhaustedMessage(iteration: number): string {
  return `tape exhausted at iteration ${iteration}`;
}

/** The tape ran out and the fallback is `error` (exit 8). */
export class TapeExhaustedError extends AgentctlError {
  readonly iteration: number;
  constructor(iteration: number) {
    super(exhaustedMessage(iteration), 8, { hint: 'use --fallback live to continue against a real model' });
    this.iteration = iteration;
  }
}

/** Bad tape or store data: corrupt, truncated, wrong version, failed validation (exit 9). */
export class TapeFormatError extends AgentctlError {
  readonly file: string | undefined;
  readonly line: number | undefined;
  /** What is wrong, without the file and line. */
  readonly detail: string;
  constructor(detail: string, where: { file?: string; line?: number } = {}, options: { cause?: unknown } = {}) {
    const place = where.file === undefined ? '' : where.line === undefined ? `${where.file}: ` : `${where.file}:${where.line}: `;
    super(`${place}${detail}`, 9, options);
    this.file = where.file;
    this.line = where.line;
    this.detail = detail;
  }
}

/** A run id or tape file that does not exist (exit 10). */
export class NotFoundError extends AgentctlError {
  constructor(message: string, options: { hint?: string } = {}) {
    super(message, 10, options);
  }
}

/**
 * The store cannot be written (disk full, an I/O error) while recording or importing (exit 2, as a
 * store path that cannot be used). What was written before is kept: the run is listed `incomplete`.
 */
export class StoreWriteError extends AgentctlError {
  constructor(dir: string, cause: unknown) {
    const code = (cause as { code?: unknown } | null)?.code;
    const what = cause instanceof Error ? cause.message : String(cause);
    super(`cannot write to the store ${dir}: ${typeof code === 'string' && !what.includes(code) ? `${code}: ` : ''}${what}`, 2, {
      hint: 'free some space or fix the disk; what was recorded so far is kept (the run is listed as incomplete)',
      cause,
    });
  }
}

/** The store is held by another agentctl process (exit 11). */
export class StoreLockedError extends AgentctlError {
  constructor(dir: string) {
    super(`the store ${dir} is in use by another agentctl process`, 11, {
      hint: 'wait for it to finish, or pass --store <dir> to use another store',
    });
  }
}

/** True for any agentctl error; narrows `unknown` in catch blocks. */
export function isAgentctlError(error: unknown): error is AgentctlError {
  return error instanceof AgentctlError;
}
