import type { DecisionRecord } from '../core/decisions.js';
import type { ToolSpec } from '../core/tools.js';
import { callKey } from './call-key.js';
import { decisionRecord } from './decision-record.js';
import { describeEarlierCall, duplicateMessage, type EarlierCall } from './messages.js';
import { RULES } from './rules.js';
import {
  GUARDRAIL_STATE_VERSION, fail, readCount, readObject, readOptionalCount, readOptionalString, readPairs, readString, readVersion,
} from './state-codec.js';
import { toolSemantics } from './tool-semantics.js';

/**
 * What is remembered about a call key: its latest outcome, or `stale` for a success that happened
 * before the workspace changed (kept, rather than deleted, so a decision can say why it allowed).
 */
export type CallHistoryStatus = 'success' | 'failure' | 'timeout' | 'denied' | 'stale';

/** One remembered call. */
export interface CallHistoryEntry extends EarlierCall {
  tool: string;
  status: CallHistoryStatus;
}

/** Where a recorded outcome happened, so a later skip can name it. */
export interface RecordContext {
  /** The loop step (iteration) of the call. */
  step?: number;
  /** The provider's tool-call id. */
  callId?: string;
  /** The call key, when the caller already has it. */
  key?: string;
}

/** The answer of shouldSkip. `reason` (only when skipping) is the denial text for the model. */
export interface SkipDecision {
  skip: boolean;
  reason?: string;
}

/** A SkipDecision with the record that explains it. */
export interface SkipEvaluation extends SkipDecision {
  record: DecisionRecord;
}

/** ReplayControl's memory as plain JSON, for tape checkpoints. */
export interface ReplayControlState {
  version: 1;
  /** How many outcomes were recorded this turn (the source of `ordinal`). */
  outcomes: number;
  /** `[callKey, entry]` in first-seen order. */
  history: Array<[string, CallHistoryEntry]>;
}

const STATUSES: readonly CallHistoryStatus[] = ['success', 'failure', 'timeout', 'denied', 'stale'];

/**
 * The dedup gate of one turn (docs/guardrails.md §3): an idempotent call whose identical twin already succeeded
 * is skipped as a duplicate; failed, timed-out and denied calls may be retried; non-idempotent
 * tools are never skipped. A successful mutating call makes earlier successes stale, so a read
 * after a write runs again instead of handing the model old data.
 */
export class ReplayControl {
  private readonly history = new Map<string, CallHistoryEntry>();
  // Keys whose entry is a current success: noteStateChanged visits only these, not all history.
  private readonly successes = new Set<string>();
  private outcomes = 0;

  /** Whether to skip this call as a duplicate of an earlier success. Changes nothing. */
  shouldSkip(tool: string, args: unknown, spec?: ToolSpec): SkipDecision {
    const { skip, reason } = this.evaluate(tool, args, spec);
    return reason === undefined ? { skip } : { skip, reason };
  }

  /** shouldSkip with its DecisionRecord; `context.key` saves re-hashing when the caller has it. */
  evaluate(tool: string, args: unknown, spec?: ToolSpec, context: { key?: string } = {}): SkipEvaluation {
    const key = context.key ?? callKey(tool, args);
    const size = { history: this.history.size };
    const allow = (rule: string, reason: string): SkipEvaluation => ({
      skip: false,
      record: decisionRecord({ gate: 'replay_control', verdict: 'allow', rule, tool, key, before: size, after: size, reason }),
    });
    if (!toolSemantics(spec).idempotent) return allow(RULES.nonIdempotent, `${tool} is not idempotent: never deduplicated`);
    const earlier = this.history.get(key);
    if (earlier === undefined) return allow(RULES.firstCall, 'first call with these arguments this turn');
    const where = describeEarlierCall(earlier);
    switch (earlier.status) {
      case 'success':
        return {
          skip: true,
          reason: duplicateMessage(tool, earlier),
          record: decisionRecord({
            gate: 'replay_control', verdict: 'skip', rule: RULES.duplicateSuccess, tool, key, before: size, after: size,
            reason: `duplicate of the identical call that succeeded ${where}`,
          }),
        };
      case 'failure':
        return allow(RULES.retryAfterFailure, `retry: the identical call failed ${where}`);
      case 'timeout':
        return allow(RULES.retryAfterTimeout, `retry: the identical call timed out ${where}`);
      case 'denied':
        return allow(RULES.retryAfterDenial, `the identical call was denied ${where}; a denial is not a success`);
      case 'stale':
        return allow(RULES.successBeforeStateChange, `the identical call succeeded ${where}, before the workspace changed`);
    }
  }

