/**
 * What agentctl itself needs of a TapeSession beyond its public members — the run it records, and
 * how its tape redacts — for what records onto the session's run from outside it (createGuardrails).
 * Kept off the session's public shape: looked up by the session object, and by the client
 * recordOpenAI returns for one. A copy of either (a spread) is not found: the caller says so.
 */
import type { Redactor } from '../core/redact.js';
import type { RecordingSession } from './recording-session.js';

export interface SessionInternals {
  /** The run being recorded (record, new-episodes); absent when the session records nothing. */
  recording?: RecordingSession;
  /** How the tape keeps what it is given: the calls the guardrails judge are the tape's. */
  redact: Redactor;
}

const internals = new WeakMap<object, SessionInternals>();

/** `session`, now known to carry `inner`. */
export function withInternals<T extends object>(session: T, inner: SessionInternals): T {
  internals.set(session, inner);
  return session;
}

/** What `session` carries, when agentctl made it. */
export function internalsOf(session: object): SessionInternals | undefined {
  return internals.get(session);
}
