/**
 * A model call's streamed reply, passed on event by event and recorded as it goes (for
 * recording-fetch.ts): one `llm_chunk` per event that adds to the answer, with its raw text; then
 * `llm_response`, or the terminal chunk with the break and `llm_error` when the stream broke. The
 * last event waits for the synced response.
 *
 * A stream is recorded within what a tape keeps (http-reply.ts): its events are held until it ends,
 * to be redacted as one text, so one longer than MAX_RECORDED_STREAM, or with one event larger than
 * MAX_RECORDED_BODY, is cut there — its client sees the stream break after the events that fit, the
 * tape records the same events and the same break, and a replay breaks it the same way. So neither
 * a run nor the process holds more of a stream than that, however long the upstream goes on.
 */
import type { HttpReply, RunEventInput } from '../core/events.js';
import type { LlmResponse } from '../core/llm.js';
import { SseReader, type RawSseEvent } from '../core/sse.js';
import { describe, MAX_RECORDED_BODY, MAX_RECORDED_STREAM, passHeaders, sizeText } from '../llm/transport/http-reply.js';
import type { ModelWire, WireStream } from '../llm/transport/wire.js';
import type { CallSlot, RecordingSession } from './recording-session.js';

/** What recordedStream needs of the call it records. */
export interface StreamCall {
  session: RecordingSession;
  request: Request;
  reply: Response;
  slot: CallSlot;
  wire: ModelWire;
  /** The reply's headers as a tape keeps them. */
  headers: Record<string, string>;
  /** Record the call's answer, synced. */
  answer(response: LlmResponse, durationMs: number, http: HttpReply): Promise<void>;
  /** Record the call's failure. */
  fail(message: string): Promise<void>;
}

/**
 * The reason to cancel a recorded stream's body with when it is cut on the client's way (a proxy
 * shutting down), not by the client: it is recorded as a stream that broke, as the client saw it.
 */
export class StreamCut extends Error {}

const STOPPED = 'the client stopped reading the stream';
const STREAM_TOO_LONG = `the stream is longer than a tape keeps (${sizeText(MAX_RECORDED_STREAM)}): it was cut there`;
const EVENT_TOO_LARGE = `an event of the stream is larger than a tape keeps (${sizeText(MAX_RECORDED_BODY)}): the stream was cut there`;

