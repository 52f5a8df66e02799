/**
 * openai-agents-js (0.20): an agent with one tool on the Responses API, streamed, and on Chat
 * Completions — its OpenAI client given agentctl's recording `fetch`, against the mock server,
 * then the replaying one with the server stopped.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { ANSWER, API_KEY, MODEL, NOTE, TASK, TOOL, recordThenReplay, scratch } from '../support.mjs';

/** Run the agent through `fetch`; its final output and the tool calls the model made. */
async function runAgent({ url, fetch, tool: noted }, { api, stream }) {
  const client = new OpenAI({ apiKey: API_KEY, baseURL: `${url}/v1`, fetch, maxRetries: 0 });
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
    const { recorded, served } = await recordThenReplay(`${scratchDir.dir}/${mode.api}`, `agents-${mode.api}`, (agent) => runAgent(agent, mode));
    assert.deepEqual(recorded, { finalOutput: ANSWER, toolCalls: [{ name: TOOL.name, arguments: JSON.stringify(NOTE) }] });
    assert.deepEqual(served, { calls: 2, divergences: 0, remaining: 0 });
  });
}
