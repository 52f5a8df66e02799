/**
 * replayOpenAI: the convenience for an agent written on the `openai` SDK. It returns a real
 * `OpenAI` client whose `fetch` answers from a recorded run (record-replay.ts): content-matched,
 * with patches, strict mode and a live fallback, and `replay` to read what happened. No network is
 * used unless the fallback is live.
 */
import OpenAI, { type ClientOptions } from 'openai';
import type { RunMeta } from '../core/run-meta.js';
import type { ReplayState } from '../replay/replay-engine.js';
import { replay, type Fallback, type ReplayOptions } from './record-replay.js';
import type { FetchLike } from './fetch-like.js';
import type { ToolFunction, ToolPolicy } from './recorded-tool.js';
import type { FinishOptions } from './recording-session.js';

export interface ReplayOpenAIOptions extends Omit<ReplayOptions, 'fallback'> {
  /** When the tape runs out: as for `replay()`, or a real client to send the calls to (its base URL, key and fetch). */
  fallback?: Fallback | OpenAI;
  /** Options for the client (e.g. `maxRetries`); its `fetch` is the replay's. */
  client?: Omit<ClientOptions, 'fetch'>;
}

/** A real OpenAI client answering from a tape, with what the replay did. */
export type ReplayedOpenAI = OpenAI & {
  /** What the replay has done so far (a live view). */
  readonly replay: ReplayState;
  /** Wrap a tool function so its recorded outcomes are served. */
  recordTool<F extends ToolFunction>(name: string, fn: F, policy?: ToolPolicy): F;
  /** End the replay (and its own run, when it is recorded). */
  finish(options?: FinishOptions): Promise<RunMeta | undefined>;
};

/** Load a recorded run and return an `OpenAI` client that serves it. */
export async function replayOpenAI(options: ReplayOpenAIOptions): Promise<ReplayedOpenAI> {
  const { fallback, client: clientOptions, ...rest } = options;
  const live = fallback instanceof OpenAI ? viaClient(fallback) : fallback;
  const replayed = await replay({ ...rest, ...(live === undefined ? {} : { fallback: live }) });
  const client = new OpenAI({
    // Never sent anywhere unless the fallback is live (then the fallback's key, or this one, is used).
    apiKey: process.env.OPENAI_API_KEY ?? 'agentctl-replay',
    baseURL: replayed.replay.run.baseUrl ?? 'http://127.0.0.1/v1',
    ...clientOptions,
    fetch: replayed.fetch,
  });
  return Object.assign(client, {
    replay: replayed.replay,
    recordTool: replayed.recordTool,
    finish: replayed.finish,
  });
}

/** A live fallback through a real client: its endpoint, key and fetch. */
function viaClient(client: OpenAI): Fallback {
  const own = (client as unknown as { fetch?: FetchLike }).fetch;
  return { url: client.baseURL, ...(client.apiKey === null ? {} : { apiKey: client.apiKey }), ...(own === undefined ? {} : { fetch: own }) };
}
