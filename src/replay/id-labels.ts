/**
 * Ids are labels: providers make up tool-call ids (`call_abc123`), response ids and `created` times
 * anew on every call, so two recordings of the same behaviour differ in them and nowhere else. Run
 * comparisons (`agentctl diff`, the replay comparator) therefore compare an id by where it is first
 * used, not by its text: each run gets its own `IdLabels`, which names every distinct tool-call id
 * after the step it first appears in and its order among that step's new ids (`call#2.0`,
 * `call#2.1`, …), and both sides are compared through their own labels. Two runs whose ids differ
 * only in text compare equal; a tool result that answers another call than on the other side still
 * differs (its label does). Labels are counted per step, so a step with an extra call does not
 * shift the labels of every later step.
 *
 * A tool-call id is labelled where the tape holds it: `tool_calls[].id` of a response or of an
 * assistant message in a request's `append`, `tool_call_id` of a tool message, `toolCalls[].id` of a
 * streamed chunk, `callId` of tool_call, tool_result and guardrail events, and the `(call <id>)` a
 * duplicate denial quotes (tool output, guardrail reason, the tool message). A reply recorded at
 * the transport (`http` of a response or error, `raw` of a chunk) has its ids labelled too (`id`,
 * `item_id`, `response_id` and the `x-request-id` / `request-id` headers as `id#…`; `call_id`,
 * `tool_call_id` and the ids of `tool_calls` entries as calls) and its `created` / `created_at`
 * times and `openai-processing-ms` header blanked: those are timing, like `t`. Opaque
 * `http_exchange` events are left alone: there an `id` may be a model's or a file's name.
 *
 * Labels come in two forms with the same meaning. `new IdLabels()` names ids by position
 * (`call#2.0`), for comparing two runs neither of which is the reference (`agentctl diff`). The replay
 * comparator instead reads the replay in the tape's terms: the tape keeps its own ids
 * (`IdLabels.keepingIds()`, which records where each first appears) and the replay's ids are named
 * after the tape's id at the same position (`IdLabels.translatingInto(tape)`). Two ids compare equal
 * either way exactly when they first appear at the same place, but a replay that uses the tape's
 * ids — every replay that follows its tape — then needs no relabelled copies of its events or the
 * tape's. An id of the replay with no counterpart on the tape is named by its position. So that the
 * names stay apart, a tape id that looks like a position name or starts with `?` or `!` is kept
 * with a `!` in front (`!call#0.1`), and a quoted id not seen is marked with a `?` (see references).
 */
import type { HttpReply, LlmRequestEvent, RunEvent } from '../core/events.js';
import type { ChatMessage, ToolCall } from '../core/messages.js';
import type { ToolCallDelta } from '../core/llm.js';
import { canonicalJson } from '../guardrails/canonical-json.js';
import { sameJson } from '../core/same-json.js';

/** What an id names: a tool call, or (in a transport reply) a response, item or chunk. */
export type IdKind = 'call' | 'id';

/** What a blanked `created` / `created_at` time reads as. */
export const BLANK_TIME = '(time)';

const LABEL = /^(?:call|id)#\d+\.\d+$/;
/** A label anywhere in a text, e.g. in the JSON of a value that holds one. */
export const ID_LABEL_TEXT = /\b(?:call|id)#\d+\.\d+\b/;

/** True for a label (`call#2.0`, `id#0.1`): what a comparison shows in place of an id. */
export function isIdLabel(value: unknown): value is string {
  return typeof value === 'string' && LABEL.test(value);
}

/** `(call call_abc)` in the denial of a duplicate call (guardrails/messages.ts describeEarlierCall). */
const CALL_REFERENCE = /\(call ([^\s()]+)\)/g;

