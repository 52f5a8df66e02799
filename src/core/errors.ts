/**
 * The error family of agentctl. Every expected failure is an `AgentctlError` subclass with a stable
 * string `code` — what a program branches on, never the message — and the exit code the CLI ends
 * with (README, "Error codes"). The CLI's single top-level handler prints `message` (and `hint`) on
 * one line and exits with `exitCode`. Anything else is a bug: stack printed, exit 1.
 */

/** Every error code, with the exit code the CLI ends with for it. */
const EXIT_CODES = {
  AGENTCTL_UNEXPECTED: 1,
  AGENTCTL_USAGE: 2,
  AGENTCTL_INVALID_OPTION: 2,
  AGENTCTL_GUARDRAIL_STOP: 3,
  AGENTCTL_REPLAY_DIVERGED: 7,
  AGENTCTL_TAPE_EXHAUSTED: 8,
  AGENTCTL_TOOL_NOT_REPLAYED: 8,
  AGENTCTL_TAPE_INVALID: 9,
  AGENTCTL_NOT_FOUND: 10,
  AGENTCTL_STORE_LOCKED: 11,
  AGENTCTL_IO: 12,
  AGENTCTL_MCP_SERVER: 13,
} as const;

/** The `code` of an AgentctlError: one per error class, stable across versions. */
export type ErrorCode = keyof typeof EXIT_CODES;

/** Every error code, in the order of their exit codes. */
export const ERROR_CODES = Object.keys(EXIT_CODES) as readonly ErrorCode[];

/** What every AgentctlError may carry besides its message: a hint for the user, the error it stems from. */
export interface AgentctlErrorOptions {
  hint?: string;
  cause?: unknown;
}

/** The base of every expected failure; each kind of failure is a subclass with a code of its own. */
export abstract class AgentctlError extends Error {
  /** What went wrong, as a stable string to branch on (README, "Error codes"). */
  readonly code: ErrorCode;
  /** Process exit code for this failure. */
  readonly exitCode: number;
  /** An optional second line telling the user what to do next. */
  readonly hint: string | undefined;

  protected constructor(message: string, code: ErrorCode, options: AgentctlErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = EXIT_CODES[code];
    this.hint = options.hint;
  }
}

/**
 * The command line is wrong: a bad flag or combination of flags, a missing input, `--tui` without a
 * terminal (exit 2). Only the CLI throws it; the library's own is InvalidOptionError.
 */
export class UsageError extends AgentctlError {
  constructor(message: string, options: AgentctlErrorOptions = {}) {
    super(message, 'AGENTCTL_USAGE', options);
  }
}

/**
 * A value passed in is not valid: an option, a config field or override, a patch, a redact pattern,
 * a path that cannot be used (exit 2).
 */
export class InvalidOptionError extends AgentctlError {
  constructor(message: string, options: AgentctlErrorOptions = {}) {
    super(message, 'AGENTCTL_INVALID_OPTION', options);
  }
}

/**
 * A replay did not reproduce its tape (exit 7): a request the tape had no match for, a call past its
 * end, or recorded calls nothing asked for. `tape` is the tape's path (or run), `field` the first
 * differing field of the first divergence, when there was one.
 */
export class ReplayDivergedError extends AgentctlError {
  readonly tape: string | undefined;
  readonly field: string | undefined;
  constructor(message = 'the replay did not reproduce its tape', options: ErrorOptions & { tape?: string; field?: string } = {}) {
    super(message, 'AGENTCTL_REPLAY_DIVERGED', options);
    this.tape = options.tape;
    this.field = options.field;
  }
}

/**
 * The guardrails stopped an agent's run that a framework adapter guards (docs/guardrails.md, "Any
 * agent: the guardrails live"): the tools kept repeating, or one kept failing. `rule` is the
 * guardrail rule (`repetition`, `consecutive_failures_halt`), `step` the model answer whose end
 * stopped the run. Exit 3, as `agentctl run` ends when its own guardrails stop its loop (ERROR).
 */
export class GuardrailStopError extends AgentctlError {
  readonly rule: string | undefined;
  readonly step: number | undefined;
  constructor(message = 'the guardrails stopped the run', options: AgentctlErrorOptions & { rule?: string; step?: number } = {}) {
    super(message, 'AGENTCTL_GUARDRAIL_STOP', options);
    this.rule = options.rule;
    this.step = options.step;
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
    super(exhaustedMessage(iteration), 'AGENTCTL_TAPE_EXHAUSTED', { hint: 'use --fallback live to continue against a real model' });
    this.iteration = iteration;
  }
}

/** Bad tape or store data: corrupt, truncated, wrong version, failed validation (exit 9). */
export class TapeFormatError extends AgentctlError {
  readonly file: string | undefined;
  readonly line: number | undefined;
  /** What is wrong, without the file and line. */
  readonly detail: string;
  constructor(detail: string, where: { file?: string; line?: number } = {}, options: AgentctlErrorOptions = {}) {
    const place = where.file === undefined ? '' : where.line === undefined ? `${where.file}: ` : `${where.file}:${where.line}: `;
    super(`${place}${detail}`, 'AGENTCTL_TAPE_INVALID', options);
    this.file = where.file;
    this.line = where.line;
    this.detail = detail;
  }
}

/** A run id, tape file or config file that does not exist (exit 10). */
export class NotFoundError extends AgentctlError {
  constructor(message: string, options: { hint?: string } = {}) {
    super(message, 'AGENTCTL_NOT_FOUND', options);
  }
}

/** The store is held by another agentctl process (exit 11). */
export class StoreLockedError extends AgentctlError {
  constructor(dir: string) {
    super(`the store ${dir} is in use by another agentctl process`, 'AGENTCTL_STORE_LOCKED', {
      hint: 'wait for it to finish, or pass --store <dir> to use another store',
    });
  }
}

/**
 * The store, a file or standard output could not be written or read: disk full, an I/O error
 * (exit 12). Not the user's input: the same command may succeed once the disk does.
 */
export class IoError extends AgentctlError {
  constructor(message: string, options: AgentctlErrorOptions = {}) {
    super(message, 'AGENTCTL_IO', options);
  }
}

/**
 * An MCP server a run needs could not be used: it did not start, did not complete the protocol's
 * handshake or tool listing, or broke the protocol (exit 13). The message names the server.
 */
export class McpServerError extends AgentctlError {
  constructor(message: string, options: AgentctlErrorOptions = {}) {
    super(message, 'AGENTCTL_MCP_SERVER', options);
  }
}

/**
 * A failure outside agentctl that it cannot carry on from, reported in one line instead of a stack:
 * the terminal UI failed, the proxy cannot listen (exit 1, as a bug).
 */
export class UnexpectedError extends AgentctlError {
  constructor(message: string, options: AgentctlErrorOptions = {}) {
    super(message, 'AGENTCTL_UNEXPECTED', options);
  }
}

/**
 * The store cannot be written while recording or importing (disk full, an I/O error). What was
 * written before is kept: the run is listed `incomplete`.
 */
export function storeWriteFailed(dir: string, cause: unknown): IoError {
  const code = (cause as { code?: unknown } | null)?.code;
  const what = cause instanceof Error ? cause.message : String(cause);
  return new IoError(`cannot write to the store ${dir}: ${typeof code === 'string' && !what.includes(code) ? `${code}: ` : ''}${what}`, {
    hint: 'free some space or fix the disk; what was recorded so far is kept (the run is listed as incomplete)',
    cause,
  });
}

/** True for any agentctl error; narrows `unknown` in catch blocks. */
export function isAgentctlError(error: unknown): error is AgentctlError {
  return error instanceof AgentctlError;
}
