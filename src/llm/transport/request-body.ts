/**
 * A fetch's arguments as one Request, and its body read without reading the Request.
 *
 * Several stages read a call's body — the recorder (to parse and hash it), then the fetch that
 * sends it. A Request's body is a web stream: reading it without using it up needs `clone()` (a tee
 * of the stream), and each read runs the stream machinery; on a relayed call that was a sizeable part
 * of what the proxy adds to the first byte (BENCHMARKS.md, "Proxy overhead"). So a Request made here
 * from a body given as bytes or text remembers those bytes, and every reader takes them from here;
 * the Request itself stays unread, whole for any fetch it is handed to. A Request made elsewhere
 * (a user's) is read once, through a clone, and its bytes remembered the same way.
 */

/** The bytes of each Request's body, as it was made (a Request's body never changes). */
const bodies = new WeakMap<Request, Uint8Array>();

/**
 * A fetch's arguments as one Request: the Request itself when that is all there is (each new Request
 * made of one follows its signal with a signal of its own). A body given as bytes or a string is
 * remembered (see requestBytes).
 */
export function asRequest(input: string | URL | Request, init?: RequestInit): Request {
  if (input instanceof Request && init === undefined) return input;
  const request = new Request(input, init);
  const body = init?.body;
  if (request.body !== null && body !== undefined && body !== null) {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : ArrayBuffer.isView(body) || body instanceof ArrayBuffer ? copy(body) : undefined;
    if (bytes !== undefined) bodies.set(request, bytes);
  }
  return request;
}

/**
 * A Request's body, the Request left unread (null: it has none). The caller must not change the bytes.
 */
export async function requestBytes(request: Request): Promise<Uint8Array | null> {
  if (request.body === null) return null;
  const known = bodies.get(request);
  if (known !== undefined) return known;
  const bytes = new Uint8Array(await request.clone().arrayBuffer());
  bodies.set(request, bytes);
  return bytes;
}

/** A Request's body as text (UTF-8, as `request.text()` decodes it), the Request left unread. */
export async function requestText(request: Request): Promise<string> {
  const bytes = await requestBytes(request);
  return bytes === null ? '' : new TextDecoder().decode(bytes);
}

/** A copy of the bytes given (a Request keeps its body as it was when made, whatever the caller does to them after). */
function copy(body: ArrayBufferView | ArrayBuffer): Uint8Array {
  const view = body instanceof ArrayBuffer ? new Uint8Array(body) : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return view.slice();
}
