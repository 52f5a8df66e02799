/**
 * How the MCP record/replay wrapper reaches the tape it records onto or replays from: its own
 * (`agentctl mcp --record <tape>`, a library session), or — under `agentctl run` or a library
 * session's `mcpServer()` — the run that launched the agent, over a local HTTP link, so that the
 * agent's MCP traffic lands on the same tape as its model calls, in the order it happened.
 *
 * The wrapper does the MCP work (matching, serving, forwarding); the link only keeps the tape: it
 * says what mode the run is in, hands over the recorded MCP events of one server, writes new ones
 * (giving each its place in the run: seq, step, time, and a tool call its id), and takes the
 * replay's notes for the run's last line and exit code.
 */
import type { McpExchangeEvent, ToolCallEvent, ToolResultEvent } from '../core/events.js';

/** What a link does with the traffic: as the run's mode (core/tape-modes.ts), replay-or-record resolved. */
export type McpLinkMode = 'record' | 'replay' | 'new-episodes' | 'passthrough';

/** A recorded MCP event of one server, as a replay reads it. */
export type McpRecordedEvent = ToolCallEvent | ToolResultEvent | McpExchangeEvent;

type Unplaced<E> = Omit<E, 'seq' | 't' | 'step'>;

/** A `tools/call` as the wrapper writes it: the run gives it its id (the `callId` of the events). */
export type McpCallInput = Omit<Unplaced<ToolCallEvent>, 'callId'> & { server: string };
/** The outcome of a call (its `callId` the one `writeCall` gave), or another exchange. */
export type McpEventInput = (Unplaced<ToolResultEvent> & { server: string }) | Unplaced<McpExchangeEvent>;

/** How a replayed request departed from its tape: the first differing field, as the rest of agentctl says it. */
export interface McpDivergence {
  /** One line: `tools/call write_file: arguments.path: recorded "a.txt", replayed "b.txt"`. */
  message: string;
  path?: string;
  recorded?: unknown;
  replayed?: unknown;
}

/** What a replay did with one request, or how it ended. */
export type McpReplayNote =
  | {
    kind: 'request';
    server: string;
    method: string;
    /** The tool, for `tools/call`. */
    tool?: string;
    /** served: answered from the tape; live: not on the tape, run by the server (read-only, or allowed); refused: not on the tape and not run. */
    outcome: 'served' | 'live' | 'refused';
    /** Set when the request matched nothing on the tape. */
    divergence?: McpDivergence;
  }
  | {
    kind: 'end';
    server: string;
    /** Recorded tool calls no request asked for. */
    unused: number;
  };

export interface McpLink {
  readonly mode: McpLinkMode;
  /** replay: a request the tape has no match for is a divergence that fails the run (default true). */
  readonly strict: boolean;
  /** replay: run calls the tape has no answer for even when the tool is not read-only (new-episodes: true). */
  readonly allowSideEffects: boolean;
  /**
   * The tape's extra redaction patterns (regular-expression source), which the wrapper's redactor
   * adds to the key shapes it always redacts: a replayed call's arguments must read as the recorded
   * ones did to match them.
   */
  readonly redact: readonly string[];
  /** replay, new-episodes: the recorded events of `server`, in tape order (an empty list when it has none). */
  recorded(server: string): Promise<McpRecordedEvent[]>;
  /** record, new-episodes: write a tool call onto the run; resolves, once it is written, to its call id. */
  writeCall(call: McpCallInput): Promise<string>;
  /** record, new-episodes: write a tool result or an exchange; resolves once it is written. */
  write(event: McpEventInput): Promise<void>;
  /** replay, new-episodes: what the replay did (the run's summary and exit code count these). */
  report(note: McpReplayNote): Promise<void>;
  /** The wrapper is done with the link (its client went away). */
  close(): Promise<void>;
}