/** Keys of a transport reply whose string value is a tool-call id. */
const CALL_ID_KEYS = new Set(['call_id', 'tool_call_id']);
/** Keys of a transport reply whose string value is another made-up id (`tool_calls` entries' `id` aside). */
const OTHER_ID_KEYS = new Set(['id', 'item_id', 'response_id']);
const TIME_KEYS = new Set(['created', 'created_at']);
/** Reply headers (as a tape keeps them, lower-case) that carry a made-up id, or timing. */
const ID_HEADERS = new Set(['x-request-id', 'request-id']);
const TIME_HEADERS = new Set(['openai-processing-ms']);

/** One run's labels; feed it the run's events in order (`event` labels as it goes). */
export class IdLabels {
  private readonly labels: Record<IdKind, Map<string, string>> = { call: new Map(), id: new Map() };
  /**
   * The labels of the ids each step introduced, per kind and in order: `introduced.call.get(3)[1]`
   * is the label of the second call id step 3 introduced (its position, `call#3.1`). Keeping ids,
   * that is the id itself: what a translating IdLabels names its own id at that position.
   */
  private readonly introduced: Record<IdKind, Map<number, string[]>> = { call: new Map(), id: new Map() };

  /**
   * @param keep the ids are their own labels (a translating IdLabels reads them by position)
   * @param reference name each id after the reference's id at the same position
   */
  constructor(private readonly keep = false, private readonly reference: IdLabels | null = null) {}

  /** Labels that are the ids themselves: the side the other is read against (a replay's tape). */
  static keepingIds(): IdLabels {
    return new IdLabels(true);
  }

  /** Labels that are `reference`'s ids at the same positions (a replay read in its tape's terms). */
  static translatingInto(reference: IdLabels): IdLabels {
    return new IdLabels(false, reference);
  }

  /** The label of `id`, giving it the next one of `step` when it is new. */
  label(id: string, step: number, kind: IdKind = 'call'): string {
    const known = this.labels[kind].get(id);
    if (known !== undefined) return known;
    let inStep = this.introduced[kind].get(step);
    if (inStep === undefined) this.introduced[kind].set(step, (inStep = []));
    const n = inStep.length;
    let label: string;
    if (this.keep) label = kept(id);
    else label = (this.reference?.keep === true ? this.reference.introduced[kind].get(step)?.[n] : undefined) ?? `${kind}#${step}.${n}`;
    inStep.push(label);
    this.labels[kind].set(id, label);
    return label;
  }

  /**
   * The event with its ids replaced by their labels (labelling new ones in the order they appear),
   * or the event itself when it holds none. Never changes the event it is given.
   */
  event<E extends RunEvent>(event: E): E;
  event(event: RunEvent): RunEvent {
    const { step } = event;
    switch (event.type) {
      case 'llm_request': {
        const append = this.messages(event.append, step);
        return append === event.append ? event : { ...event, append };
      }
      case 'llm_chunk': {
        const calls = event.chunk.toolCalls;
        const toolCalls = calls === undefined ? undefined : mapSame(calls, (call) => this.delta(call, step));
        const raw = event.raw === undefined ? undefined : this.sse(event.raw, step);
        if (toolCalls === calls && raw === event.raw) return event;
        const labelled = { ...event, chunk: toolCalls === calls ? event.chunk : { ...event.chunk, toolCalls } };
        if (raw !== undefined) labelled.raw = raw;
        return labelled;
      }
      case 'llm_response': {
        const message = this.message(event.response.message, step);
        const http = event.http === undefined ? undefined : this.reply(event.http, step);
        if (message === event.response.message && http === event.http) return event;
        const labelled = { ...event, response: message === event.response.message ? event.response : { ...event.response, message } };
        if (http !== undefined) labelled.http = http;
        return labelled;
      }
      case 'llm_error': {
        const http = event.http === undefined ? undefined : this.reply(event.http, step);
        return http === event.http || http === undefined ? event : { ...event, http };
      }
      case 'tool_call': {
        const callId = this.label(event.callId, step);
        return callId === event.callId ? event : { ...event, callId };
      }
      case 'tool_result': {
        const callId = this.label(event.callId, step);
        const output = this.references(event.output);
        return callId === event.callId && output === event.output ? event : { ...event, callId, output };
      }
      case 'guardrail': {
        const callId = event.callId === undefined ? undefined : this.label(event.callId, step);
        const reason = this.references(event.reason);
        if (callId === event.callId && reason === event.reason) return event;
        return callId === undefined ? { ...event, reason } : { ...event, callId, reason };
      }
      default:
        return event;
    }
  }

