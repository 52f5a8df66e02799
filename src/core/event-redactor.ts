/**
 * Redacts a stream of RunEvents for the tape and for every printed form of it. Most events are
 * redacted one by one; the chunks of a streamed answer are held until the stream's last chunk, then
 * redacted as one text and cut again at the same chunk boundaries — so a key split across two chunks
 * leaves no fragment in either. A text a stream carries in pieces besides its chunks' (a reasoning
 * text, logprob tokens) gets the same treatment in the chunks' raw server-sent events, recorded at
 * the transport, and so do the logprob tokens of a whole reply body (json-recut.ts); a raw event
 * always says what its chunk says (when it cannot, the stream's raw events are dropped and a replay
 * rebuilds them). The user's own redaction patterns are not written to the tape (a pattern can be
 * the very secret it hides): a recorded config keeps `redact: []`.
 */
import type { LlmChunkEvent, RunEvent } from './events.js';
import { jsonLeaves, recutJson, recutLeaves, withLeaves, type JsonLeaf } from './json-recut.js';
import type { LlmChunk } from './llm.js';
import { sseEvents, type RawSseEvent } from './sse.js';
import { REDACTED, type Redactor, type Span } from './redact.js';

export class EventRedactor {
  private held: LlmChunkEvent[] = [];

  constructor(private readonly redact: Redactor) {}

  /** The events to write or show now, redacted and in order (none while a stream is under way). */
  accept(event: RunEvent): RunEvent[] {
    if (event.type === 'llm_chunk') {
      this.held.push(event);
      return event.chunk.finished ? this.release() : [];
    }
    const out = this.held.length > 0 ? this.release() : [];
    out.push(this.redact(event.type === 'run_start' ? { ...event, config: configForTape(event.config) } : withBodyRecut(event, this.redact)));
    return out;
  }

  /** What is still held: the chunks of a stream that never finished. */
  flush(): RunEvent[] {
    return this.held.length > 0 ? this.release() : [];
  }

  private release(): RunEvent[] {
    const events = this.held;
    this.held = [];
    const chunks = recutChunks(events.map((e) => e.chunk), this.redact);
    const raws = recutRaws(events, chunks, this.redact);
    return events.map((event, i) => {
      const out: LlmChunkEvent = { ...event, chunk: chunks[i] as LlmChunk };
      if (raws === null) delete out.raw;
      else if (raws[i] !== undefined) out.raw = raws[i];
      return out;
    });
  }
}

/**
 * A reply body (of a model reply, a model error, an opaque exchange) with the texts it carries in
 * pieces (logprob tokens) redacted as wholes: json-recut.ts. The deep redaction of the event follows.
 */
function withBodyRecut(event: RunEvent, redact: Redactor): RunEvent {
  if ((event.type === 'llm_response' || event.type === 'llm_error') && event.http?.body !== undefined) {
    const body = recutJson(event.http.body, redact);
    return body === event.http.body ? event : { ...event, http: { ...event.http, body } };
  }
  if (event.type === 'http_exchange' && event.response.body !== undefined) {
    const body = recutJson(event.response.body, redact);
    return body === event.response.body ? event : { ...event, response: { ...event.response, body } };
  }
  return event;
}

/**
 * A config as a tape keeps it: without the user's redaction patterns, and with the values its MCP
 * servers' `env` and `headers` pass redacted (mcpServersForTape).
 */
export function configForTape(config: Record<string, unknown>): Record<string, unknown> {
  let out = Array.isArray(config.redact) && config.redact.length > 0 ? { ...config, redact: [] } : config;
  if (config.mcpServers !== undefined) out = { ...out, mcpServers: mcpServersForTape(config.mcpServers) };
  return out;
}

/**
 * `mcpServers` as a tape records it: every `env` and `headers` value replaced by `[REDACTED]`
 * (their keys kept, so a reader sees what was passed): a config may write a secret there as it
 * is, not only as `${VAR}`.
 */
export function mcpServersForTape(servers: unknown): unknown {
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) return servers;
  const out: Record<string, unknown> = {};
  for (const [name, server] of Object.entries(servers as Record<string, unknown>)) {
    if (typeof server !== 'object' || server === null || Array.isArray(server)) {
      out[name] = server;
      continue;
    }
    const copy: Record<string, unknown> = { ...(server as Record<string, unknown>) };
    for (const key of ['env', 'headers']) {
      const values = copy[key];
      if (typeof values === 'object' && values !== null && !Array.isArray(values)) {
        copy[key] = Object.fromEntries(Object.keys(values).map((k) => [k, REDACTED]));
      }
    }
    out[name] = copy;
  }
  return out;
}


/**
 * The chunks of one stream with their text and each tool call's argument text redacted as wholes,
 * then cut again where the chunks were cut: a secret is replaced in the chunk where it starts, and
 * its remainder dropped from the chunks after.
 */
export function recutChunks(chunks: readonly LlmChunk[], redact: Redactor): LlmChunk[] {
  const out = chunks.map((chunk) => redactOther(chunk, redact));
  const contents = recut(chunks.map((c) => c.content), redact);
  contents.forEach((content, i) => {
    if (content !== undefined) (out[i] as LlmChunk).content = content;
  });
  const callIndexes = new Set<number>();
  for (const chunk of chunks) for (const call of chunk.toolCalls ?? []) callIndexes.add(call.index);
  for (const index of callIndexes) {
    const pieces = chunks.map((c) => c.toolCalls?.find((t) => t.index === index)?.arguments);
    recut(pieces, redact).forEach((args, i) => {
      const call = (out[i] as LlmChunk).toolCalls?.find((t) => t.index === index);
      if (call !== undefined && args !== undefined) call.arguments = args;
    });
  }
  return out;
}

