/**
 * The Vercel AI SDK (ai 7 + @ai-sdk/openai 4): a multi-step generateText on the Responses model and
 * a streamText on the Chat Completions model, the provider given agentctl's recording `fetch`
 * against the mock server, then the replaying one with the server stopped.
 */
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, streamText, tool } from 'ai';
import { z } from 'zod';
import { ANSWER, API_KEY, MODEL, NOTE, TASK, TOOL, noteTool, notebook, scratch, startMock } from '../support.mjs';
import { recordSession, replaySession } from '../tape.mjs';

/** Run the agent through `fetch`; its final text and the tool calls of its steps. */
async function runAgent(baseURL, fetch, noted, { api, stream }) {
  const provider = createOpenAI({ apiKey: API_KEY, baseURL, fetch });
  const options = {
    model: api === 'chat' ? provider.chat(MODEL) : provider.responses(MODEL),
    prompt: TASK,
    tools: { [TOOL.name]: tool({ description: TOOL.description, inputSchema: z.object({ text: z.string() }), execute: (input) => noted.run(input) }) },
    stopWhen: isStepCount(5),
    maxRetries: 0,
  };
  let text;
  let steps;
  if (stream) {
    const result = streamText(options);
    text = await result.text;
    steps = await result.steps;
  } else {
    ({ text, steps } = await generateText(options));
  }
  const toolCalls = steps.flatMap((step) => step.toolCalls.map((call) => ({ name: call.toolName, input: call.input })));
  return { text, toolCalls };
}

let scratchDir;
before(async () => (scratchDir = await scratch('ai-sdk')));
after(() => scratchDir.remove());

for (const mode of [{ api: 'responses', stream: false }, { api: 'chat', stream: true }]) {
  test(`ai 7 + @ai-sdk/openai 4, ${mode.stream ? 'streamText' : 'generateText'} on ${mode.api}: recorded through record().fetch, replayed offline`, async () => {
    const dir = `${scratchDir.dir}/${mode.api}`;
    await mkdir(dir);
    const name = `ai-sdk-${mode.api}`;
    const book = notebook(dir);
    const mock = await startMock();
    const baseURL = `${mock.url}/v1`;

    const recording = await recordSession(dir, name);
    const recordedTool = noteTool(recording, book);
    const recorded = await runAgent(baseURL, recording.fetch, recordedTool, mode);
    await recording.finish();
    await mock.stop();
    assert.deepEqual(recorded, { text: ANSWER, toolCalls: [{ name: TOOL.name, input: NOTE }] });
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
