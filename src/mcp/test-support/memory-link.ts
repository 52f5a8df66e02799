/**
 * An McpLink that keeps its tape in memory, for tests of the wrapper and of what is built on it:
 * every written event gets its place (seq, step, t) and is checked against the tape's schema, as a
 * store would; a replay reads the events it is given. What the replay reported is kept in `notes`.
 */
import { runEventSchema } from '../../core/event-schema.js';
import type { RunEvent } from '../../core/events.js';
import type { McpCallInput, McpEventInput, McpLink, McpLinkMode, McpRecordedEvent, McpReplayNote } from '../link.js';

export interface MemoryLinkOptions {
  mode: McpLinkMode;
  strict?: boolean;
  allowSideEffects?: boolean;
  redact?: readonly string[];
  /** replay, new-episodes: the tape's events (any run events; the link hands over those of the server asked for). */
  recorded?: readonly RunEvent[];
  /** The step written events get (a run's current step). */
  step?: number;
}

export interface MemoryLink extends McpLink {
  /** The events written, placed. */
  readonly events: McpRecordedEvent[];
  readonly notes: McpReplayNote[];
  readonly closed: boolean;
  /** Later events get this step. */
  step: number;
}

const isMcpEvent = (event: RunEvent): event is McpRecordedEvent =>
  event.type === 'mcp_exchange' || ((event.type === 'tool_call' || event.type === 'tool_result') && event.server !== undefined);

export function memoryLink(options: MemoryLinkOptions): MemoryLink {
  const events: McpRecordedEvent[] = [];
  const notes: McpReplayNote[] = [];
  let calls = 0;
  let closed = false;
  const place = (input: McpCallInput | McpEventInput | (McpCallInput & { callId: string })): McpRecordedEvent => {
    const event = runEventSchema.parse({ ...input, seq: events.length, step: link.step, t: events.length }) as McpRecordedEvent;
    events.push(event);
    return event;
  };
  const link: MemoryLink = {
    mode: options.mode,
    strict: options.strict ?? true,
    allowSideEffects: options.allowSideEffects ?? options.mode === 'new-episodes',
    redact: options.redact ?? [],
    events,
    notes,
    step: options.step ?? 0,
    get closed() {
      return closed;
    },
    recorded: (server) => Promise.resolve((options.recorded ?? []).filter(isMcpEvent).filter((event) => event.server === server)),
    writeCall: (call) => {
      const callId = `mcp-${++calls}`;
      place({ ...call, callId });
      return Promise.resolve(callId);
    },
    write: (event) => {
      place(event);
      return Promise.resolve();
    },
    report: (note) => {
      notes.push(note);
      return Promise.resolve();
    },
    close: () => {
      closed = true;
      return Promise.resolve();
    },
  };
  return link;
}