  /** The call ran and succeeded: an identical idempotent call is a duplicate from now on. */
  recordSuccess(tool: string, args: unknown, context: RecordContext = {}): void {
    const key = this.store(tool, args, 'success', context);
    this.successes.add(key);
  }

  /** The call ran and failed: an identical call may retry it. */
  recordFailure(tool: string, args: unknown, context: RecordContext = {}): void {
    this.successes.delete(this.store(tool, args, 'failure', context));
  }

  /** The call ran out of time: an identical call may retry it. */
  recordTimeout(tool: string, args: unknown, context: RecordContext = {}): void {
    this.successes.delete(this.store(tool, args, 'timeout', context));
  }

  /**
   * Another policy refused the call (unknown tool, replay's side-effect policy). A denial says
   * nothing about what the tool would return, so it never replaces a remembered success.
   */
  recordDenied(tool: string, args: unknown, context: RecordContext = {}): void {
    const key = context.key ?? callKey(tool, args);
    if (this.successes.has(key)) return;
    this.store(tool, args, 'denied', { ...context, key });
  }

  /** The number of distinct calls (tool + arguments) with a recorded outcome this turn. */
  historySize(): number {
    return this.history.size;
  }

  /** What is remembered about this exact call, if anything. */
  lookup(tool: string, args: unknown): Readonly<CallHistoryEntry> | undefined {
    return this.history.get(callKey(tool, args));
  }

  /**
   * A mutating tool succeeded: earlier successes no longer describe the workspace, so identical
   * calls must run again (the docs/guardrails.md §3). `causeKey`, the key of the mutating call itself, stays
   * a success: repeating the very same mutation right away changes nothing and is a duplicate.
   */
  noteStateChanged(causeKey?: string): void {
    for (const key of this.successes) {
      if (key === causeKey) continue;
      const entry = this.history.get(key);
      if (entry !== undefined) entry.status = 'stale';
    }
    const keepCause = causeKey !== undefined && this.successes.has(causeKey);
    this.successes.clear();
    if (keepCause) this.successes.add(causeKey);
  }

  /** The memory as JSON (see ReplayControlState). */
  toJSON(): ReplayControlState {
    return {
      version: GUARDRAIL_STATE_VERSION,
      outcomes: this.outcomes,
      history: [...this.history].map(([key, entry]) => [key, { ...entry }]),
    };
  }

  /** A ReplayControl that continues exactly where the one that wrote `state` stopped. */
  static fromJSON(state: unknown): ReplayControl {
    const obj = readObject(state, 'replayControl');
    readVersion(obj, 'replayControl');
    const control = new ReplayControl();
    control.outcomes = readCount(obj.outcomes, 'replayControl.outcomes');
    for (const [key, entry] of readPairs(obj.history, 'replayControl.history', readEntry)) {
      control.history.set(key, entry);
      if (entry.status === 'success') control.successes.add(key);
    }
    return control;
  }

  private store(tool: string, args: unknown, status: CallHistoryStatus, context: RecordContext): string {
    const key = context.key ?? callKey(tool, args);
    this.outcomes += 1;
    const entry: CallHistoryEntry = { tool, status, ordinal: this.outcomes };
    if (context.step !== undefined) entry.step = context.step;
    if (context.callId !== undefined) entry.callId = context.callId;
    this.history.set(key, entry);
    return key;
  }
}

function readEntry(value: unknown, what: string): CallHistoryEntry {
  const obj = readObject(value, what);
  const status = readString(obj.status, `${what}.status`) as CallHistoryStatus;
  if (!STATUSES.includes(status)) fail(`${what}.status`, `must be one of ${STATUSES.join(', ')}`);
  const entry: CallHistoryEntry = { tool: readString(obj.tool, `${what}.tool`), status, ordinal: readCount(obj.ordinal, `${what}.ordinal`) };
  const step = readOptionalCount(obj.step, `${what}.step`);
  const callId = readOptionalString(obj.callId, `${what}.callId`);
  if (step !== undefined) entry.step = step;
  if (callId !== undefined) entry.callId = callId;
  return entry;
}
