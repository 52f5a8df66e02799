/**
 * What every compatibility test shares: the mock model server (aimock on 127.0.0.1, OpenAI Chat
 * Completions, Responses and Anthropic Messages), the conversation it plays, and the agent's one
 * tool, whose side effect (a line appended to a file) shows how often it really ran.
 */
import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LLMock } from '@copilotkit/aimock';
import { recordSession, replaySession } from './tape.mjs';

export const API_KEY = 'sk-compat-0123456789abcdef';
export const MODEL = 'gpt-4.1-mini';
export const TASK = 'Remember that the standup moved to 10am.';
export const NOTE = { text: 'standup moved to 10am' };
export const ANSWER = 'Noted: the standup is at 10am now.';
export const TOOL = { name: 'append_note', description: 'Append a note to the notebook' };

/** The model's side: ask for the tool, then answer once its result is in. */
const FIXTURES = [
  { match: { userMessage: 'standup moved', hasToolResult: false }, response: { toolCalls: [{ name: TOOL.name, arguments: JSON.stringify(NOTE) }] } },
  { match: { userMessage: 'standup moved', hasToolResult: true }, response: { content: ANSWER } },
];

/** Start the mock model server on a free port of 127.0.0.1. */
export async function startMock() {
  const mock = new LLMock({ host: '127.0.0.1', port: 0, logLevel: 'silent' });
  for (const fixture of FIXTURES) mock.on(fixture.match, fixture.response);
  await mock.start();
  let answered;
  return {
    /** The server's origin, e.g. `http://127.0.0.1:41234` (OpenAI clients take `${url}/v1`). */
    url: mock.url,
    /** How many requests it answered (until it stopped). */
    requests: () => answered ?? mock.getRequests().length,
    stop: async () => {
      answered = mock.getRequests().length;
      await mock.stop();
    },
  };
}

/** A notebook in `dir`: the tool appends to it, and `lines()` reads what it holds. */
export function notebook(dir) {
  const file = join(dir, 'notes.txt');
  return {
    appendNote: async ({ text }) => {
      await appendFile(file, `${text}\n`);
      return 'noted';
    },
    lines: async () => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter((line) => line !== ''),
  };
}

/**
 * The agent's tool as it gets it: the notebook's `appendNote` wrapped by the session's
 * `recordTool`, with every call the agent makes listed in `calls` (recorded or replayed alike).
 */
export function noteTool(session, book) {
  const calls = [];
  const wrapped = session.recordTool(TOOL.name, book.appendNote, { mutating: true });
  return {
    calls,
    run: async (input) => {
      calls.push({ name: TOOL.name, arguments: input });
      return wrapped(input);
    },
  };
}

/** A fresh directory for one test file's tapes and notebook, removed by the returned function. */
export async function scratch(name) {
  const dir = await mkdtemp(join(tmpdir(), `agentctl-compat-${name}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The round trip every SDK test makes: start the mock server, record `runAgent` through a session
 * onto the tape `name` of `dir`, stop the server, then replay it. `runAgent({ url, fetch, tool })`
 * runs the SDK's agent against the server's origin `url` through `fetch`, with `tool` as its one
 * tool, and returns what the agent ended with. Asserted here: the tool ran once while recording, and
 * on replay the agent ended the same, asked for the same tool calls, and the tool did not run again.
 */
export async function recordThenReplay(dir, name, runAgent) {
  await mkdir(dir, { recursive: true });
  const book = notebook(dir);
  const mock = await startMock();

  const recording = await recordSession(dir, name);
  const recordedTool = noteTool(recording, book);
  const recorded = await runAgent({ url: mock.url, fetch: recording.fetch, tool: recordedTool });
  await recording.finish();
  await mock.stop();
  assert.deepEqual(recordedTool.calls, [{ name: TOOL.name, arguments: NOTE }]);
  assert.deepEqual(await book.lines(), [NOTE.text]);
  assert.equal(mock.requests(), 2);

  const replay = await replaySession(dir, name);
  const replayedTool = noteTool(replay, book);
  const replayed = await runAgent({ url: mock.url, fetch: replay.fetch, tool: replayedTool });
  await replay.finish();
  replay.assertReproduced();
  assert.deepEqual(replayed, recorded);
  assert.deepEqual(replayedTool.calls, recordedTool.calls);
  assert.deepEqual(await book.lines(), [NOTE.text], 'the note is not appended again');
  return { recorded, served: replay.served() };
}
