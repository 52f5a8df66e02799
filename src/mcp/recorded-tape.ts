/**
 * A server's recorded MCP events read into what a replay serves from: the client's requests in
 * tape order, each with the reply the client got (a `tools/call` as its tool_call and tool_result,
 * any other request as its mcp_exchange), the server's notifications that came outside any request,
 * where the server ended unexpectedly, and the tools' annotations from the recorded tool lists
 * (the only thing that decides whether a call the tape lacks may run).
 */
import type { McpReply } from '../core/events.js';
import { annotationsOf, type McpToolAnnotations } from './annotations.js';
import type { McpRecordedEvent } from './link.js';

/** The method of the marker written when the server ended on its own (exited, was killed). */
export const SERVER_ENDED = 'agentctl/server_ended';

interface EntryBase {
  /** Where the reply is on the tape (the index of the tool_result or the exchange). */
  at: number;
  /** The reply as the client got it; absent when the recording ended before it came. */
  reply?: McpReply;
  durationMs?: number;
  used: boolean;
}

export interface CallEntry extends EntryBase {
  kind: 'call';
  tool: string;
  key: string;
  /** The recorded (redacted) arguments, parsed; the text as is when it does not parse. */
  args: unknown;
  /** The tape's arguments text (canonical JSON). */
  argumentsText: string;
}

export interface RequestEntry extends EntryBase {
  kind: 'request';
  method: string;
  params?: Record<string, unknown>;
}

export type TapeEntry = CallEntry | RequestEntry;

export interface LooseNotification {
  at: number;
  method: string;
  params?: Record<string, unknown>;
  sent: boolean;
}

export interface RecordedTape {
  /** The client's requests, in the order they were made. */
  entries: TapeEntry[];
  /** Server notifications outside any request, in tape order. */
  loose: LooseNotification[];
  /** The server's unexpected end, when the tape has one. */
  end?: { at: number; reason: string };
  /** Each tool's annotations, from the recorded tools/list results (a later list wins). */
  annotations: Map<string, McpToolAnnotations>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A tool result written without the MCP reply (the built-in loop's): the reply a client would have got. */
function replyOfOutput(status: string, output: string): McpReply {
  const result: Record<string, unknown> = { content: [{ type: 'text', text: output }] };
  if (status !== 'ok') result['isError'] = true;
  return { result };
}

function learnAnnotations(reply: McpReply | undefined, into: Map<string, McpToolAnnotations>): void {
  const tools = reply?.result?.['tools'];
  if (!Array.isArray(tools)) return;
  for (const tool of tools) {
    if (isObject(tool) && typeof tool['name'] === 'string') into.set(tool['name'], annotationsOf(tool['annotations']));
  }
}

export function readRecordedTape(events: readonly McpRecordedEvent[]): RecordedTape {
  const tape: RecordedTape = { entries: [], loose: [], annotations: new Map() };
  const calls = new Map<string, CallEntry>();
  events.forEach((event, at) => {
    if (event.type === 'tool_call') {
      const entry: CallEntry = { kind: 'call', at, tool: event.tool, key: event.key, args: parsedArguments(event.arguments), argumentsText: event.arguments, used: false };
      calls.set(event.callId, entry);
      tape.entries.push(entry);
      return;
    }
    if (event.type === 'tool_result') {
      const entry = calls.get(event.callId);
      if (entry === undefined) return;
      entry.at = at;
      entry.reply = event.mcp ?? replyOfOutput(event.status, event.output);
      entry.durationMs = event.durationMs;
      return;
    }
    if (event.from === 'server') {
      if (event.method === SERVER_ENDED) {
        tape.end ??= { at, reason: typeof event.params?.['reason'] === 'string' ? event.params['reason'] : 'ended' };
      } else if (event.reply === undefined) {
        tape.loose.push({ at, method: event.method, ...(event.params === undefined ? {} : { params: event.params }), sent: false });
      }
      // A request of the server's own was answered by the client: a replay does not ask again.
      return;
    }
    // The client's notifications are not answered: nothing to serve.
    if (event.method.startsWith('notifications/')) return;
    if (event.method === 'tools/list') learnAnnotations(event.reply, tape.annotations);
    const entry: RequestEntry = { kind: 'request', at, method: event.method, used: false };
    if (event.params !== undefined) entry.params = event.params;
    if (event.reply !== undefined) entry.reply = event.reply;
    if (event.durationMs !== undefined) entry.durationMs = event.durationMs;
    tape.entries.push(entry);
  });
  return tape;
}

/** The recorded server notifications that follow an entry's reply on the tape, before the next request's. */
export function looseAfter(tape: RecordedTape, entry: TapeEntry): LooseNotification[] {
  const later = tape.entries.filter((other) => other.at > entry.at).map((other) => other.at);
  const until = Math.min(tape.end?.at ?? Infinity, ...later);
  return tape.loose.filter((notification) => !notification.sent && notification.at > entry.at && notification.at < until);
}
