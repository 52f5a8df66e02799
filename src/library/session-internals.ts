/**
 * What agentctl itself needs of a TapeSession beyond its public members — the run it records, and
 * how its tape redacts — for what records onto the session's run from outside it (createGuardrails).
 * Kept off the session's public shape: looked up by the session object, and by the client
 * recordOpenAI returns for one. A copy of either (a spread) is not found: the caller says so.
 */
import type { Redactor } from '../core/redact.js';
import type { CallTape } from '../replay/call-tape.js';
import type { RecordingSession } from './recording-session.js';
import type { SessionMode } from './tape-options.js';

export interface SessionInternals {
  /** The run being recorded (record, new-episodes); absent when the session records nothing. */
  recording?: RecordingSession;
  /** How the tape keeps what it is given: the calls the guardrails judge are the tape's. */
  redact: Redactor;
  /** What an MCP link over the session (mcp-link.ts) needs to know of it. */
  mcp?: McpSessionSetup;
}

/** The session as the MCP wrappers that join it see it. */
export interface McpSessionSetup {
  mode: SessionMode;
  /** replay: an MCP request the tape has no match for fails the replay. */
  strict: boolean;
  /** Run MCP tool calls the tape has no answer for even when the tool is not read-only. */
  allowSideEffects: boolean;
  /** The tape's extra redaction patterns (regular-expression source). */
  patterns: readonly string[];
  /** replay, new-episodes: the tape served. */
  tape?: CallTape;
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