  /** The message with its tool-call ids (and quoted ones) labelled, or itself when it has none. */
  message<M extends ChatMessage>(message: M, step: number): M;
  message(message: ChatMessage, step: number): ChatMessage {
    if (message.role === 'assistant') {
      const calls = message.tool_calls;
      if (calls === undefined) return message;
      const labelled = mapSame(calls, (call): ToolCall => {
        const id = this.label(call.id, step);
        return id === call.id ? call : { ...call, id };
      });
      return labelled === calls ? message : { ...message, tool_calls: labelled };
    }
    if (message.role === 'tool') {
      const id = this.label(message.tool_call_id, step);
      const content = this.references(message.content);
      return id === message.tool_call_id && content === message.content ? message : { ...message, tool_call_id: id, content };
    }
    return message;
  }

  /** Messages labelled in order; the same array when none changed. */
  messages(messages: readonly ChatMessage[], step: number): ChatMessage[] {
    return mapSame(messages as ChatMessage[], (message) => this.message(message, step));
  }

  /**
   * `(call <id>)` with a known id as `(call <label>)`; an id not seen (yet) stays as it is. Where the
   * labels are ids (keeping or translating), an id not seen is marked instead (`(call ?<id>)`), so that
   * it still differs from a known id of the same text, as a label would.
   */
  private references(text: string): string {
    if (!text.includes('(call ')) return text;
    const mark = this.keep || this.reference !== null;
    return text.replace(CALL_REFERENCE, (whole, id: string) => {
      const label = this.labels.call.get(id);
      if (label !== undefined) return `(call ${label})`;
      return mark ? `(call ?${id})` : whole;
    });
  }

  private delta(call: ToolCallDelta, step: number): ToolCallDelta {
    if (call.id === undefined) return call;
    const id = this.label(call.id, step);
    return id === call.id ? call : { ...call, id };
  }

  private reply(reply: HttpReply, step: number): HttpReply {
    let headers: Record<string, string> | null = null;
    for (const [name, value] of Object.entries(reply.headers)) {
      const next = ID_HEADERS.has(name) ? this.label(value, step, 'id') : TIME_HEADERS.has(name) ? BLANK_TIME : value;
      if (next !== value) (headers ??= { ...reply.headers })[name] = next;
    }
    const body = reply.body === undefined ? undefined : this.wire(reply.body, step, false);
    if (headers === null && body === reply.body) return reply;
    const labelled: HttpReply = { ...reply, headers: headers ?? reply.headers };
    if (body !== undefined) labelled.body = body;
    return labelled;
  }

  /** Server-sent events as recorded: each `data:` line that is JSON, labelled (and written compactly when it changed). */
  private sse(raw: string, step: number): string {
    const lines = raw.split('\n');
    const labelled = mapSame(lines, (line) => {
      const match = /^data: ?(.*?)(\r?)$/.exec(line);
      const data = match?.[1];
      if (data === undefined || !(data.startsWith('{') || data.startsWith('['))) return line;
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        return line;
      }
      const value = this.wire(parsed, step, false);
      return value === parsed ? line : `data: ${JSON.stringify(value)}${match?.[2] ?? ''}`;
    });
    return labelled === lines ? raw : labelled.join('\n');
  }

  /** A transport body: ids labelled, times blanked; the same value when nothing changed. `inCalls`: an entry of `tool_calls`. */
  private wire(value: unknown, step: number, inCalls: boolean): unknown {
    if (Array.isArray(value)) return mapSame(value, (item) => this.wire(item, step, inCalls));
    if (value === null || typeof value !== 'object') return value;
    const record = value as Record<string, unknown>;
    let copy: Record<string, unknown> | null = null;
    for (const [key, item] of Object.entries(record)) {
      let next: unknown;
      if (typeof item === 'string' && (CALL_ID_KEYS.has(key) || (key === 'id' && inCalls))) next = this.label(item, step, 'call');
      else if (typeof item === 'string' && OTHER_ID_KEYS.has(key)) next = this.label(item, step, 'id');
      else if (typeof item === 'number' && TIME_KEYS.has(key)) next = BLANK_TIME;
      else if (Array.isArray(item)) next = mapSame(item, (entry) => this.wire(entry, step, key === 'tool_calls'));
      else next = this.wire(item, step, false);
      if (next !== item) (copy ??= { ...record })[key] = next;
    }
    return copy ?? record;
  }
}

