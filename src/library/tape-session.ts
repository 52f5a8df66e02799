/**
 * One library session on a tape, in the mode asked (core/tape-modes.ts; `AGENTCTL_MODE` wins):
 *
 * - record: a recording fetch to the live endpoint; the run is the tape (a file: written at finish).
 * - replay: a replaying fetch, strict by default; nothing recorded, nothing on the network.
 * - replay-or-record: replay when the tape exists, else record.
 * - new-episodes: a replaying fetch, strict, whose unmatched calls (and those past the end) go to the
 *   upstream; the whole session — served and live calls, in order — is recorded as a new run (kind
 *   replay, its parent the tape's run) that becomes the tape: a file is replaced by it, in a store it
 *   is a new run (with the tape run's name, so the name finds it next). No tape yet: record.
 * - passthrough: the upstream fetch, nothing recorded or served.
 *
 * The proxy runs its modes through here too, with its own source and key (`SessionContext`).
 */
import { ReplayDivergedError } from '../core/errors.js';
import { printableLine } from '../core/terminal-text.js';
import { checkMode, effectiveMode, type TapeMode } from '../core/tape-modes.js';
import type { RunMeta, RunSource } from '../core/run-meta.js';
import type { TapeToolOutcome } from '../replay/call-tape.js';
import { patchesFromRecord } from '../replay/patches.js';
import { ReplayEngine } from '../replay/replay-engine.js';
import { recordingTool, replayingTool } from './recorded-tool.js';
import type { FetchLike } from './fetch-like.js';
import { keyRedactor, type KeyRedactor } from './key-redactor.js';
import { linkOf, mcpNotReproduced } from './mcp-link.js';
import { SessionServers } from './mcp-server-command.js';
import { recordingFetch } from './recording-fetch.js';
import { RecordingSession } from './recording-session.js';
import { replayingFetch } from './replaying-fetch.js';
import { notReproduced } from './reproduced.js';
import { withInternals, type McpSessionSetup, type SessionInternals } from './session-internals.js';
import type { TapeOptions, TapeSession } from './tape-options.js';
import { checkTape, findTape, loadTape, recordTarget, tapeLabel, type LoadedTape, type TapeRef } from './tape-target.js';
import { upstreamFetch } from './upstream-fetch.js';
import { asRequest } from '../llm/transport/request-body.js';

export interface SessionContext {
  /** The mode when the options name none. */
  defaultMode: TapeMode;
  /** Who records: the library, or `agentctl proxy`. Default 'library'. */
  source?: RunSource;
  /** An API key known from the start (a client's), taught to the redactor. */
  apiKey?: string | null;
  /** Whether `AGENTCTL_MODE` overrides the mode (the library: yes; a command with its own --mode decides for itself). Default true. */
  environment?: boolean;
  /** Where warnings go (one line each). Default: standard error. */
  warn?: (message: string) => void;
}

export async function openTapeSession(options: TapeOptions, context: SessionContext): Promise<TapeSession> {
  const tape = checkTape(options.tape);
  const asked = options.mode ?? context.defaultMode;
  const mode = context.environment === false ? checkMode(asked, 'mode') : effectiveMode(asked);
  const redact = keyRedactor(options.redact ?? [], context.apiKey);
  const label = tapeLabel(tape);
  const patterns = options.redact ?? [];
  if (mode === 'passthrough') {
    return withMcp(passthrough(options, label), { redact, mcp: { mode, strict: false, allowSideEffects: true, patterns } });
  }
  if (mode === 'record') return recording(options, context, tape, redact, label, undefined);
  const found = mode === 'replay' ? await loadTape(tape) : await findTape(tape);
  if (found === undefined) return recording(options, context, tape, redact, label, undefined);
  if (mode === 'new-episodes') return recording(options, context, tape, redact, label, found);
  const mcp: McpSessionSetup = { mode: 'replay', strict: options.strict ?? true, allowSideEffects: options.allowSideEffects === true, patterns, tape: found.tape };
  return withMcp(replaying(options, found, redact, label), { redact, mcp });
}

/**
 * The session with its MCP servers (mcpServer(): their link stops when the session finishes) and,
 * in a replay, their traffic held to the tape as its model calls are.
 */
function withMcp(session: Omit<TapeSession, 'mcpServer'>, inner: SessionInternals): TapeSession {
  const servers = new SessionServers(() => linkOf(inner));
  return withInternals({
    ...session,
    mcpServer: (server) => servers.parameters(server),
    finish: async (end) => {
      try {
        return await session.finish(end);
      } finally {
        await servers.stop();
      }
    },
    assertReproduced: () => {
      session.assertReproduced();
      const why = session.mode === 'replay' ? mcpNotReproduced(linkOf(inner).summary()) : undefined;
      if (why === undefined) return;
      const details = { tape: session.tape, hint: 'if the change is intended, re-record it: AGENTCTL_MODE=record' };
      throw new ReplayDivergedError(`the replay of ${printableLine(session.tape)} diverged: ${printableLine(why)}`, details);
    },
  }, inner);
}

