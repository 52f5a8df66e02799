/**
 * The guardrails in a Vercel AI SDK agent (ai 7 + @ai-sdk/openai 4): a model that asks for the same
 * read every step, served by aimock, stopped by agentctl's adapter (its tools wrapper and its
 * `stopWhen`) where the built-in loop stops it — after the 4th model call, the read having run once —
 * with the run and the guardrails' decisions recorded onto a tape file. generateText on the Responses
 * model, streamText on the Chat Completions model.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { LLMock } from '@copilotkit/aimock';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, streamText, tool } from 'ai';
import { z } from 'zod';
import { API_KEY, MODEL, scratch } from '../support.mjs';
import { aiSdkGuardrails, recordGuardedSession, tapeEvents } from '../tape.mjs';

const README = { path: 'README.md', text: '# calc' };

let scratchDir;
let mock;
before(async () => {
  scratchDir = await scratch('guardrails-ai-sdk');
  // The looping model: whatever came back, it asks for the same read again.
  mock = new LLMock({ host: '127.0.0.1', port: 0, logLevel: 'silent' });
  mock.on({ userMessage: 'README' }, { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: README.path }) }] });
  await mock.start();
});
after(async () => {
  await mock.stop();
  await scratchDir.remove();
});

/** The decisions that are not a plain allow / continue, by step and call. */
const interventions = (decisions) =>
  decisions.filter((d) => d.verdict !== 'allow' && d.verdict !== 'continue').map((d) => [d.step, d.callId, d.gate, d.verdict, d.rule]);

for (const mode of [{ api: 'responses', stream: false }, { api: 'chat', stream: true }]) {
  const how = mode.stream ? 'streamText' : 'generateText';
  test(`ai 7, ${how} on ${mode.api}: the read runs once, its duplicate gets the first result, the 3rd is blocked, the 4th step stops the run`, async () => {
    const name = `guarded-${mode.api}`;
    const session = await recordGuardedSession(scratchDir.dir, name);
    const guard = aiSdkGuardrails(session.guardrails);
    const runs = [];
    const readFile = tool({
      description: 'Read a file of the workspace',
      inputSchema: z.object({ path: z.string() }),
      execute: async (input) => {
        runs.push(input);
        return README;
      },
    });
    const provider = createOpenAI({ apiKey: API_KEY, baseURL: `${mock.url}/v1`, fetch: session.fetch });
    const asked = mock.getRequests().length;
    const options = {
      model: mode.api === 'chat' ? provider.chat(MODEL) : provider.responses(MODEL),
      prompt: 'What does the README say?',
      tools: guard.tools({ read_file: readFile }),
      stopWhen: [isStepCount(10), guard.stopWhen],
      maxRetries: 0,
    };
    let steps;
    if (mode.stream) {
      const errors = [];
      const result = streamText({ ...options, onError: ({ error }) => void errors.push(error) });
      steps = await result.steps;
      assert.deepEqual(errors, []);
    } else {
      ({ steps } = await generateText(options));
    }
    await session.finish();

    assert.deepEqual(runs, [{ path: README.path }]);
    assert.equal(steps.length, 4);
    assert.equal(mock.getRequests().length - asked, 4);
    assert.equal(guard.guardrails.stopped?.rule, 'repetition');
    const ids = steps.map((step) => step.toolCalls[0].toolCallId);
    const outputs = steps.map((step) => step.toolResults[0].output);
    assert.deepEqual(outputs.slice(0, 2), [README, README]);
    for (const output of outputs.slice(2)) assert.match(output, /^Blocked: you have requested `read_file` with exactly these arguments/);
    assert.deepEqual(interventions(guard.guardrails.decisions), [
      [1, ids[1], 'replay_control', 'skip', 'duplicate_success'],
      [2, ids[2], 'loop_guard', 'block', 'identical_call_block'],
      [3, ids[3], 'loop_guard', 'block', 'identical_call_block'],
      [3, undefined, 'repetition', 'stuck', 'repetition'],
    ]);

    // On the tape: the four model calls, and the same decisions at their model calls' steps.
    const events = await tapeEvents(scratchDir.dir, name);
    assert.deepEqual(events.filter((e) => e.type === 'llm_response').map((e) => e.step), [0, 1, 2, 3]);
    // A guardrail event is the decision with its place on the tape (type, seq, t).
    const onTape = events.filter((e) => e.type === 'guardrail').map((e) => Object.fromEntries(Object.entries(e).filter(([key]) => !['type', 'seq', 't'].includes(key))));
    assert.deepEqual(onTape, guard.guardrails.decisions);
  });
}