/**
 * What a request's hash covers that its event does not show: the tool definitions (the event has
 * their names), the temperature and the token limit. Two requests whose conversations are the same
 * text have equal hashes exactly when those agree as well; requests whose conversations differ in
 * ids have different hashes whatever the settings, so their hashes say nothing. This keeps, per set
 * of visible settings (model, stream, tool names, endpoint, params), whether every pair of requests
 * with textually equal conversations seen so far had equal hashes — the evidence that the unseen
 * settings agree, which a pair that differs only in ids relies on.
 */
export class HashedSettings {
  private readonly agreed = new Map<string, boolean>();
  /** The last request keyed, and its key: a run shows the same settings every step, so they are serialised once. */
  private last: LlmRequestEvent | null = null;
  private lastKey = '';

  /** Two requests whose conversations are textually the same (so their hashes are comparable). */
  note(a: LlmRequestEvent, b: LlmRequestEvent): void {
    if (!sameSettings(a, b)) return;
    const key = this.keyOf(a);
    if (a.hash !== b.hash) this.agreed.set(key, false);
    else if (!this.agreed.has(key)) this.agreed.set(key, true);
  }

  /** True when the two requests show the same settings and those have only ever come with agreeing hashes. */
  agree(a: LlmRequestEvent, b: LlmRequestEvent): boolean {
    return sameSettings(a, b) && this.agreed.get(this.keyOf(a)) === true;
  }

  private keyOf(request: LlmRequestEvent): string {
    if (this.last === null || !sameSettings(request, this.last)) {
      this.last = request;
      this.lastKey = canonicalJson(visibleSettings(request));
    }
    return this.lastKey;
  }
}

function visibleSettings(request: LlmRequestEvent): unknown[] {
  return [request.model, request.stream, request.tools, request.endpoint ?? null, request.params ?? null];
}

/** Whether two requests show the same settings: what comparing their visibleSettings' canonical JSON would say. */
function sameSettings(a: LlmRequestEvent, b: LlmRequestEvent): boolean {
  return a.model === b.model && a.stream === b.stream && (a.endpoint ?? null) === (b.endpoint ?? null) &&
    sameJson(a.tools, b.tools) && sameJson(a.params ?? null, b.params ?? null);
}

/**
 * A kept id, told apart from the other names a kept or translated label can be: a position name
 * (`call#2.0`, for a replay id the tape has no counterpart for) and a marked quote (`?call_x`).
 * Ids never look like those in practice; one that does is kept with a `!` in front (as is one that
 * starts with `!`, so no two ids are kept alike).
 */
function kept(id: string): string {
  return LABEL.test(id) || id.startsWith('?') || id.startsWith('!') ? `!${id}` : id;
}

/** `list.map(f)`, but the list itself when `f` returned every item unchanged. */
function mapSame<T>(list: T[], f: (item: T) => T): T[] {
  let out: T[] | null = null;
  for (let i = 0; i < list.length; i++) {
    const item = list[i] as T;
    const next = f(item);
    if (next !== item) (out ??= list.slice(0, i)).push(next);
    else if (out !== null) out.push(item);
  }
  return out ?? list;
}
