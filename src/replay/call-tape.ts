/**
 * The model calls of a recorded run, as a replay serves them: per call (iteration) the request it
 * sent — rebuilt from the deltas, with its hash, endpoint and parameters — and every attempt, in
 * order: its chunks (with the raw server-sent events when recorded at the transport), its warnings,
 * and how it ended (a response, an error, or nothing when the recording stopped during it). Also
 * the run's opaque HTTP exchanges, its tool outcomes (recordTool), and the traffic of the MCP servers
 * its agent used (`agentctl mcp`), which the MCP wrapper replays.
 */
import { applyDeltaInPlace } from '../agent/request-delta.js';
import type {
  HttpExchangeEvent, LlmChunkEvent, LlmErrorEvent, LlmResponseEvent, RunEvent, ToolCallEvent, ToolResultEvent, WarningEvent,
} from '../core/events.js';
import type { ChatMessage } from '../core/messages.js';
import type { McpRecordedEvent } from '../mcp/link.js';
import type { RequestView } from './request-difference.js';

export interface TapeAttempt {
  attempt: number;
  chunks: LlmChunkEvent[];
  warnings: string[];
  /** Its chunks and the provider's warnings about it, in recorded order (what a replay gives the caller before the outcome). */
  stream: Array<LlmChunkEvent | WarningEvent>;
  outcome: LlmResponseEvent | LlmErrorEvent | undefined;
}

export interface TapeCall {
  iteration: number;
  /** The request of its last attempt; undefined when the tape has none (an answer without a request). */
  request: (RequestView & { hash: string }) | undefined;
  attempts: TapeAttempt[];
}

export interface TapeToolOutcome {
  call: ToolCallEvent;
  result: ToolResultEvent | undefined;
}

export interface CallTape {
  /** In the order their first request was recorded. */
  calls: TapeCall[];
  exchanges: HttpExchangeEvent[];
  /** recordTool's calls and their outcomes (tool events of no MCP server). */
  tools: TapeToolOutcome[];
  /** The MCP servers' events (tool calls and results with a `server`, exchanges), in tape order: every server's, interleaved. */
  mcp: McpRecordedEvent[];
}

/**
 * Reads recorded model calls from a run's events, in order, one event at a time: the one reading of
 * a call and its attempts, for a replay of the built-in loop (a step's events, one call) and for the
 * library and the proxy (a whole run's, calls possibly interleaved). `requests: false` leaves the
 * requests out (a replay of the built-in loop compares them elsewhere, and rebuilding each one whole
 * would cost the square of the run's length).
 */
export class CallTapeReader {
  readonly calls: TapeCall[] = [];
  readonly exchanges: HttpExchangeEvent[] = [];
  readonly tools: TapeToolOutcome[] = [];
  readonly mcp: McpRecordedEvent[] = [];
  private readonly byIteration = new Map<number, TapeCall>();
  private readonly pairing = new ToolPairing();
  private readonly sent: ChatMessage[] = [];
  /** The attempt whose stream came last, while it has no outcome: a provider warning is about it. */
  private streaming: TapeAttempt | undefined;

  constructor(private readonly options: { requests: boolean } = { requests: true }) {}

  add(event: RunEvent): void {
    switch (event.type) {
      case 'llm_request': {
        const call = this.call(event.iteration);
        if (!this.options.requests) break;
        applyDeltaInPlace(this.sent, event);
        const request: TapeCall['request'] = { hash: event.hash, model: event.model, messages: [...this.sent], stream: event.stream, tools: event.tools };
        if (event.endpoint !== undefined) request.endpoint = event.endpoint;
        if (event.params !== undefined) request.params = event.params;
        call.request = request;
        break;
      }
      case 'llm_chunk': {
        const attempt = this.attempt(event.iteration, event.attempt);
        attempt.chunks.push(event);
        attempt.stream.push(event);
        this.streaming = attempt;
        break;
      }
      case 'warning':
        // A provider warning follows the stream it is about (one that closed without a finish
        // reason), before that attempt's outcome; a warning of the loop's own (context trimming) has none.
        if (this.streaming !== undefined) {
          this.streaming.warnings.push(event.message);
          this.streaming.stream.push(event);
        }
        break;
      case 'llm_error':
      case 'llm_response': {
        const attempt = this.attempt(event.iteration, event.attempt);
        attempt.outcome = event;
        if (this.streaming === attempt) this.streaming = undefined;
        break;
      }
      case 'http_exchange':
        this.exchanges.push(event);
        break;
      case 'mcp_exchange':
        this.mcp.push(event);
        break;
      case 'tool_call': {
        // An MCP server's call is the MCP wrapper's to serve, never recordTool's (a tool of the same name).
        if (event.server !== undefined) {
          this.mcp.push(event);
          break;
        }
        const outcome = { call: event, result: undefined };
        this.tools.push(outcome);
        this.pairing.called(outcome);
        break;
      }
      case 'tool_result':
        if (event.server !== undefined) this.mcp.push(event);
        else this.pairing.answered(event);
        break;
      default:
        break;
    }
  }

