/**
 * The Vercel AI SDK (ai 7 + @ai-sdk/openai 4): a multi-step generateText on the Responses model and
 * a streamText on the Chat Completions model, the provider given agentctl's recording `fetch`
 * against the mock server, then the replaying one with the server stopped.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, streamText, tool } from 'ai';
import { z } from 'zod';
import { ANSWER, API_KEY, MODEL, NOTE, TASK, TOOL, recordThenReplay, scratch } from '../support.mjs';

/** Run the agent through `fetch`; its final text and the tool calls of its steps. */
async function runAgent({ url, fetch, tool: noted }, { api, stream }) {
  const provider = createOpenAI({ apiKey: API_KEY, baseURL: `${url}/v1`, fetch });
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
    const { recorded, served } = await recordThenReplay(`${scratchDir.dir}/${mode.api}`, `ai-sdk-${mode.api}`, (agent) => runAgent(agent, mode));
    assert.deepEqual(recorded, { text: ANSWER, toolCalls: [{ name: TOOL.name, input: NOTE }] });
    assert.deepEqual(served, { calls: 2, divergences: 0, remaining: 0 });
  });
}
