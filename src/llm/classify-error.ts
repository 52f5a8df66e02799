/**
 * How a failed call to an OpenAI-compatible server is reported: what the `openai` SDK threw, turned
 * into the plain data of an `LlmError` (docs/loop.md) — recoverable or fatal, with the HTTP status, the
 * server's `Retry-After`, and a message that says what went wrong and, where it can, what to do.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { LlmError } from '../core/llm-error.js';
import { parseRetryAfter } from './retry-after.js';

/** An LlmError as data. */
export type Classified = ConstructorParameters<typeof LlmError>[0];

/**
 * docs/loop.md: 429, 5xx, 408, connection errors, timeouts and broken streams are recoverable;
 * every other 4xx is fatal. Exported for tests.
 */
export function classify(error: unknown, phase: 'request' | 'stream', baseURL: string, timeoutMs: number, wallClock: () => number): Classified {
  if (error instanceof APIUserAbortError) return { kind: 'recoverable', message: 'the model call was aborted' };
  if (error instanceof APIConnectionTimeoutError) {
    return { kind: 'recoverable', message: `the model server at ${baseURL} did not answer within ${timeoutMs} ms (timeout)` };
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${describeCause(error.cause)}` : '';
    return {
      kind: 'recoverable',
      message: `could not reach the model server at ${baseURL}${cause} — is it running? Point agentctl at one with --base-url or OPENAI_BASE_URL`,
    };
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const said = serverMessage(error);
    const retryAfterMs = parseRetryAfter((name) => error.headers?.get(name), wallClock());
    const data: Classified = { kind: status === 408 || status === 429 || status >= 500 ? 'recoverable' : 'fatal', status, message: '' };
    if (retryAfterMs !== undefined) data.retryAfterMs = retryAfterMs;
    switch (status) {
      case 401:
        data.message = 'the model server refused the API key (401) — set OPENAI_API_KEY';
        break;
      case 403:
        data.message = `the model server denied access (403)${said} — check the API key's permissions`;
        break;
      case 404:
        data.message = `the model server has no such model or endpoint (404)${said} — check --model and --base-url`;
        break;
      case 429:
        data.message = `the model server is rate limiting requests (429)${said}`;
        break;
      default:
        data.message = `the model server answered ${status}${said}`;
    }
    return data;
  }
  if (error instanceof APIError) {
    // An `error` object inside an SSE stream: the server gave up mid-answer.
    return { kind: 'recoverable', message: `the model stream reported an error${serverMessage(error)}` };
  }
  const text = error instanceof Error ? describeCause(error) : String(error);
  if (phase === 'stream') return { kind: 'recoverable', message: `the model stream broke: ${text}` };
  return { kind: 'recoverable', message: `the model call failed: ${text}` };
}

/** What the server said, as `: text`, or '' — from the JSON error body, else the plain-text body. */
function serverMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  let text = typeof body?.message === 'string' ? body.message : '';
  if (text === '' && body === undefined && typeof error.status === 'number') {
    // The SDK puts a non-JSON body in the message, after the status.
    text = error.message.startsWith(`${error.status} `) ? error.message.slice(`${error.status} `.length) : '';
    if (/^status code \(no body\)$/.test(text)) text = '';
  }
  text = text.replace(/\s+/g, ' ').trim();
  // An HTML error page from a proxy is not worth printing in full.
  if (text.length > MAX_SERVER_MESSAGE) text = `${text.slice(0, MAX_SERVER_MESSAGE)}…`;
  return text === '' ? '' : `: ${text}`;
}

const MAX_SERVER_MESSAGE = 300;

function describeCause(error: Error): string {
  const code = (error as { code?: unknown }).code;
  const inner = error.cause instanceof Error ? ` (${describeCause(error.cause)})` : '';
  return `${error.message}${typeof code === 'string' && !error.message.includes(code) ? ` [${code}]` : ''}${inner}`;
}

