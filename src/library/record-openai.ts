/**
 * recordOpenAI: the convenience for an agent written on the `openai` SDK. It returns the same
 * client with a recording `fetch` (record-replay.ts) — a real `OpenAI`, so every endpoint and
 * helper (`responses`, `.stream()`, `runTools`, `.withResponse()`) is recorded, and its type is
 * `OpenAI` wherever one is expected. The client's API key is redacted from everything written.
 */
import type OpenAI from 'openai';
import type { Clock } from '../core/clock.js';
import type { RunMeta } from '../core/run-meta.js';
import type { TapeStore } from '../tape/tape-store.js';
import { record } from './record-replay.js';
import type { ToolFunction, ToolPolicy } from './recorded-tool.js';
import type { FetchLike } from './fetch-like.js';
import type { FinishOptions } from './recording-session.js';

export interface RecordOpenAIOptions {
  /** The store to record into, or its directory (opened here, created if missing, closed by finish()). */
  store: TapeStore | string;
  /** A name for the run (`agentctl show <name>` finds it). */
  runName?: string;
  /** What the run is about, shown by `agentctl ls/show`. Default 'library run'. */
  task?: string;
  /** Extra redaction patterns (regular-expression source), on top of the API key and key-shaped strings. */
  redact?: string[];
  /** Measures event times and chunk offsets. Default: the system clock. */
  clock?: Clock;
}

export interface OpenAIRecording {
  /** The client to use in place of the real one: the same client, recording. */
  client: OpenAI;
  /** The id of the run being recorded (the run itself is created at the first call). */
  runId: string;
  /** Wrap a tool function so its calls and outcomes are recorded (and served on replay). */
  recordTool<F extends ToolFunction>(name: string, fn: F, policy?: ToolPolicy): F;
  /** Write `run_end` with the totals, mark the run complete, and return its meta. Idempotent. */
  finish(options?: FinishOptions): Promise<RunMeta>;
}

/** Record every call `client` makes onto a new run in `options.store`. */
export async function recordOpenAI(client: OpenAI, options: RecordOpenAIOptions): Promise<OpenAIRecording> {
  // The client's own fetch (a custom one, or the global one) is where requests really go.
  const own = (client as unknown as { fetch?: FetchLike }).fetch;
  const recording = await record({ ...options, ...(own === undefined ? {} : { fetch: own }) }, { apiKey: client.apiKey });
  return {
    client: client.withOptions({ fetch: recording.fetch }),
    runId: recording.runId,
    recordTool: (name, fn, policy) => recording.recordTool(name, fn, policy),
    finish: (end) => recording.finish(end),
  };
}
