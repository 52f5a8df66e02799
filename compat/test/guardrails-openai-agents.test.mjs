/**
 * The guardrails live in an @openai/agents 0.20 agent (openaiAgentsGuardrails): a model on the mock
 * server that asks for the same lookup with the same arguments at every turn, the run recorded onto
 * a tape file through agentctl's `fetch`. The tool runs once, the second call gets the first one's
 * result, the third is blocked, and the run is rejected with a GuardrailStopError at the repetition
 * of step 3 — before a fifth model call; the decisions are on the tape. And a tool that keeps
 * throwing is stopped by the failure halt.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { LLMock } from '@copilotkit/aimock';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { API_KEY, MODEL, scratch } from '../support.mjs';
import { GuardrailStopError, openaiAgentsGuardrails, recordGuardedSession, tapeEvents } from '../tape.mjs';

const LOOKUP_ARGS = '{"q":"agentctl"}';

let scratchDir;
let mock;
before(async () => {
  setTracingDisabled(true);
  scratchDir = await scratch('guardrails-agents');
  mock = new LLMock({ host: '127.0.0.1', port: 0, logLevel: 'silent' });
  // Models that never give up: the same call at every turn, whatever the tool said.
  mock.on({ userMessage: 'Look up agentctl' }, { toolCalls: [{ name: 'lookup', arguments: LOOKUP_ARGS }] });
  mock.on({ userMessage: 'Fetch the page' }, { toolCalls: [{ name: 'fetch_page', arguments: '{"url":"https://example.com"}' }] });
  await mock.start();
});
after(async () => {
  await mock.stop();
  await scratchDir.remove();
});

const modelRequests = () => mock.getRequests().filter((r) => /\/(chat\/completions|responses)$/.test(r.path)).length;

function runnerFor(fetch, api) {
  const client = new OpenAI({ apiKey: API_KEY, baseURL: `${mock.url}/v1`, fetch, maxRetries: 0 });
  return new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: api === 'responses' }), tracingDisabled: true });
}

/** What the run was rejected with (streamed or not), or undefined when it finished. */
async function rejection(runner, agent, task, options, stream) {
  try {
    if (stream) {
      const streamed = await runner.run(agent, task, { ...options, stream: true });
      for await (const event of streamed) void event;
      await streamed.completed;
    } else {
      await runner.run(agent, task, options);
    }
    return undefined;
  } catch (error) {
    return error;
  }
}

for (const mode of [{ api: 'responses', stream: true }, { api: 'chat', stream: false }]) {
  test(`@openai/agents 0.20, ${mode.api}${mode.stream ? ', streamed' : ''}: a looping run is stopped where the guardrails stop it`, async () => {
    const name = `loop-${mode.api}`;
    const recording = await recordGuardedSession(scratchDir.dir, name, { tools: { lookup: { idempotent: true, mutating: false } } });
    const { guardrails } = recording;
    const guarded = openaiAgentsGuardrails(guardrails);
    let lookups = 0;
    const lookup = tool({
      name: 'lookup',
      description: 'Look a term up',
      parameters: z.object({ q: z.string() }),
      execute: guarded.execute(async ({ q }) => {
        lookups++;
        return { q, hits: 3 };
      }),
    });
    const agent = new Agent({ name: 'researcher', instructions: 'Use the tool.', model: MODEL, tools: [lookup] });
    const before = modelRequests();

    const error = await rejection(runnerFor(recording.fetch, mode.api), agent, 'Look up agentctl.', guarded.runOptions(), mode.stream);
    await recording.finish();

    assert.ok(error instanceof GuardrailStopError, `rejected with ${error}`);
    assert.equal(error.code, 'AGENTCTL_GUARDRAIL_STOP');
    assert.deepEqual([error.rule, error.step], ['repetition', 3]);
    assert.equal(modelRequests() - before, 4);
    assert.equal(lookups, 1);

    // What the model was given for each call, as the tape has it.
    const events = await tapeEvents(scratchDir.dir, name);
    const ids = events.filter((e) => e.type === 'llm_response').map((e) => e.response.message.tool_calls[0].id);
    assert.equal(ids.length, 4);
    const outputs = new Map(events.flatMap((e) => (e.type === 'llm_request' ? e.append : [])).filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]));
    assert.deepEqual(JSON.parse(outputs.get(ids[0])), { q: 'agentctl', hits: 3 });
    assert.equal(outputs.get(ids[1]), outputs.get(ids[0]));
    assert.match(outputs.get(ids[2]), /^Blocked: you have requested `lookup` with exactly these arguments 3 times/);
    assert.equal(outputs.has(ids[3]), false);

    const stops = guardrails.decisions.filter((d) => d.verdict !== 'allow' && d.verdict !== 'continue');
    assert.deepEqual(stops.map((d) => [d.step, d.rule, d.verdict, d.callId ?? null]), [
      [1, 'duplicate_success', 'skip', ids[1]],
      [2, 'identical_call_block', 'block', ids[2]],
      [3, 'identical_call_block', 'block', ids[3]],
      [3, 'repetition', 'stuck', null],
    ]);
    // The decisions on the tape, each at the step of the model answer that asked for its call.
    const onTape = events.filter((e) => e.type === 'guardrail');
    assert.deepEqual(onTape.map((e) => [e.step, e.rule, e.verdict, e.callId ?? null]), guardrails.decisions.map((d) => [d.step, d.rule, d.verdict, d.callId ?? null]));
  });
}

test('@openai/agents 0.20: a tool that keeps throwing is stopped by the failure halt at the end of its step', async () => {
  const recording = await recordGuardedSession(scratchDir.dir, 'failing', { failureHalt: 2 });
  const guarded = openaiAgentsGuardrails(recording.guardrails);
  let fetches = 0;
  const fetchPage = tool({
    name: 'fetch_page',
    description: 'Fetch a page',
    parameters: z.object({ url: z.string() }),
    execute: guarded.execute(async () => {
      fetches++;
      throw new Error('connection refused');
    }),
  });
  const agent = new Agent({ name: 'reader', instructions: 'Use the tool.', model: MODEL, tools: [fetchPage] });
  const error = await rejection(runnerFor(recording.fetch, 'chat'), agent, 'Fetch the page.', guarded.runOptions({ maxTurns: 10 }), false);
  await recording.finish();
  assert.ok(error instanceof GuardrailStopError, `rejected with ${error}`);
  assert.deepEqual([error.rule, error.step, fetches], ['consecutive_failures_halt', 1, 2]);
});
