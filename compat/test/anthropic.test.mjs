/**
 * The Anthropic SDK (1.14): a tool-use loop on the Messages API, the client given agentctl's
 * recording `fetch` against the mock server, then the replaying one with the server stopped.
 * agentctl keeps these calls byte for byte as http exchanges: what is asserted is what an agent
 * sees — the same answer, the same tool use, and the tool not run again.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { ANSWER, API_KEY, NOTE, TASK, TOOL, noteTool, notebook, scratch, startMock } from '../support.mjs';
import { recordSession, replaySession } from '../tape.mjs';

const MODEL = 'claude-sonnet-5';

/** Run the agent through `fetch`; its final text and the tool uses the model asked for. */
async function runAgent(baseURL, fetch, noted) {
  const client = new Anthropic({ apiKey: API_KEY, baseURL, fetch, maxRetries: 0 });
  const tools = [{ ...TOOL, input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }];
  const messages = [{ role: 'user', content: TASK }];
  const toolUses = [];
  for (;;) {
    const reply = await client.messages.create({ model: MODEL, max_tokens: 1024, tools, messages });
    messages.push({ role: 'assistant', content: reply.content });
    const uses = reply.content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) return { text: reply.content.filter((block) => block.type === 'text').map((block) => block.text).join(''), toolUses };
    const results = [];
    for (const use of uses) {
      toolUses.push({ name: use.name, input: use.input });
      results.push({ type: 'tool_result', tool_use_id: use.id, content: String(await noted.run(use.input)) });
    }
    messages.push({ role: 'user', content: results });
  }
}

let scratchDir;
before(async () => (scratchDir = await scratch('anthropic')));
after(() => scratchDir.remove());

test('@anthropic-ai/sdk 1.14 messages with tool use: recorded through record().fetch, replayed offline', async () => {
  const { dir } = scratchDir;
  const book = notebook(dir);
  const mock = await startMock();

  const recording = await recordSession(dir, 'anthropic');
  const recordedTool = noteTool(recording, book);
  const recorded = await runAgent(mock.url, recording.fetch, recordedTool);
  await recording.finish();
  await mock.stop();
  assert.deepEqual(recorded, { text: ANSWER, toolUses: [{ name: TOOL.name, input: NOTE }] });
  assert.deepEqual(recordedTool.calls, [{ name: TOOL.name, arguments: NOTE }]);
  assert.deepEqual(await book.lines(), [NOTE.text]);
  assert.equal(mock.requests(), 2);

  const replay = await replaySession(dir, 'anthropic');
  const replayedTool = noteTool(replay, book);
  const replayed = await runAgent(mock.url, replay.fetch, replayedTool);
  await replay.finish();
  assert.deepEqual(replayed, recorded);
  assert.deepEqual(replayedTool.calls, recordedTool.calls);
  assert.deepEqual(await book.lines(), [NOTE.text], 'the note is not appended again');
});
