/**
 * openai-agents-js (0.20): an agent with one tool on the Responses API, streamed, and on Chat
 * Completions — its OpenAI client given agentctl's recording `fetch`, against the mock server,
 * then the replaying one with the server stopped.
 */
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { ANSWER, API_KEY, MODEL, NOTE, TASK, TOOL, noteTool, notebook, scratch, startMock } from '../support.mjs';
import { recordSession, replaySession } from '../tape.mjs';

/** Run the agent through `fetch`; its final output and the tool calls the model made. */
async function runAgent(baseURL, fetch, noted, { api, stream }) {
  const client = new OpenAI({ apiKey: API_KEY, baseURL, fetch, maxRetries: 0 });
  const agent = new Agent({
    name: 'notetaker',
    instructions: 'Keep notes. Use the tool.',
    model: MODEL,
    tools: [tool({ ...TOOL, parameters: z.object({ text: z.string() }), execute: (input) => noted.run(input) })],
  });
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: api === 'responses' }), tracingDisabled: true });
  let result;
  if (stream) {
    result = await runner.run(agent, TASK, { stream: true });
    for await (const event of result) void event;
    await result.completed;
  } else {
    result = await runner.run(agent, TASK);
  }
  const toolCalls = result.newItems.flatMap((item) => (item.type === 'tool_call_item' ? [{ name: item.rawItem.name, arguments: item.rawItem.arguments }] : []));
  return { finalOutput: result.finalOutput, toolCalls };
}

let scratchDir;
before(async () => {
  setTracingDisabled(true);
  scratchDir = await scratch('agents');
});
after(() => scratchDir.remove());

for (const mode of [{ api: 'responses', stream: true }, { api: 'chat', stream: false }]) {
  test(`@openai/agents 0.20, ${mode.api}${mode.stream ? ', streamed' : ''}: recorded through record().fetch, replayed offline`, async () => {
    const dir = `${scratchDir.dir}/${mode.api}`;
    await mkdir(dir);
    const name = `agents-${mode.api}`;
    const book = notebook(dir);
    const mock = await startMock();
    const baseURL = `${mock.url}/v1`;

    const recording = await recordSession(dir, name);
    const recordedTool = noteTool(recording, book);
    const recorded = await runAgent(baseURL, recording.fetch, recordedTool, mode);
    await recording.finish();
    await mock.stop();
    assert.equal(recorded.finalOutput, ANSWER);
    assert.deepEqual(recorded.toolCalls, [{ name: TOOL.name, arguments: JSON.stringify(NOTE) }]);
    assert.deepEqual(recordedTool.calls, [{ name: TOOL.name, arguments: NOTE }]);
    assert.deepEqual(await book.lines(), [NOTE.text]);

    const replay = await replaySession(dir, name);
    const replayedTool = noteTool(replay, book);
    const replayed = await runAgent(baseURL, replay.fetch, replayedTool, mode);
    await replay.finish();
    assert.deepEqual(replayed, recorded);
    assert.deepEqual(replayedTool.calls, recordedTool.calls);
    assert.deepEqual(await book.lines(), [NOTE.text], 'the note is not appended again');
    assert.deepEqual(replay.served(), { calls: 2, divergences: 0, remaining: 0 });
  });
}
