/**
 * Server-sent events, read incrementally and kept verbatim: each event comes with its raw text, so
 * a recorded stream can be served back byte for byte (src/library/recording-fetch.ts) and its
 * raw events redacted where they are (event-redactor.ts). One parser for both.
 */

/** One server-sent event: its `event:` name (absent for plain `data:` events) and its `data:` text. */
export interface SseEvent {
  event?: string;
  data: string;
}

export interface RawSseEvent extends SseEvent {
  /** The event's text as it arrived, with the blank line that ended it. */
  raw: string;
}

/** Splits a stream's text into events as it arrives. */
export class SseReader {
  private buffer = '';

  /** Take more text; returns the events it completed. */
  push(text: string): RawSseEvent[] {
    // What was searched before holds no event's end, but may hold the start of one (3 characters at
    // most): a long event arriving in pieces is searched once, not once per piece.
    const end = /\r\n\r\n|\n\n|\r\r/g;
    end.lastIndex = Math.max(0, this.buffer.length - 3);
    this.buffer += text;
    const out: RawSseEvent[] = [];
    for (let found = end.exec(this.buffer); found !== null; found = end.exec(this.buffer)) {
      const raw = this.buffer.slice(0, found.index + found[0].length);
      this.buffer = this.buffer.slice(raw.length);
      out.push(parseEvent(raw));
      end.lastIndex = 0;
    }
    return out;
  }

  /** The length of the event under way (text taken that ends no event yet). */
  get pending(): number {
    return this.buffer.length;
  }

  /** What is left when the stream ends: an event without its closing blank line, or nothing. */
  rest(): RawSseEvent | undefined {
    const raw = this.buffer;
    this.buffer = '';
    return raw.trim() === '' ? (raw === '' ? undefined : { data: '', raw }) : parseEvent(raw);
  }
}

function parseEvent(raw: string): RawSseEvent {
  const data: string[] = [];
  let name: string | undefined;
  for (const line of raw.split(/\r\n|\n|\r/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') name = value;
  }
  const event: RawSseEvent = { data: data.join('\n'), raw };
  if (name !== undefined) event.event = name;
  return event;
}

/** All the events of a complete text, the last one with or without its closing blank line. */
export function sseEvents(text: string): RawSseEvent[] {
  const reader = new SseReader();
  const events = reader.push(text);
  const rest = reader.rest();
  if (rest !== undefined) events.push(rest);
  return events;
}

/** Events as the text of a stream. */
export function sseText(events: readonly SseEvent[]): string {
  return events.map((e) => `${e.event === undefined ? '' : `event: ${e.event}\n`}data: ${e.data}\n\n`).join('');
}
