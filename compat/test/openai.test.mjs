/**
 * The openai SDK (7): a tool-calling loop on Chat Completions, recorded with agentctl's
 * recordOpenAI against the mock server onto a tape file, then replayed with the server stopped.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { ANSWER, API_KEY, MODEL, NOTE, TASK, TOOL, noteTool, notebook, scratch, startMock } from '../support.mjs';
import { recordOpenAISession, replayOpenAISession } from '../tape.mjs';

/** The agent: ask, run the tools the model asks for, ask again until it answers. */
async function runAgent(client, tool) {
  const messages = [{ role: 'user', content: TASK }];
  const tools = [{ type: 'function', function: { ...TOOL, parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } } }];
  for (;;) {
    const completion = await client.chat.completions.create({ model: MODEL, messages, tools });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) {
      const output = await tool.run(JSON.parse(call.function.arguments));
      messages.push({ role: 'tool', tool_call_id: call.id, content: String(output) });
    }
  }
}

let scratchDir;
before(async () => (scratchDir = await scratch('openai')));
after(() => scratchDir.remove());

test('openai 7 chat completions: recorded through recordOpenAI, replayed offline', async () => {
  const { dir } = scratchDir;
  const book = notebook(dir);
  const mock = await startMock();
  const user = new OpenAI({ apiKey: API_KEY, baseURL: `${mock.url}/v1`, maxRetries: 0 });

  const recording = await recordOpenAISession(user, dir, 'openai-chat');
  assert.ok(recording.client instanceof OpenAI, 'the recording client is the project\'s own OpenAI');
  const recordedTool = noteTool(recording, book);
  const recorded = await runAgent(recording.client, recordedTool);
  await recording.finish();
  await mock.stop();
  assert.equal(recorded, ANSWER);
  assert.deepEqual(recordedTool.calls, [{ name: TOOL.name, arguments: NOTE }]);
  assert.deepEqual(await book.lines(), [NOTE.text]);
  assert.equal(mock.requests(), 2);

  const replay = await replayOpenAISession(user, dir, 'openai-chat');
  assert.ok(replay.client instanceof OpenAI, 'the replaying client is the project\'s own OpenAI');
  const replayedTool = noteTool(replay, book);
  const replayed = await runAgent(replay.client, replayedTool);
  assert.equal(replayed, recorded);
  assert.deepEqual(replayedTool.calls, recordedTool.calls);
  assert.deepEqual(await book.lines(), [NOTE.text], 'the note is not appended again');
  assert.deepEqual(replay.served(), { calls: 2, divergences: 0, remaining: 0 });
  replay.assertReproduced();

  // A request the tape does not have is refused with an error the project's own class catches.
  const refused = replay.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Something else' }] });
  await assert.rejects(refused, (error) => error instanceof OpenAI.APIError);
  await replay.finish();
});