/** A replay: served from the tape, nothing recorded. */
function replaying(options: TapeOptions, loaded: LoadedTape, redact: KeyRedactor, label: string): Omit<TapeSession, 'mcpServer'> {
  const { run, tape } = loaded;
  const engine = new ReplayEngine(run, tape, { strict: options.strict ?? true, patches: patchesFromRecord(options.patches ?? {}) });
  const served = replayingFetch({ engine, tape, redact });
  const used = new Set<TapeToolOutcome>();
  return {
    fetch: learning(redact, served),
    mode: 'replay',
    tape: label,
    runId: undefined,
    replay: engine.state,
    recordTool: (name, fn, policy = {}) => replayingTool(tape.tools, used, redact, name, fn, policy, options.allowSideEffects === true),
    finish: () => Promise.resolve(undefined),
    assertReproduced: () => {
      const error = notReproduced(engine.state, label);
      if (error !== undefined) throw error;
    },
  };
}

/** A recording (record), or a replay recorded as it goes with live calls for what is new (new-episodes, `from` the tape). */
async function recording(
  options: TapeOptions,
  context: SessionContext,
  tape: TapeRef,
  redact: KeyRedactor,
  label: string,
  from: LoadedTape | undefined,
): Promise<TapeSession> {
  const warn = context.warn ?? ((message: string) => process.stderr.write(`agentctl: warning: ${message}\n`));
  const target = await recordTarget(tape, warn);
  // A new-episodes run in a store takes the tape run's own name (the ref may be its id or a prefix),
  // so that name finds the grown run next; a recording takes the name asked for.
  const runName = from === undefined ? target.runName : typeof tape === 'string' ? undefined : from.run.name;
  const session = new RecordingSession({
    store: target.store,
    ownsStore: false,
    redact,
    source: context.source ?? 'library',
    ...(runName === undefined ? {} : { runName }),
    ...(options.task === undefined ? (from === undefined ? {} : { task: from.run.task }) : { task: options.task }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(from === undefined ? {} : { parentId: from.run.id }),
  });
  let upstream: FetchLike | undefined = options.fetch;
  let engine: ReplayEngine | undefined;
  let recordTool: TapeSession['recordTool'] = (name, fn, policy) => recordingTool(session, redact, name, fn, policy);
  if (from !== undefined) {
    engine = new ReplayEngine(from.run, from.tape, { strict: true, patches: patchesFromRecord(options.patches ?? {}) });
    const live = upstreamFetch(options.upstream ?? {}, options.upstream?.url ?? from.run.baseUrl, options.fetch);
    upstream = replayingFetch({ engine, tape: from.tape, redact, live });
    const used = new Set<TapeToolOutcome>();
    const allow = options.allowSideEffects ?? true;
    recordTool = (name, fn, policy = {}) =>
      recordingTool(session, redact, name, replayingTool(from.tape.tools, used, redact, name, fn, policy, allow), policy);
  }
  const recorded = recordingFetch(session, redact, upstream === undefined ? {} : { fetch: upstream });
  let finished: Promise<RunMeta> | undefined;
  const mcp: McpSessionSetup = from === undefined
    ? { mode: 'record', strict: false, allowSideEffects: true, patterns: options.redact ?? [] }
    : { mode: 'new-episodes', strict: false, allowSideEffects: options.allowSideEffects ?? true, patterns: options.redact ?? [], tape: from.tape };
  return withMcp({
    fetch: learning(redact, recorded),
    mode: from === undefined ? 'record' : 'new-episodes',
    tape: label,
    runId: session.runId,
    replay: engine?.state,
    recordTool,
    finish: (end) => {
      finished ??= (async () => {
        let meta: RunMeta;
        try {
          meta = await session.finish(end);
        } catch (error) {
          await target.release().catch(() => undefined);
          throw error;
        }
        await target.done(meta);
        return meta;
      })();
      return finished;
    },
    assertReproduced: () => undefined,
  }, { recording: session, redact, mcp });
}

/** Live, nothing recorded or served. */
function passthrough(options: TapeOptions, label: string): Omit<TapeSession, 'mcpServer'> {
  return {
    fetch: upstreamFetch(options.upstream ?? {}, options.upstream?.url, options.fetch),
    mode: 'passthrough',
    tape: label,
    runId: undefined,
    replay: undefined,
    recordTool: (_name, fn) => fn,
    finish: () => Promise.resolve(undefined),
    assertReproduced: () => undefined,
  };
}

/** The session's fetch: it teaches the redactor the credentials each request carries, so none is written. */
function learning(redact: KeyRedactor, fetch: FetchLike): FetchLike {
  return (input, init) => {
    const request = asRequest(input, init);
    redact.learn(request.headers);
    return fetch(request);
  };
}
