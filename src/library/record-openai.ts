/**
 * recordOpenAI / replayOpenAI: the conveniences for an agent written on the `openai` SDK. They take
 * the user's own client and return it with the session's `fetch` (`client.withOptions({ fetch })`),
 * so it is the user's class — `instanceof OpenAI` holds, its errors are the user's
 * `OpenAI.APIError` — and every endpoint and helper (`responses`, `.stream()`, `runTools`,
 * `.withResponse()`) goes through the session. The session's members (`mode`, `replay`, `recordTool`,
 * `finish`, `assertReproduced`…) are on the returned client.
 *
 * Nothing here loads `openai`: the client is taken as it is (a structural type), so any copy and
 * any major of the SDK the user has installed is the one used.
 */
import type { FetchLike } from './fetch-like.js';
import type { TapeOptions, TapeSession } from './tape-options.js';
import { internalsOf, withInternals } from './session-internals.js';
import { openTapeSession } from './tape-session.js';
import type { TapeMode } from '../core/tape-modes.js';

/** What the conveniences use of an `openai` client (`OpenAI`, `AzureOpenAI`, any version with `withOptions`). */
export interface OpenAIClientLike {
  baseURL: string;
  apiKey?: unknown;
  withOptions(options: { fetch?: FetchLike }): unknown;
}

/** The user's client, with the session's fetch, and the session's members. */
export type OpenAITape<C> = C & Omit<TapeSession, 'fetch'>;

/** Record every call `client` makes onto `options.tape` (mode 'record' unless asked otherwise; `AGENTCTL_MODE` wins). */
export function recordOpenAI<C extends OpenAIClientLike>(client: C, options: TapeOptions): Promise<OpenAITape<C>> {
  return onTape(client, options, 'record');
}

/** Serve every call `client` makes from `options.tape` (mode 'replay', strict, unless asked otherwise; `AGENTCTL_MODE` wins). */
export function replayOpenAI<C extends OpenAIClientLike>(client: C, options: TapeOptions): Promise<OpenAITape<C>> {
  return onTape(client, options, 'replay');
}

async function onTape<C extends OpenAIClientLike>(client: C, options: TapeOptions, defaultMode: TapeMode): Promise<OpenAITape<C>> {
  // The client's own fetch (a custom one, or the global one) is where live requests really go, as
  // the client sent them (its base URL, its key), unless the options say otherwise.
  const own = (client as unknown as { fetch?: FetchLike }).fetch;
  const apiKey = typeof client.apiKey === 'string' ? client.apiKey : null;
  const session = await openTapeSession(
    { ...(own === undefined ? {} : { fetch: own }), upstream: { url: '' }, ...options },
    { defaultMode, apiKey },
  );
  const { fetch, ...members } = session;
  // `replay` is a live view: read through, not copied.
  const wrapped = Object.assign(client.withOptions({ fetch }) as C, members);
  // The client stands for the session wherever one is taken (createGuardrails' `tape`).
  const inner = internalsOf(session);
  return inner === undefined ? wrapped : withInternals(wrapped, inner);
}
