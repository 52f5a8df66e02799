/**
 * The guardrails' decisions written onto a recording's run as `guardrail` events, in the order they
 * were made, each at the step the run files the tool calls under (the model call that asked for
 * them) and with the model's id of the call it is about. The guardrails decide synchronously, so
 * each write is started at once — in its place among the run's other events — and waited for later:
 * by `guard`, and by the session's finish(), which fails with the first write that failed.
 */
import type { GuardrailDecision } from '../guardrails/guardrail-session.js';
import type { RecordingSession } from './recording-session.js';

export class DecisionWriter {
  /** Every write so far, in order: rejects with the first that failed. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly recording: RecordingSession) {}

  write(decision: GuardrailDecision): void {
    const { step: _step, callId, ...record } = decision;
    const done = this.recording.writeDetached({
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
