/**
 * The guardrails' decisions written onto a recording's run as `guardrail` events, in the order they
 * were made, each at the step the run files the tool calls under (the model call that asked for
 * them) and with the model's id of the call it is about. The guardrails decide synchronously, so
 * each write is started at once — in its place among the run's other events — and waited for later:
 * by `guard`, and by the session's finish(), which fails with the first write that failed.
 */
import { InvalidOptionError } from '../core/errors.js';
import type { GuardrailDecision } from '../guardrails/guardrail-session.js';
import type { RecordingSession } from './recording-session.js';

export class DecisionWriter {
  /** Every write so far, in order: rejects with the first that failed. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly recording: RecordingSession) {}

  write(decision: GuardrailDecision): void {
    const { step: _step, callId, ...record } = decision;
    // A finished run takes no more events (its recording fetch refuses calls too): the decision
    // would be lost without a word, and guard() would run the tool as if it were recorded.
    const done = this.recording.isFinished ? Promise.reject(finishedRunError(this.recording.runId)) : this.recording.writeDetached({
      type: 'guardrail',
      step: this.recording.currentStep,
      ...(callId === undefined ? {} : { callId }),
      ...record,
    });
    // The failure is the chain's (and finish()'s) to report, not this promise's.
    done.catch(() => undefined);
    this.chain = this.chain.then(() => done);
    this.chain.catch(() => undefined);
  }

  /** Resolves once every decision so far is written; rejects with the first write that failed. */
  written(): Promise<void> {
    return this.chain;
  }
}

/** The error of guardrails given, or still used with, a session whose run is finished. */
export function finishedRunError(runId: string): InvalidOptionError {
  return new InvalidOptionError(`createGuardrails: run ${runId} is finished: its tape takes no more decisions`, {
    hint: 'create the guardrails with the session, and finish the session once the agent is done',
  });
}
