/**
 * LangChain (langchain 1.5 + @langchain/openai 1.6): a createAgent agent with one tool, its ChatOpenAI
 * given agentctl's recording `fetch` against the mock server, then the replaying one with the
 * server stopped.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, tool } from 'langchain';
import { z } from 'zod';
import { ANSWER, API_KEY, MODEL, NOTE, TASK, TOOL, recordThenReplay, scratch } from '../support.mjs';

/** Run the agent through `fetch`; its last message's text and the tool calls the model made. */
async function runAgent({ url, fetch, tool: noted }) {
  const model = new ChatOpenAI({ model: MODEL, apiKey: API_KEY, maxRetries: 0, configuration: { baseURL: `${url}/v1`, fetch } });
  const note = tool((input) => noted.run(input), { ...TOOL, schema: z.object({ text: z.string() }) });
  const agent = createAgent({ model, tools: [note] });
  const { messages } = await agent.invoke({ messages: [{ role: 'user', content: TASK }] });
  const toolCalls = messages.flatMap((message) => (message.tool_calls ?? []).map((call) => ({ name: call.name, args: call.args })));
  return { text: messages.at(-1).text, toolCalls };
}

let scratchDir;
before(async () => (scratchDir = await scratch('langchain')));
after(() => scratchDir.remove());

test('langchain 1.5 createAgent + @langchain/openai 1.6: recorded through record().fetch, replayed offline', async () => {
  const { recorded, served } = await recordThenReplay(scratchDir.dir, 'langchain', runAgent);
  assert.deepEqual(recorded, { text: ANSWER, toolCalls: [{ name: TOOL.name, args: NOTE }] });
  assert.deepEqual(served, { calls: 2, divergences: 0, remaining: 0 });
});
