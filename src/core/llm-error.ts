import type { LlmErrorKind } from './llm.js';

/**
 * A failed model call as plain data: what an `llm_error` event stores, and what a tape LLM needs to
 * throw the same error again on replay.
 */
export interface LlmErrorData {
  kind: LlmErrorKind;
  /** HTTP status, when the server answered at all. */
  status?: number;
  message: string;
  /** How long the server asked us to wait (`Retry-After` / `retry-after-ms`), in milliseconds. */
  retryAfterMs?: number;
}

/**
 * The one error an `LlmClient` throws for a failed model call. `kind` decides what the provider
 * runner does with it (docs/loop.md): `recoverable` is retried with back-off, `fatal` ends the run.
 * Any other error escaping an `LlmClient` is not a provider failure (a tape running out, a bug) and
 * is never retried.
 */
export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(data: LlmErrorData, options: { cause?: unknown } = {}) {
    super(data.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LlmError';
    this.kind = data.kind;
    this.status = data.status;
    this.retryAfterMs = data.retryAfterMs;
  }

  get recoverable(): boolean {
    return this.kind === 'recoverable';
  }

  /** The plain-data form, without absent fields (so it compares and serialises cleanly). */
  toData(): LlmErrorData {
    const data: LlmErrorData = { kind: this.kind, message: this.message };
    if (this.status !== undefined) data.status = this.status;
    if (this.retryAfterMs !== undefined) data.retryAfterMs = this.retryAfterMs;
    return data;
  }

  toJSON(): LlmErrorData {
    return this.toData();
  }

  /** Rebuild an error from its plain-data form (e.g. read back from a tape). */
  static fromData(data: LlmErrorData): LlmError {
    return new LlmError(data);
  }
}

/** True for an `LlmError`; narrows `unknown` in catch blocks. */
export function isLlmError(error: unknown): error is LlmError {
  return error instanceof LlmError;
}