/** Pass a stream through event by event, recording each; the last event waits for the synced response. */
export function recordedStream(call: StreamCall): Response {
  const { session, request, reply, slot } = call;
  const source = (reply.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const sse = new SseReader();
  const wire: WireStream = call.wire.stream();
  const offset = (): number => session.clock.now() - slot.started;
  /** Raw text read but not yet given to a chunk (for the tape). */
  let raw = '';
  /** Text for the client held back until the response is on disk: everything from the finish on. */
  let held = '';
  /** The raw text of the events taken so far (what the tape holds of the stream). */
  let taken = 0;
  let settled = false;
  /** The client cancelled the body (it stopped reading). */
  let cancelled = false;
  const chunkEvent = (chunk: ReturnType<WireStream['terminal']>, text: string): RunEventInput => {
    const event: RunEventInput = { type: 'llm_chunk', step: slot.iteration, iteration: slot.iteration, attempt: slot.attempt, chunk };
    if (text !== '') event.raw = text;
    return event;
  };
  let ended = (): void => {};
  const whenEnded = new Promise<void>((resolve) => (ended = resolve));
  // Once the client gives up on the stream, the run's end waits for what that records.
  request.signal.addEventListener('abort', () => session.track(whenEnded), { once: true });
  /**
   * The stream is over: it finished, broke (`error`), was cut where a tape stops keeping it
   * (`error` and `cut`: what was read past that is not the tape's), or the client stopped reading it (`stopped`).
   */
  const end = async (how: { error?: string; cut?: boolean; stopped?: boolean } = {}): Promise<void> => {
    try {
      await ending(how);
    } finally {
      ended();
    }
  };
  const ending = async (how: { error?: string; cut?: boolean; stopped?: boolean }): Promise<void> => {
    settled = true;
    const rest = sse.rest();
    if (rest !== undefined && how.cut !== true) {
      wire.add(rest, offset());
      raw += rest.raw;
      held += rest.raw;
    }
    const cut = how.stopped === true ? STOPPED : how.error;
    // The events not yet given to a chunk (e.g. `data: [DONE]`) go with the terminal one.
    await session.write(chunkEvent(wire.terminal(offset(), cut), how.stopped === true ? '' : raw));
    // A stream that carried an error event of its API's own failed, though it ended cleanly.
    const failed = how.error ?? (how.stopped === true ? undefined : wire.error);
    if (failed !== undefined) {
      await call.fail(failed);
      return;
    }
    if (how.stopped === true) {
      // It acts on what it got, so that is the response.
      await session.write({ type: 'warning', step: slot.iteration, message: `the client stopped reading the stream of iteration ${slot.iteration}; recorded what had arrived as the response` });
    } else if (!wire.hasFinishReason) {
      await session.write({ type: 'warning', step: slot.iteration, message: `the model stream of iteration ${slot.iteration} closed without a finish reason` });
    }
    await call.answer(wire.response(), offset(), { status: reply.status, headers: call.headers });
  };
  /** Why the stream was cut on the client's way (see StreamCut), if it was. */
  let cutBy: string | undefined;
  const cut = (): string | undefined => cutBy ?? (request.signal.reason instanceof StreamCut ? request.signal.reason.message : undefined);
  /** Take events: each chunk goes to the tape; returns the text to pass on now, and why the stream stops here if it must. */
  const take = (events: RawSseEvent[]): { now: string; tooLarge?: string } => {
    let now = '';
    for (const event of events) {
      const tooLarge = overLimits(event.raw.length);
      if (tooLarge !== undefined) return { now, tooLarge };
      taken += event.raw.length;
      raw += event.raw;
      const chunk = wire.add(event, offset());
      if (chunk !== undefined) {
        void session.write(chunkEvent(chunk, raw)).catch(() => undefined);
        raw = '';
      }
      if (held !== '' || wire.done || wire.hasFinishReason) held += event.raw;
      else now += event.raw;
    }
    // An event that has not ended yet counts too: the reader holds it.
    const tooLarge = overLimits(sse.pending);
    return tooLarge === undefined ? { now } : { now, tooLarge };
  };
  /** Why an event of this length may not be added to the stream's recording, if it may not. */
  const overLimits = (length: number): string | undefined =>
    length > MAX_RECORDED_BODY ? EVENT_TOO_LARGE : taken + length > MAX_RECORDED_STREAM ? STREAM_TOO_LONG : undefined;
  const body = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      try {
        for (;;) {
          const { done, value } = await source.read();
          if (done && cut() !== undefined) {
            await end({ error: cut() });
            controller.close();
            return;
          }
          if (done && (cancelled || request.signal.aborted)) {
            // The client gave up on the stream (a `break`, an abort): what it had is what it acts on.
            await end({ stopped: true });
            controller.close();
            return;
          }
          if (done) {
            const { now } = take(sse.push(decoder.decode()));
            if (now !== '') controller.enqueue(encoder.encode(now));
            // The end of the answer is passed on only once the response is on disk.
            await end();
            if (held !== '') controller.enqueue(encoder.encode(held));
            controller.close();
            return;
          }
          const { now, tooLarge } = take(sse.push(decoder.decode(value, { stream: true })));
          if (now !== '') controller.enqueue(encoder.encode(now));
          if (tooLarge !== undefined) {
            await source.cancel(tooLarge).catch(() => undefined);
            await end({ error: tooLarge, cut: true });
            controller.error(new TypeError(`terminated (agentctl: ${tooLarge})`));
            return;
          }
          if (now !== '') return;
        }
      } catch (error) {
        const how = cut() !== undefined ? { error: cut() } : request.signal.aborted ? { stopped: true } : { error: describe(error) };
        if (!settled) await end(how).catch(() => undefined);
        controller.error(error);
      }
    },
    cancel: async (reason) => {
      session.track(whenEnded);
      cancelled = true;
      // Cut by whoever relays it (a proxy shutting down): to the client the stream broke.
      if (reason instanceof StreamCut) cutBy = reason.message;
      await source.cancel(reason).catch(() => undefined);
      if (!settled) await end(cut() !== undefined ? { error: cut() } : { stopped: true });
    },
  });
  return new Response(body, { status: reply.status, statusText: reply.statusText, headers: passHeaders(reply.headers) });
}
