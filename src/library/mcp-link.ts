/**
 * The MCP link of a library session (src/mcp/link.ts): how the MCP record/replay wrapper keeps its
 * traffic on the session's tape — in process (`agentctl mcp --record/--replay/--tape`), or for
 * wrappers in other processes through the session's broker (mcp-broker.ts: `agentctl run`, a
 * session's `mcpServer()`). One link per session, shared by every wrapper that joins it (several
 * servers, or one server twice): it writes their events onto the run in the order they come, each
 * with its place (seq and time from the recording, the step of the model call that came last), and
 * tallies what the replays did for the run's last line and exit code.
 *
 * MCP tool calls do not count in the run's `totals.toolCalls`: those are the tool calls the model
 * asked for, which an agent's MCP calls mostly are already (recordTool's calls do not count either).
 */
import { UnexpectedError } from '../core/errors.js';
import { count } from '../core/plural.js';
import { runEventSchema } from '../core/event-schema.js';
import type { RunEventInput } from '../core/events.js';
import type {
  McpCallInput, McpDivergence, McpEventInput, McpLink, McpLinkMode, McpRecordedEvent, McpReplayNote,
} from '../mcp/link.js';
import type { CallTape } from '../replay/call-tape.js';
import { replyMismatch } from '../tape/mcp-checks.js';
import type { RecordingSession } from './recording-session.js';
import { internalsOf, type McpSessionSetup, type SessionInternals } from './session-internals.js';

/** A replayed MCP request that matched nothing on the tape, and the server it went to. */
export interface McpDivergenceSeen extends McpDivergence {
  server: string;
}

/** What the MCP wrappers of a session did, for its last line and exit code. */
export interface McpSummary {
  mode: McpLinkMode;
  /** replay: a divergence, or a recorded call never asked for, fails the replay. */
  strict: boolean;
  /** MCP tool calls written onto the run (record, new-episodes). */
  recorded: number;
  /** MCP tool calls on the tape served (replay, new-episodes). */
  onTape: number;
  /** Tool calls answered from the tape. */
  served: number;
  /** Tool calls the tape had no answer for, run by their server. */
  live: number;
  /** Tool calls the tape had no answer for, answered with an error instead. */
  refused: number;
  /** Every request (of any method) that matched nothing on the tape, in order. */
  divergences: McpDivergenceSeen[];
  /** Recorded tool calls no request asked for (a server that never joined: all of its calls). */
  unused: number;
}

/** A session's MCP link, with what it has seen. */
export interface SessionLink extends McpLink {
  summary(): McpSummary;
}

/** By the session's internals, which the clients of recordOpenAI share with their session. */
const links = new WeakMap<object, SessionLink>();

/** The MCP link of `session` (one per session: every call returns the same). */
export function localLink(session: object): SessionLink {
  const inner = internalsOf(session);
  if (inner === undefined) throw new UnexpectedError('the session was not opened by agentctl (a copy of a session has no MCP link)');
  return linkOf(inner);
}

/** The MCP link of the session with these internals. */
export function linkOf(inner: SessionInternals): SessionLink {
  if (inner.mcp === undefined) throw new UnexpectedError('the session has no MCP link');
  let link = links.get(inner);
  if (link === undefined) {
    link = sessionLink(inner.mcp, inner.recording);
    links.set(inner, link);
  }
  return link;
}

/** A link that records and serves nothing: the wrapper forwards everything (passthrough). */
export function passthroughLink(): SessionLink {
  return sessionLink({ mode: 'passthrough', strict: false, allowSideEffects: true, patterns: [] }, undefined);
}

function sessionLink(setup: McpSessionSetup, recording: RecordingSession | undefined): SessionLink {
  const tally = new Tally(setup);
  const writer = recording === undefined ? undefined : new McpWriter(recording);
  const nothing = (): Promise<never> => Promise.reject(new UnexpectedError(`a ${setup.mode} session records nothing`));
  return {
    mode: setup.mode,
    strict: setup.strict,
    allowSideEffects: setup.allowSideEffects,
    redact: setup.patterns,
    recorded: (server) => Promise.resolve(setup.tape === undefined ? [] : eventsOf(setup.tape, server)),
    writeCall: (call) => (writer === undefined ? nothing() : writer.call(call).then((id) => tally.wrote(id))),
    write: (event) => (writer === undefined ? nothing() : writer.write(event)),
    report: (note) => {
      tally.note(note);
      return Promise.resolve();
    },
    // Other wrappers may still be using the session's link: one wrapper's end closes nothing.
    close: () => Promise.resolve(),
    summary: () => tally.summary(),
  };
}

