/**
 * Every use of agentctl's library API in the compatibility suite, in one place: a test records a
 * session onto the tape file `<dir>/<name>.tape.jsonl` (one small file per test, as a project keeps
 * them in git), then replays it. Each session gives the `fetch` to hand a client (or, for the
 * OpenAI conveniences, the project's own client), `recordTool` to wrap the agent's tools (their side
 * effects are served from the tape on replay, not run again), and `finish()`; a replay also says
 * what it served (`served()`) and whether it reproduced the tape (`assertReproduced()`).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createGuardrails, record, recordOpenAI, replay, replayOpenAI } from 'agentctl';

/** The guardrails' framework adapters, as each framework's test puts them in its agent. */
export { aiSdkGuardrails, GuardrailStopError, openaiAgentsGuardrails } from 'agentctl';

/** The tape file of test `name`. */
export function tapeOf(dir, name) {
  return join(dir, `${name}.tape.jsonl`);
}

/** Record a session: every call made through `fetch`, and the tools wrapped by `recordTool`. */
export async function recordSession(dir, name) {
  const session = await record({ tape: tapeOf(dir, name), task: name });
  return {
    fetch: session.fetch,
    recordTool: (tool, fn, policy) => session.recordTool(tool, fn, policy),
    finish: async () => void (await session.finish()),
  };
}

/**
 * Record a session with the guardrails on it (createGuardrails with `settings`): the calls made
 * through `fetch` and the guardrails' decisions go onto the tape.
 */
export async function recordGuardedSession(dir, name, settings = {}) {
  const session = await record({ tape: tapeOf(dir, name), task: name });
  return {
    fetch: session.fetch,
    guardrails: createGuardrails({ ...settings, tape: session }),
    finish: async () => void (await session.finish()),
  };
}

/** The events on the tape of test `name`, as its lines hold them (the header line left out). */
export async function tapeEvents(dir, name) {
  const lines = (await readFile(tapeOf(dir, name), 'utf8')).split('\n').filter((line) => line !== '');
  return lines.slice(1).map((line) => JSON.parse(line));
}

/** Replay a recorded session, strictly (a request the tape has no match for is refused) and offline. */
export async function replaySession(dir, name) {
  const session = await replay({ tape: tapeOf(dir, name) });
  return {
    fetch: session.fetch,
    recordTool: (tool, fn, policy) => session.recordTool(tool, fn, policy),
    served: () => servedBy(session.replay),
    assertReproduced: () => session.assertReproduced(),
    finish: async () => void (await session.finish()),
  };
}

/** Record what `client` (an `OpenAI` of the project's own openai) does: the same class, recording. */
export async function recordOpenAISession(client, dir, name) {
  const recording = await recordOpenAI(client, { tape: tapeOf(dir, name), task: name });
  return {
    client: recording,
    recordTool: (tool, fn, policy) => recording.recordTool(tool, fn, policy),
    finish: async () => void (await recording.finish()),
  };
}

/** The project's `client`, answering from the tape. */
export async function replayOpenAISession(client, dir, name) {
  const replayed = await replayOpenAI(client, { tape: tapeOf(dir, name) });
  return {
    client: replayed,
    recordTool: (tool, fn, policy) => replayed.recordTool(tool, fn, policy),
    served: () => servedBy(replayed.replay),
    assertReproduced: () => replayed.assertReproduced(),
    finish: async () => void (await replayed.finish()),
  };
}

/** What a replay served: model calls answered from the tape, requests that diverged, recorded calls left. */
function servedBy(state) {
  return { calls: state.calls.length, divergences: state.divergences.length, remaining: state.remaining };
}
