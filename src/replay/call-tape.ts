/**
 * The model calls of a recorded run, as a replay serves them: per call (iteration) the request it
 * sent — rebuilt from the deltas, with its hash, endpoint and parameters — and every attempt, in
 * order: its chunks (with the raw server-sent events when recorded at the transport), its warnings,
 * and how it ended (a response, an error, or nothing when the recording stopped during it). Also
 * the run's opaque HTTP exchanges and its tool outcomes (recordTool).
 */
import { applyDeltaInPlace } from '../agent/request-delta.js';
import type {
  HttpExchangeEvent, LlmChunkEvent, LlmErrorEvent, LlmResponseEvent, RunEvent, ToolCallEvent, ToolResultEvent, WarningEvent,
} from '../core/events.js';
import type { ChatMessage } from '../core/messages.js';
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
  tools: TapeToolOutcome[];
}

/** Read a run's calls, exchanges and tool outcomes. Holds them in memory: a library or proxy session's tape. */
export async function readCallTape(events: AsyncIterable<RunEvent> | Iterable<RunEvent>): Promise<CallTape> {
  const byIteration = new Map<number, TapeCall>();
  const calls: TapeCall[] = [];
  const exchanges: HttpExchangeEvent[] = [];
  const tools: TapeToolOutcome[] = [];
  const pairing = new ToolPairing();
  const sent: ChatMessage[] = [];
  const call = (iteration: number): TapeCall => {
    let found = byIteration.get(iteration);
    if (found === undefined) {
      found = { iteration, request: undefined, attempts: [] };
      byIteration.set(iteration, found);
      calls.push(found);
    }
    return found;
  };
  const attempt = (iteration: number, n: number): TapeAttempt => {
    const { attempts } = call(iteration);
    let found = attempts.find((a) => a.attempt === n);
    if (found === undefined) {
      found = { attempt: n, chunks: [], warnings: [], stream: [], outcome: undefined };
      attempts.push(found);
    }
    return found;
  };
  let lastStreaming: TapeAttempt | undefined;
  for await (const event of events) {
    switch (event.type) {
      case 'llm_request': {
        applyDeltaInPlace(sent, event);
        const request: TapeCall['request'] = { hash: event.hash, model: event.model, messages: [...sent], stream: event.stream, tools: event.tools };
        if (event.endpoint !== undefined) request.endpoint = event.endpoint;
        if (event.params !== undefined) request.params = event.params;
        call(event.iteration).request = request;
        break;
      }
      case 'llm_chunk':
        lastStreaming = attempt(event.iteration, event.attempt);
        lastStreaming.chunks.push(event);
        lastStreaming.stream.push(event);
        break;
      case 'warning':
        // A provider warning belongs to the stream it follows (a stream that closed without a finish reason).
        if (lastStreaming !== undefined && lastStreaming.outcome === undefined) {
          lastStreaming.warnings.push(event.message);
          lastStreaming.stream.push(event);
        }
        break;
      case 'llm_error':
      case 'llm_response':
        attempt(event.iteration, event.attempt).outcome = event;
        break;
      case 'http_exchange':
        exchanges.push(event);
        break;
      case 'tool_call': {
        const outcome = { call: event, result: undefined };
        tools.push(outcome);
        pairing.called(outcome);
        break;
      }
      case 'tool_result':
        pairing.answered(event);
        break;
      default:
        break;
    }
  }
  for (const c of calls) c.attempts.sort((a, b) => a.attempt - b.attempt);
  return { calls, exchanges, tools };
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

/**
 * The attempts of one call, from the events of its step as the built-in loop records them (one call
 * at a time): each attempt's chunks, and what came between the previous outcome (or the request)
 * and its own outcome — its chunks and the provider's warnings, in order.
 */
export function attemptsOf(events: readonly RunEvent[]): TapeAttempt[] {
  const attempts = new Map<number, TapeAttempt>();
  const get = (n: number): TapeAttempt => {
    let found = attempts.get(n);
    if (found === undefined) attempts.set(n, (found = { attempt: n, chunks: [], warnings: [], stream: [], outcome: undefined }));
    return found;
  };
  let window: Array<LlmChunkEvent | WarningEvent> = [];
  for (const event of events) {
    switch (event.type) {
      case 'llm_request':
        window = [];
        break;
      case 'llm_chunk':
        get(event.attempt).chunks.push(event);
        window.push(event);
        break;
      case 'warning':
        window.push(event);
        break;
      case 'llm_error':
      case 'llm_response': {
        const attempt = get(event.attempt);
        attempt.outcome = event;
        attempt.stream = window.filter((e) => e.type === 'warning' || e.attempt === event.attempt);
        attempt.warnings = attempt.stream.flatMap((e) => (e.type === 'warning' ? [e.message] : []));
        window = [];
        break;
      }
      default:
        break;
    }
  }
  // An attempt the recording stopped during keeps its chunks (a cancelled or timed-out call replays them).
  for (const attempt of attempts.values()) if (attempt.outcome === undefined) attempt.stream = [...attempt.chunks];
  return [...attempts.values()].sort((a, b) => a.attempt - b.attempt);
}