/** The MCP servers whose traffic the session's tape holds, by name in sorted order (none when it replays nothing). */
export function recordedServers(session: object): string[] {
  const tape = internalsOf(session)?.mcp?.tape;
  return tape === undefined ? [] : [...new Set(tape.mcp.map((event) => event.server as string))].sort();
}

/** The recorded MCP events of one server, in tape order. */
function eventsOf(tape: CallTape, server: string): McpRecordedEvent[] {
  return tape.mcp.filter((event) => event.server === server);
}

/**
 * Writes MCP events onto the recording: each checked against the tape's schema and a result
 * against its call and its own MCP reply, as the tape's reader checks them (it may come from
 * another process, which holds the link's token but need not tell the truth), a call given the run's next id for its tool and the current step, and its
 * result filed under the same step as the call.
 */
class McpWriter {
  /** The step and server of each call not answered yet, by its id. */
  private readonly open = new Map<string, { step: number; server: string }>();

  constructor(private readonly session: RecordingSession) {}

  async call(call: McpCallInput): Promise<string> {
    const callId = this.session.toolCallId(`${call.server}/${call.tool}`);
    const step = this.session.currentStep;
    await this.put({ ...call, type: 'tool_call', callId, step });
    this.open.set(callId, { step, server: call.server });
    return callId;
  }

  async write(event: McpEventInput): Promise<void> {
    if (event.type === 'tool_result') {
      const call = this.open.get(event.callId);
      if (call === undefined) throw new UnexpectedError(`an MCP tool result for call ${JSON.stringify(event.callId)}, which this run did not give out`);
      // What the tape's reader refuses (tape/mcp-checks.ts) is never written: the run would not read back.
      if (event.server !== call.server) throw new UnexpectedError(`an MCP tool result for call ${JSON.stringify(event.callId)} of server '${call.server}' that names server '${event.server}'`);
      await this.put({ ...event, step: call.step });
      this.open.delete(event.callId);
      return;
    }
    await this.put({ ...event, type: 'mcp_exchange', step: this.session.currentStep });
  }

  private async put(event: RunEventInput): Promise<void> {
    const checked = runEventSchema.safeParse({ ...event, seq: 0, t: 0 });
    if (!checked.success) throw new UnexpectedError(`an MCP ${event.type} event the tape cannot hold: ${checked.error.issues[0]?.message ?? 'invalid'}`);
    const mismatch = checked.data.type === 'tool_result' ? replyMismatch(checked.data) : null;
    if (mismatch !== null) throw new UnexpectedError(`an MCP ${mismatch}`);
    await this.session.start({ model: 'unknown' });
    await this.session.write(event);
  }
}

/** What the wrappers reported, by server. */
class Tally {
  private recorded = 0;
  private readonly outcomes = { served: 0, live: 0, refused: 0 };
  private readonly servedBy = new Map<string, number>();
  private readonly divergences: McpDivergenceSeen[] = [];
  /** Recorded tool calls, by server. */
  private readonly onTape = new Map<string, number>();

  constructor(private readonly setup: McpSessionSetup) {
    for (const event of setup.tape?.mcp ?? []) {
      if (event.type === 'tool_call') this.onTape.set(event.server as string, (this.onTape.get(event.server as string) ?? 0) + 1);
    }
  }

  wrote(callId: string): string {
    this.recorded++;
    return callId;
  }

  note(note: McpReplayNote): void {
    // The unused calls at the end are counted from what was served, over every wrapper of the server.
    if (note.kind !== 'request') return;
    if (note.divergence !== undefined) this.divergences.push({ server: note.server, ...note.divergence });
    if (note.method !== 'tools/call') return;
    this.outcomes[note.outcome]++;
    if (note.outcome === 'served') this.servedBy.set(note.server, (this.servedBy.get(note.server) ?? 0) + 1);
  }

  summary(): McpSummary {
    let unused = 0;
    let onTape = 0;
    for (const [server, calls] of this.onTape) {
      onTape += calls;
      unused += Math.max(0, calls - (this.servedBy.get(server) ?? 0));
    }
    return {
      mode: this.setup.mode,
      strict: this.setup.strict,
      recorded: this.recorded,
      onTape,
      ...this.outcomes,
      divergences: [...this.divergences],
      unused,
    };
  }
}

/**
 * Why a replay's MCP traffic did not reproduce its tape, in one line — the first request that
 * matched nothing (its server, method and first differing field), else the recorded tool calls
 * never asked for — or undefined when it did, or when that does not fail it (not strict, not a replay).
 */
export function mcpNotReproduced(summary: McpSummary): string | undefined {
  if (summary.mode !== 'replay' || !summary.strict) return undefined;
  const first = summary.divergences[0];
  if (first !== undefined) return `MCP server ${first.server}: ${first.message}`;
  if (summary.unused > 0) return `${count(summary.unused, 'recorded MCP tool call')} never asked for`;
  return undefined;
}
