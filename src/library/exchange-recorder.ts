/**
 * Calls that are not model calls, recorded at the transport as opaque `http_exchange` pairs (see
 * recording-fetch.ts): the reply passed on as it arrives and recorded whole when it ends.
 */
import type { Redactor } from '../core/redact.js';
import { describe, keptHeaders, MAX_RECORDED_BODY, passHeaders, readExchangeRequest, rebuilt, recordedBody, sizeText } from '../llm/transport/http-reply.js';
import type { FetchLike } from './fetch-like.js';
import { recordableUrl, type RecordingSession } from './recording-session.js';

/**
 * Anything that is not a model call: an opaque pair. The reply is passed on as it arrives (a stream,
 * a slow download) and recorded when its body ends — as text, or as base64 when it is not text — its
 * last piece held back until the exchange is written when its length is known, its end otherwise.
 * A body larger than MAX_RECORDED_BODY is passed on whole and recorded cut short (`truncated`, with a
 * warning); one the client stopped reading, or that broke, is recorded as far as it arrived.
 */
export async function recordExchange(session: RecordingSession, redact: Redactor, upstream: FetchLike, request: Request): Promise<Response> {
  const url = new URL(request.url);
  // Not a call to a server (the SDK's `fetch('data:,')` probe before an upload): nothing to record.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return upstream(request);
  const started = session.clock.now();
  await session.start({ model: 'unknown', baseUrl: recordableUrl(`${url.origin}/`) });
  const sent = await readExchangeRequest(request, redact);
  const reply = await upstream(request);
  const headers = keptHeaders(reply.headers);
  const record = async (bytes: Uint8Array, cut?: string): Promise<void> => {
    const { blanked, ...kept } = recordedBody(bytes, reply.headers.get('content-type'), redact, 'reply');
    const step = session.currentStep;
    await session.write({
      type: 'http_exchange',
      step,
      method: sent.method,
      path: sent.path,
      ...(sent.body === undefined ? {} : { body: sent.body }),
      ...(sent.bodyEncoding === undefined ? {} : { bodyEncoding: sent.bodyEncoding }),
      hash: sent.hash,
      response: { status: reply.status, headers, ...kept, ...(cut === undefined ? {} : { truncated: true }) },
      durationMs: session.clock.now() - started,
    });
    if (cut !== undefined) await session.write({ type: 'warning', step, message: `the reply to ${sent.method} ${sent.path} ${cut}` });
    if (blanked === true || sent.blanked === true) {
      await session.write({
        type: 'warning',
        step,
        message: `some bytes of the ${blanked === true ? 'reply to' : 'request body of'} ${sent.method} ${sent.path} are recorded as zeros: their base64 looked like a secret to the redactor`,
      });
    }
  };
  if (reply.body === null || reply.status === 204 || reply.status === 304) {
    await record(new Uint8Array());
    return rebuilt(reply, '');
  }
  return passThrough(session, request, reply, record);
}

/** An opaque reply's body passed on piece by piece, kept (up to MAX_RECORDED_BODY) for `record`. */
type RecordBody = (bytes: Uint8Array, cut?: string) => Promise<void>;

function passThrough(session: RecordingSession, request: Request, reply: Response, record: RecordBody): Response {
  const source = (reply.body as ReadableStream<Uint8Array>).getReader();
  // The length the body will have, when the server said and fetch does not decode it.
  const encoding = (reply.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  const length = encoding === 'identity' ? Number(reply.headers.get('content-length') ?? Number.NaN) : Number.NaN;
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let passed = 0;
  let cancelled = false;
  let recorded: Promise<void> | undefined;
  let ended = (): void => {};
  const whenEnded = new Promise<void>((resolve) => (ended = resolve));
  // Once the client gives up on the body, the run's end waits for what that records.
  request.signal.addEventListener('abort', () => session.track(whenEnded), { once: true });
  /** Record what was kept, once. */
  const finish = (cut?: string): Promise<void> => {
    recorded ??= (async () => {
      try {
        await record(Buffer.concat(kept, keptBytes), cut);
      } finally {
        kept.length = 0;
        ended();
      }
    })();
    return recorded;
  };
  const TOO_LARGE = `is larger than a tape keeps (${sizeText(MAX_RECORDED_BODY)}): it was passed on whole, and its first ${MAX_RECORDED_BODY} bytes are recorded (truncated)`;
  const body = new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        try {
          const { done, value } = await source.read();
          if (done) {
            const stopped = cancelled || request.signal.aborted;
            await finish(stopped ? `was not read to its end by the client: recorded the ${passed} bytes that had arrived (truncated)` : undefined);
            controller.close();
            return;
          }
          passed += value.length;
          if (recorded === undefined) {
            const room = MAX_RECORDED_BODY - keptBytes;
            kept.push(value.slice(0, room));
            keptBytes += Math.min(room, value.length);
            if (value.length > room) await finish(TOO_LARGE);
            // Its last piece reaches the client once the exchange is written.
            else if (passed === length) await finish();
          }
          controller.enqueue(value);
        } catch (error) {
          const how = request.signal.aborted ? 'was aborted by the client' : `broke (${describe(error)})`;
          await finish(`${how}: recorded the ${passed} bytes that had arrived (truncated)`).catch(() => undefined);
          controller.error(error);
        }
      },
      cancel: async (reason) => {
        session.track(whenEnded);
        cancelled = true;
        await source.cancel(reason).catch(() => undefined);
        await finish(`was not read to its end by the client: recorded the ${passed} bytes that had arrived (truncated)`);
      },
    },
    // Read ahead up to what a tape keeps, so a body the client reads late (or never) is still recorded.
    new ByteLengthQueuingStrategy({ highWaterMark: MAX_RECORDED_BODY }),
  );
  return new Response(body, { status: reply.status, statusText: reply.statusText, headers: passHeaders(reply.headers) });
}
