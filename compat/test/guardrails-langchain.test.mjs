/**
 * agentctl's guardrails as LangChain agent middleware (langchain 1.5 + @langchain/openai 1.6): a
 * createAgent agent whose model (aimock on 127.0.0.1) asks for the same tool with the same arguments
 * at every step, recorded through record().fetch. The middleware stops it where agentctl's built-in
 * loop stops such a loop: the tool runs once, the second call is answered with its result, the third
 * is blocked, and the fourth identical step ends the run before its call runs; the decisions are on
 * the tape.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { LLMock } from '@copilotkit/aimock';
import { ChatOpenAI } from '@langchain/openai';
import { createGuardrails, langchainGuardrails, record } from 'agentctl';
import { ToolMessage, createAgent, tool } from 'langchain';
import { z } from 'zod';
import { API_KEY, MODEL, scratch } from '../support.mjs';
import { tapeOf } from '../tape.mjs';

const TASK = 'What is the weather in Paris?';
const WEATHER = 'Paris: sunny, 21C';

let scratchDir;
let mock;
before(async () => {
  scratchDir = await scratch('guardrails-langchain');
  // The looping model: whatever the conversation holds, the same call again.
  mock = new LLMock({ host: '127.0.0.1', port: 0, logLevel: 'silent' });
  mock.on({ userMessage: 'weather in Paris' }, { toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] });
  await mock.start();
});
after(async () => {
  await mock.stop();
  await scratchDir.remove();
});

test('langchain 1.5 createAgent with langchainGuardrails: a looping model is stopped at the 4th identical step, recorded', async () => {
  const tape = tapeOf(scratchDir.dir, 'guardrails-langchain');
  const session = await record({ tape, task: 'guardrails-langchain' });
  const decisions = [];
  const guardrails = createGuardrails({ tape: session, onDecision: (decision) => decisions.push(decision) });
  let runs = 0;
  const getWeather = tool(() => (runs++, WEATHER), { name: 'get_weather', description: 'The weather in a city', schema: z.object({ city: z.string() }) });
  const model = new ChatOpenAI({ model: MODEL, apiKey: API_KEY, maxRetries: 0, configuration: { baseURL: `${mock.url}/v1`, fetch: session.fetch } });
  const agent = createAgent({ model, tools: [getWeather], middleware: [langchainGuardrails(guardrails, { ToolMessage })] });

  const { messages } = await agent.invoke({ messages: [{ role: 'user', content: TASK }] });
  const meta = await session.finish();

  assert.equal(runs, 1);
  assert.equal(mock.getRequests().length, 4);
  assert.equal(guardrails.stopped?.rule, 'repetition');
  const refusals = decisions.filter((d) => d.verdict !== 'allow' && d.verdict !== 'continue').map((d) => [d.step, d.gate, d.verdict, d.rule]);
  assert.deepEqual(refusals, [
    [1, 'replay_control', 'skip', 'duplicate_success'],
    [2, 'loop_guard', 'block', 'identical_call_block'],
    [3, 'repetition', 'stuck', 'repetition'],
  ]);
  const tools = messages.filter((m) => ToolMessage.isInstance(m)).map((m) => m.text);
  assert.equal(tools.length, 4);
  assert.deepEqual(tools.slice(0, 2), [WEATHER, WEATHER]);
  assert.match(tools[2], /^Blocked: you have requested `get_weather` with exactly these arguments 3 times/);
  assert.match(tools[3], /^Not run: the guardrails stopped the run: repetition: /);
  assert.equal(messages.at(-1).text, `The guardrails stopped the run: ${guardrails.stopped.reason}`);
  assert.equal(meta?.totals.llmCalls, 4);

  // Every decision is on the tape, at the step of the model call that asked for the call.
  const events = (await readFile(tape, 'utf8')).split('\n').filter((line) => line !== '').slice(1).map((line) => JSON.parse(line));
  const onTape = events.filter((e) => e.type === 'guardrail').map((e) => [e.step, e.callId, e.gate, e.verdict, e.rule]);
  assert.deepEqual(onTape, decisions.map((d) => [d.step, d.callId, d.gate, d.verdict, d.rule]));
});
