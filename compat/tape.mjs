/**
 * Every use of agentctl's library API in the compatibility suite, in one place: a test records a
 * session onto the tape `name` in `dir`, then replays it — so following a change of the API means
 * editing this file only. Each session gives the `fetch` to hand a client, `recordTool` to wrap the
 * agent's tools (their side effects are served from the tape on replay, not run again), and
 * `finish()`; a replay also says what it served (`served()`).
 */
import { join } from 'node:path';
import { record, recordOpenAI, replay, replayOpenAI } from 'agentctl';

/** The tape `name` of `dir`: a named run in the store `dir/store`. */
function tapeOf(dir, name) {
  return { store: join(dir, 'store'), run: name };
}

/** Record a session: every call made through `fetch`, and the tools wrapped by `recordTool`. */
export async function recordSession(dir, name) {
  const { store, run } = tapeOf(dir, name);
  const recording = await record({ store, runName: run, task: name });
  return {
    fetch: recording.fetch,
    recordTool: (tool, fn, policy) => recording.recordTool(tool, fn, policy),
    finish: async () => void (await recording.finish()),
  };
}

/** Replay a recorded session, strictly (a request the tape has no match for is refused) and offline. */
export async function replaySession(dir, name) {
  const replayed = await replay({ tape: tapeOf(dir, name), strict: true });
  return {
    fetch: replayed.fetch,
    recordTool: (tool, fn, policy) => replayed.recordTool(tool, fn, policy),
    served: () => servedBy(replayed.replay),
    finish: async () => void (await replayed.finish()),
  };
}

/** Record what `client` (an `OpenAI` of the project's own openai) does: the same client, recording. */
export async function recordOpenAISession(client, dir, name) {
  const { store, run } = tapeOf(dir, name);
  const recording = await recordOpenAI(client, { store, runName: run, task: name });
  return {
    client: recording.client,
    recordTool: (tool, fn, policy) => recording.recordTool(tool, fn, policy),
    finish: async () => void (await recording.finish()),
  };
}

/** An `OpenAI` client answering from the tape (`client` is the one the recording used). */
export async function replayOpenAISession(_client, dir, name) {
  const replayed = await replayOpenAI({ tape: tapeOf(dir, name), strict: true, client: { maxRetries: 0 } });
  return {
    client: replayed,
    recordTool: (tool, fn, policy) => replayed.recordTool(tool, fn, policy),
    served: () => servedBy(replayed.replay),
    finish: async () => void (await replayed.finish()),
  };
}

/** What a replay served: model calls answered from the tape, requests that diverged, recorded calls left. */
function servedBy(state) {
  return { calls: state.calls.length, divergences: state.divergences.length, remaining: state.remaining };
}