/** A chunk's other text (names, ids, an error) redacted on its own; tool-call deltas copied for editing. */
function redactOther(chunk: LlmChunk, redact: Redactor): LlmChunk {
  const copy: LlmChunk = { ...chunk };
  if (chunk.error !== undefined) copy.error = redact.text(chunk.error);
  if (chunk.toolCalls !== undefined) {
    copy.toolCalls = chunk.toolCalls.map((call) => {
      const next = { ...call };
      if (call.id !== undefined) next.id = redact.text(call.id);
      if (call.name !== undefined) next.name = redact.text(call.name);
      return next;
    });
  }
  return copy;
}

/** Pieces of one text (undefined: the chunk has none), redacted as a whole and cut at the same places. */
function recut(pieces: readonly (string | undefined)[], redact: Redactor): (string | undefined)[] {
  const whole = pieces.map((p) => p ?? '').join('');
  const spans = redact.spans(whole);
  if (spans.length === 0) return [...pieces];
  let start = 0;
  return pieces.map((piece) => {
    if (piece === undefined) return undefined;
    const end = start + piece.length;
    const cut = cutSpans(whole, start, end, spans);
    start = end;
    return cut;
  });
}

/** The part `[from, to)` of `text` with the spans replaced: a span's `[REDACTED]` goes where it starts. */
function cutSpans(text: string, from: number, to: number, spans: readonly Span[]): string {
  let out = '';
  let at = from;
  for (const [start, end] of spans) {
    if (end <= from || start >= to) continue;
    if (start >= from) {
      out += text.slice(at, start) + REDACTED;
    }
    at = Math.max(at, Math.min(end, to));
  }
  return out + text.slice(at, to);
}

/**
 * The raw events of a stream's chunks, redacted as json-recut.ts says: the strings of all their
 * server-sent events grouped across the stream (a chunk's text, a tool call's arguments, a
 * reasoning text, logprob tokens: each its own group), each group redacted as one text and cut
 * again; an event whose strings changed is written again (its `data:` re-serialised, its other
 * lines kept), the others are left byte for byte; then each raw text is redacted as a whole.
 *
 * A raw event says what its chunk says: every string in it equal to a piece of its chunk (its text,
 * a tool call's arguments) ends up as that piece does in the recut chunk — taking the chunk's cut
 * when the groups left it alone. Null when that cannot be (a changed piece in no string of its
 * event, or cut otherwise there): the raw events are then not kept at all.
 */
function recutRaws(events: readonly LlmChunkEvent[], chunks: readonly LlmChunk[], redact: Redactor): (string | undefined)[] | null {
  const parts = events.map((event) => (event.raw === undefined ? undefined : sseParts(event.raw)));
  recutLeaves(parts.flatMap((own) => own ?? []).flatMap((part) => part.leaves), redact);
  for (const [i, event] of events.entries()) {
    const own = parts[i];
    if (own === undefined) continue;
    const leaves = own.flatMap((part) => part.leaves);
    const after = chunks[i] as LlmChunk;
    const pieces: [string | undefined, string | undefined][] = [[event.chunk.content, after.content]];
    for (const call of event.chunk.toolCalls ?? []) pieces.push([call.arguments, after.toolCalls?.find((c) => c.index === call.index)?.arguments]);
    for (const [before, cut] of pieces) {
      if (before === undefined || before === '') continue;
      const now = cut ?? '';
      const same = leaves.filter((leaf) => leaf.value === before);
      if (now !== before && same.length === 0) return null;
      for (const leaf of same) {
        if (leaf.next === now) continue;
        if (leaf.next !== leaf.value) return null;
        leaf.next = now;
      }
    }
  }
  return parts.map((own) => (own === undefined ? undefined : redact.text(own.map(partText).join(''))));
}

/** One server-sent event of a raw text: its text, and the strings of its `data:` when that is JSON. */
interface SsePart {
  text: string;
  data?: unknown;
  leaves: JsonLeaf[];
}

/** The server-sent events of a raw text (split as the transport's reader splits them), parsed. */
function sseParts(raw: string): SsePart[] {
  return sseEvents(raw).map(ssePart);
}

function ssePart({ raw: text, data: body, event }: RawSseEvent): SsePart {
  const name = event ?? '';
  if (body === '' || body.trim() === '[DONE]') return { text, leaves: [] };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { text, leaves: [] };
  }
  return { text, data: value, leaves: jsonLeaves(value, sseScope(name, value)) };
}

/** What tells one event's pieces from another's: its name and the top-level fields that say which part of the reply it adds to. */
function sseScope(name: string, data: unknown): string {
  const scope = [name];
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    const fields = data as Record<string, unknown>;
    for (const key of ['type', 'output_index', 'content_index', 'summary_index', 'item_id']) {
      if (fields[key] !== undefined) scope.push(`${key}=${JSON.stringify(fields[key])}`);
    }
  }
  return JSON.stringify(scope);
}

/** An event's text: as it was, or, when its strings changed, with its data written again (one `data:` line). */
function partText(part: SsePart): string {
  if (part.data === undefined) return part.text;
  const data = withLeaves(part.data, part.leaves);
  if (data === part.data) return part.text;
  const pieces = part.text.split(/(\r\n|\n|\r)/);
  let out = '';
  let written = false;
  for (let i = 0; i < pieces.length; i += 2) {
    const line = pieces[i] as string;
    const end = pieces[i + 1] ?? '';
    if (/^data(:|$)/.test(line)) {
      if (!written) out += `data: ${JSON.stringify(data)}${end}`;
      written = true;
    } else {
      out += line + end;
    }
  }
  return out;
}