  /** The calls read, each with its attempts in order. */
  finish(): CallTape {
    for (const c of this.calls) if (c.attempts.length > 1) c.attempts.sort((a, b) => a.attempt - b.attempt);
    return { calls: this.calls, exchanges: this.exchanges, tools: this.tools, mcp: this.mcp };
  }

  private call(iteration: number): TapeCall {
    let found = this.byIteration.get(iteration);
    if (found === undefined) {
      found = { iteration, request: undefined, attempts: [] };
      this.byIteration.set(iteration, found);
      this.calls.push(found);
    }
    return found;
  }

  private attempt(iteration: number, n: number): TapeAttempt {
    const { attempts } = this.call(iteration);
    for (const attempt of attempts) if (attempt.attempt === n) return attempt;
    const made: TapeAttempt = { attempt: n, chunks: [], warnings: [], stream: [], outcome: undefined };
    attempts.push(made);
    return made;
  }
}

/**
 * Gives each tool_result to its tool_call, by call id. recordTool gives every call of a run its own
 * id, but there are tapes whose ids repeat: recordTool counting per wrapper (`name:0` once per agent
 * run), or a provider reusing its tool-call ids. A result then goes to the call of its id that is
 * waiting for one — the earliest unanswered, and the only one whenever the calls of the id came one
 * after another (each answered before the next began, as with one agent run at a time), so it is the
 * result's own call. When calls of one id overlapped, the tape does not say which result is whose:
 * none of those calls gets one (a replay treats them as calls the tape lacks), and the results still
 * to come for them are not given to a later call of the id. Pairing a result with the earliest (or
 * the latest) of several waiting calls would hand one call another's outcome, silently.
 */
class ToolPairing {
  private readonly byId = new Map<string, { waiting: TapeToolOutcome[]; owed: number }>();

  called(outcome: TapeToolOutcome): void {
    const id = this.byId.get(outcome.call.callId);
    if (id === undefined) this.byId.set(outcome.call.callId, { waiting: [outcome], owed: 0 });
    else id.waiting.push(outcome);
  }

  answered(result: ToolResultEvent): void {
    const id = this.byId.get(result.callId);
    if (id === undefined) return;
    const [only, ...others] = id.waiting;
    if (only !== undefined && others.length === 0 && id.owed === 0) {
      only.result = result;
      id.waiting = [];
      return;
    }
    // Overlapping calls of one id: this result is one of theirs, which one is unknown. The calls are
    // left unanswered; each is owed one result still, and this one is counted off.
    id.owed = Math.max(0, id.owed + id.waiting.length - 1);
    id.waiting = [];
  }
}

/** Read a run's calls, exchanges, tool outcomes and MCP traffic. Holds them in memory: a library or proxy session's tape. */
export async function readCallTape(events: AsyncIterable<RunEvent> | Iterable<RunEvent>): Promise<CallTape> {
  const reader = new CallTapeReader();
  for await (const event of events) reader.add(event);
  return reader.finish();
}

/** The call a step of the built-in loop made (it makes one at a time), from the step's events; undefined when it made none. */
export function callOf(events: readonly RunEvent[]): TapeCall | undefined {
  const reader = new CallTapeReader({ requests: false });
  for (const event of events) reader.add(event);
  return reader.finish().calls[0];
}
