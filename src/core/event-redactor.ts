/**
 * Redacts a stream of RunEvents for the tape and for every printed form of it. Most events are
 * redacted one by one; the chunks of a streamed answer are held until the stream's last chunk, then
 * redacted as one text and cut again at the same chunk boundaries — so a key split across two chunks
 * leaves no fragment in either (a chunk's raw server-sent event, recorded at the transport, gets the
 * same cut; when it cannot, the stream's raw events are dropped and a replay rebuilds them). The user's own redaction patterns are not written to the tape (a
 * pattern can be the very secret it hides): a recorded config keeps `redact: []`.
 */
import type { LlmChunkEvent, RunEvent } from './events.js';
import type { LlmChunk } from './llm.js';
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
    out.push(this.redact(event.type === 'run_start' ? { ...event, config: configForTape(event.config) } : event));
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

/** A config as a tape keeps it: without the user's redaction patterns. */
export function configForTape(config: Record<string, unknown>): Record<string, unknown> {
  return Array.isArray(config.redact) && config.redact.length > 0 ? { ...config, redact: [] } : config;
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
 * The raw events of a stream's chunks, with the same cuts as their chunks: where redaction changed
 * a chunk's text or a tool call's arguments, that piece (a whole JSON string in the event) is
 * replaced by its redacted form, then the event text is redacted as a whole. Null when a changed
 * piece is not found in its event exactly once: the raw events are then not kept at all.
 */
function recutRaws(events: readonly LlmChunkEvent[], chunks: readonly LlmChunk[], redact: Redactor): (string | undefined)[] | null {
  const out: (string | undefined)[] = [];
  for (const [i, event] of events.entries()) {
    let raw = event.raw;
    if (raw === undefined) {
      out.push(undefined);
      continue;
    }
    const after = chunks[i] as LlmChunk;
    const pieces: [string | undefined, string | undefined][] = [[event.chunk.content, after.content]];
    for (const call of event.chunk.toolCalls ?? []) pieces.push([call.arguments, after.toolCalls?.find((c) => c.index === call.index)?.arguments]);
    for (const [before, now] of pieces) {
      if (before === undefined || before === now) continue;
      // The piece is a whole JSON string in its event (`"content":"…"`, `"delta":"…"`): find it as one, once.
      const from = JSON.stringify(before);
      const at = raw.indexOf(from);
      if (at === -1 || raw.indexOf(from, at + 1) !== -1) return null;
      raw = raw.slice(0, at) + JSON.stringify(now ?? '') + raw.slice(at + from.length);
    }
    out.push(redact.text(raw));
  }
  return out;
}
