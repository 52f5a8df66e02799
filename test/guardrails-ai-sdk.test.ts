/**
 * The guardrails in a Vercel AI SDK 5 agent (docs/guardrails.md, "Vercel AI SDK"): generateText and
 * streamText on @ai-sdk/openai's chat model, against a scripted model on 127.0.0.1 that asks for the
 * same read step after step, recorded through agentctl's `fetch` onto a tape file. With the adapter's
 * tools and `stopWhen`, the read runs once, its duplicate gets the first result, the third request is
 * blocked and the run stops at the 4th step (repetition) — the model calls the built-in loop makes on
 * the same script, with the decisions a GuardrailSession driven call by call makes, on the tape.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool, type ModelMessage, type StepResult, type ToolSet } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdkGuardrails, type AiSdkToolCallOptions } from '../src/adapters/ai-sdk.js';
import { InvalidOptionError } from '../src/core/errors.js';
import type { RunEvent } from '../src/core/events.js';
import type { RunMeta } from '../src/core/run-meta.js';
import type { GuardrailDecision } from '../src/guardrails/guardrail-session.js';
import { createGuardrails, type Guardrails, type GuardrailsOptions } from '../src/library/live-guardrails.js';
import { analyseRun } from '../src/replay/guardrail-analysis.js';
import { record } from '../src/library/record-replay.js';
import { openTapeFile } from '../src/tape/tape-file.js';
import { decisions as loopDecisions, ofType, useLoopHarness, type WireRequest } from './support/loop-harness.js';
import { startMockLlm, type MockLlm } from './support/mock-llm.js';
import type { ScenarioStep } from './support/scenario.js';

const API_KEY = 'sk-test-ai-sdk-guardrails-0123456789';
const READ = { name: 'read_file', arguments: { path: 'README.md' } };
/** The looping model: the same read, every step (more steps than any run here asks for). */
const LOOP: ScenarioStep[] = Array.from({ length: 6 }, () => ({ tool_calls: [READ] }));
const README = { path: 'README.md', text: '# calc\nA small calculator.' };

const harness = useLoopHarness();
let dir: string;
const servers: MockLlm[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-guardrails-ai-sdk-'));
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await rm(dir, { recursive: true, force: true });
});

async function serve(steps: ScenarioStep[]): Promise<MockLlm> {
  const server = await startMockLlm(steps);
  servers.push(server);
  return server;
}

/** The read_file tool, with its runs counted. */
function readTool() {
  const runs: unknown[] = [];
  const readFile = tool({
    description: 'Read a file of the workspace',
    inputSchema: z.object({ path: z.string() }),
    execute: async (input) => {
      runs.push(input);
      return README;
    },
  });
  return { runs, tools: { read_file: readFile } };
}

type Mode = 'generateText' | 'streamText';

interface AgentRun {
  steps: StepResult<ToolSet>[];
  messages: ModelMessage[];
}

/** One run of the agent: generateText or streamText with these options, to its end. */
async function runAgent(mode: Mode, options: Parameters<typeof generateText>[0]): Promise<AgentRun> {
  if (mode === 'generateText') {
    const result = await generateText(options);
    return { steps: result.steps, messages: result.response.messages };
  }
  const errors: unknown[] = [];
  const result = streamText({ ...(options as Parameters<typeof streamText>[0]), onError: ({ error }) => void errors.push(error) });
  const steps = await result.steps;
  expect(errors).toEqual([]);
  return { steps, messages: (await result.response).messages };
}

/** The decisions that are not a plain allow / continue: what the guardrails did. */
const interventions = (decisions: readonly Pick<GuardrailDecision, 'step' | 'callId' | 'gate' | 'verdict' | 'rule'>[]) =>
  decisions.filter((d) => d.verdict !== 'allow' && d.verdict !== 'continue').map((d) => [d.step, d.callId, d.gate, d.verdict, d.rule]);

/** A createGuardrails driven by hand as an adapter without startStep drives it: each call guarded, then the step ended. */
async function byHand(calls: readonly { id: string; value: unknown }[], options: GuardrailsOptions = {}): Promise<Guardrails> {
  const guardrails = createGuardrails(options);
  for (const call of calls) {
    await guardrails.guard({ id: call.id, name: READ.name, arguments: READ.arguments }, () => call.value);
    if (guardrails.endStep().action === 'stop') break;
  }
  return guardrails;
}

async function tapeEvents(path: string): Promise<RunEvent[]> {
  return (await readTape(path)).events;
}

async function readTape(path: string): Promise<{ meta: RunMeta; events: RunEvent[] }> {
  const tape = await openTapeFile(path);
  const events: RunEvent[] = [];
  for await (const event of tape.events()) events.push(event);
  return { meta: tape.meta, events };
}

describe('aiSdkGuardrails: a model asking for the same read every step', () => {
  it.each(['generateText', 'streamText'] as const)('%s: the read runs once, its duplicate gets the first result, the 3rd request is blocked, the 4th step stops the run', async (mode) => {
    const llm = await serve(LOOP);
    const tape = join(dir, `${mode}.tape.jsonl`);
    const session = await record({ tape });
    const guard = aiSdkGuardrails(createGuardrails({ tape: session }));
    const { runs, tools } = readTool();
    const run = await runAgent(mode, {
      model: createOpenAI({ apiKey: API_KEY, baseURL: llm.baseURL, fetch: session.fetch }).chat('gpt-4.1-mini'),
      prompt: 'What does the README say?',
      tools: guard.tools(tools),
      stopWhen: [stepCountIs(10), guard.stopWhen],
      maxRetries: 0,
    });
    await session.finish();

    // The tool ran once; four model calls, then the stop: the script's last two steps never played.
    expect(runs).toEqual([READ.arguments]);
    expect(run.steps).toHaveLength(4);
    expect(llm.remaining()).toBe(2);
    expect(guard.guardrails.stopped).toMatchObject({ rule: 'repetition' });
    const outputs = run.steps.map((step) => step.toolResults.map((r) => [r.toolCallId, r.output]));
    expect(outputs.slice(0, 2)).toEqual([[['call_0_0', README]], [['call_1_0', README]]]);
    for (const [step, id] of [[2, 'call_2_0'], [3, 'call_3_0']] as const) {
      expect(outputs[step]).toEqual([[id, expect.stringContaining('Blocked: you have requested `read_file` with exactly these arguments')]]);
    }
    // What the model read: the duplicate's result is the first one's; the block is the guardrails' message.
    const toolMessage = (request: number, id: string) =>
      (llm.requests[request]?.body as WireRequest).messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content;
    expect(toolMessage(2, 'call_1_0')).toBe(JSON.stringify(README));
    expect(toolMessage(3, 'call_2_0')).toContain('3 times this turn');

    // The decisions, call by call: a GuardrailSession driven by hand over the same calls gives the same.
    const decisions = guard.guardrails.decisions;
    expect(interventions(decisions)).toEqual([
      [1, 'call_1_0', 'replay_control', 'skip', 'duplicate_success'],
      [2, 'call_2_0', 'loop_guard', 'block', 'identical_call_block'],
      [3, 'call_3_0', 'loop_guard', 'block', 'identical_call_block'],
      [3, undefined, 'repetition', 'stuck', 'repetition'],
    ]);
    const expected = await byHand([0, 1, 2, 3].map((i) => ({ id: `call_${i}_0`, value: README })));
    expect(decisions).toEqual(expected.decisions);

    // The run is on the tape: four model calls, and every decision at the step of the model call that asked.
    const events = await tapeEvents(tape);
    expect(ofType(events, 'llm_response').map((e) => e.step)).toEqual([0, 1, 2, 3]);
    const onTape = ofType(events, 'guardrail');
    expect(onTape.map(({ seq: _seq, t: _t, type: _type, ...decision }) => decision)).toEqual(decisions);
    // Each before the next model call: the model asked, the guardrails decided, then it was asked again.
    const responses = ofType(events, 'llm_response');
    for (const decision of onTape.filter((d) => d.callId !== undefined)) {
      expect(responses[decision.step]!.seq).toBeLessThan(decision.seq);
      if (decision.step < 3) expect(decision.seq).toBeLessThan(responses[decision.step + 1]!.seq);
    }
  });

  it('stops where the built-in loop stops the same script: after the 4th model call, the read having run once', async () => {
    const builtIn = await harness.run(LOOP);
    expect(builtIn.result.reason).toMatch(/^repetition: /);
    expect(builtIn.server.remaining()).toBe(2);
    expect(ofType(builtIn.events, 'tool_result').filter((r) => r.status === 'ok').map((r) => r.step)).toEqual([0]);
    const loopInterventions = interventions(ofType(builtIn.events, 'guardrail'));
    expect(loopDecisions(builtIn.events, 'repetition').at(-1)).toMatchObject({ step: 3, verdict: 'stuck' });

    const llm = await serve(LOOP);
    const guard = aiSdkGuardrails(createGuardrails());
    const run = await runAgent('generateText', {
      model: createOpenAI({ apiKey: API_KEY, baseURL: llm.baseURL }).chat('gpt-4.1-mini'),
      prompt: 'What does the README say?',
      tools: guard.tools(readTool().tools),
      stopWhen: guard.stopWhen,
      maxRetries: 0,
    });
    expect(run.steps).toHaveLength(builtIn.server.requests.length);
    expect(llm.remaining()).toBe(builtIn.server.remaining());
    // The one difference: the built-in loop checks the 4th step before its call runs; the SDK runs
    // it first (the gates block it: identical call 4 of 3), then stopWhen stops the run.
    const adapter = interventions(guard.guardrails.decisions);
    expect(adapter.filter((d) => !(d[0] === 3 && d[4] === 'identical_call_block'))).toEqual(loopInterventions);
  });
});

describe('aiSdkGuardrails and the analysis of a recorded run', () => {
  /** The looping agent recorded onto a tape, with the adapter or without it (then it runs to the end of the script). */
  async function recorded(name: string, guarded: boolean) {
    const llm = await serve(LOOP);
    const tape = join(dir, `${name}.tape.jsonl`);
    const session = await record({ tape });
    const { runs, tools } = readTool();
    const guard = guarded ? aiSdkGuardrails(createGuardrails({ tape: session })) : null;
    await runAgent('generateText', {
      model: createOpenAI({ apiKey: API_KEY, baseURL: llm.baseURL, fetch: session.fetch }).chat('gpt-4.1-mini'),
      prompt: 'What does the README say?',
      tools: guard === null ? tools : guard.tools(tools),
      stopWhen: guard === null ? stepCountIs(LOOP.length) : [stepCountIs(LOOP.length), guard.stopWhen],
      maxRetries: 0,
    });
    await session.finish();
    const { meta, events } = await readTape(tape);
    return { runs, guard, analysis: analyseRun(meta, events) };
  }

  it('the analysis of the run recorded without the adapter names the stop point the adapter made live; on the adapter\'s own tape it finds none', async () => {
    const unguarded = await recorded('unguarded', false);
    expect(unguarded.runs).toHaveLength(LOOP.length);
    expect(unguarded.analysis.stop).toMatchObject({ step: 2, callId: 'call_2_0', tool: 'read_file', gate: 'loop_guard', rule: 'identical_call_block', verdict: 'block' });
    // Then the repetition stop at the 4th step, before its call (the analysis sees a step's calls at once).
    expect(interventions(unguarded.analysis.decisions)).toEqual([
      [1, 'call_1_0', 'replay_control', 'skip', 'duplicate_success'],
      [2, 'call_2_0', 'loop_guard', 'block', 'identical_call_block'],
      [3, undefined, 'repetition', 'stuck', 'repetition'],
      [4, 'call_4_0', 'policy', 'block', 'after_stop'],
      [5, 'call_5_0', 'policy', 'block', 'after_stop'],
    ]);

    const guarded = await recorded('guarded', true);
    const live = guarded.guard!.guardrails.decisions.find((d) => d.verdict === 'block' || d.verdict === 'stuck');
    expect(live).toMatchObject({ step: 2, callId: 'call_2_0', tool: 'read_file', gate: 'loop_guard', rule: 'identical_call_block', verdict: 'block' });
    expect(live?.key).toBe(unguarded.analysis.decisions.find((d) => d.callId === 'call_2_0' && d.verdict === 'block')?.key);
    // The adapter's tape shows every decision that stops: nothing for the analysis to add.
    expect(guarded.analysis.stop).toBeNull();
  });
});

describe('aiSdkGuardrails: the rest of a run', () => {
  it('stopWhen ends each step once, however often it is asked, beside the caller\'s own conditions', async () => {
    const llm = await serve(LOOP);
    const guard = aiSdkGuardrails(createGuardrails());
    let asked = 0;
    const counted = ({ steps }: { steps: readonly unknown[] }) => {
      asked++;
      // The guardrails' condition again, as a second caller's condition might: nothing is ended twice.
      guard.stopWhen({ steps });
      return false;
    };
    const run = await runAgent('generateText', {
      model: createOpenAI({ apiKey: API_KEY, baseURL: llm.baseURL }).chat('gpt-4.1-mini'),
      prompt: 'What does the README say?',
      tools: guard.tools(readTool().tools),
      stopWhen: [stepCountIs(2), guard.stopWhen, counted],
      maxRetries: 0,
    });
    expect(run.steps).toHaveLength(2);
    expect(asked).toBe(2);
    expect(guard.guardrails.step).toBe(2);
    expect(guard.guardrails.stopped).toBeNull();
  });

  it('a tool that keeps failing: its errors reach the model as the SDK gives them, and the failure halt stops the run at the end of its step', async () => {
    const llm = await serve([0, 1, 2].map((i) => ({ tool_calls: [{ name: 'fetch_url', arguments: { url: `https://example.test/${i}` } }] })));
    const guard = aiSdkGuardrails(createGuardrails({ failureWarn: 1, failureHalt: 2 }));
    const fetchUrl = tool({
      description: 'Fetch a URL',
      inputSchema: z.object({ url: z.string() }),
      execute: async ({ url }): Promise<string> => {
        throw new Error(`unreachable: ${url}`);
      },
    });
    const run = await runAgent('generateText', {
      model: createOpenAI({ apiKey: API_KEY, baseURL: llm.baseURL }).chat('gpt-4.1-mini'),
      prompt: 'Fetch the page.',
      tools: guard.tools({ fetch_url: fetchUrl }),
      stopWhen: [stepCountIs(10), guard.stopWhen],
      maxRetries: 0,
    });
    expect(run.steps).toHaveLength(2);
    expect(run.steps.map((s) => s.content.filter((p) => p.type === 'tool-error').map((p) => String(p.error)))).toEqual([
      ['Error: unreachable: https://example.test/0'], ['Error: unreachable: https://example.test/1'],
    ]);
    expect(llm.remaining()).toBe(1);
    expect(guard.guardrails.stopped).toMatchObject({ rule: 'consecutive_failures_halt' });
    expect(interventions(guard.guardrails.decisions)).toEqual([
      [0, 'call_0_0', 'failures', 'warn', 'consecutive_failures_warn'],
      [1, 'call_1_0', 'failures', 'halt', 'consecutive_failures_halt'],
    ]);
  });

  it('refuses guardrails with halt nudges: a run has no way in for the message', () => {
    expect(() => aiSdkGuardrails(createGuardrails({ haltNudges: 1 }))).toThrow(InvalidOptionError);
    expect(() => aiSdkGuardrails(createGuardrails({ haltNudges: 1 }))).toThrow(/^guardrails\.haltNudges must be 0 with the AI SDK adapter, got 1/);
  });

  it('a new user message in the conversation, even in the same words, is a new turn: the same read is run again, not skipped', async () => {
    const llm = await serve([{ tool_calls: [READ] }, { content: 'It is a calculator.' }, { tool_calls: [READ] }, { content: 'Still a calculator.' }]);
    const guard = aiSdkGuardrails(createGuardrails());
    const { runs, tools } = readTool();
    const model = createOpenAI({ apiKey: API_KEY, baseURL: llm.baseURL }).chat('gpt-4.1-mini');
    const options = { model, tools: guard.tools(tools), stopWhen: [stepCountIs(10), guard.stopWhen], maxRetries: 0 };
    const first: ModelMessage[] = [{ role: 'user', content: 'What does the README say?' }];
    const turn1 = await runAgent('generateText', { ...options, messages: first });
    // The same words again: a new message all the same.
    const second: ModelMessage[] = [...first, ...turn1.messages, { role: 'user', content: 'What does the README say?' }];
    await runAgent('generateText', { ...options, messages: second });

    expect(runs).toHaveLength(2);
    expect(interventions(guard.guardrails.decisions)).toEqual([]);
    // The second run's step is ended too (its steps are another array, counted from their first).
    expect(guard.guardrails.step).toBe(2);
    llm.assertConsumed();
  });

  it('tools keep what they are, a tool without execute included; a streaming execute gives its last value, and so does its duplicate', async () => {
    const guard = aiSdkGuardrails(createGuardrails());
    async function* progress() {
      yield 'reading…';
      yield README;
    }
    const asked = { description: 'Ask the user', inputSchema: z.object({ question: z.string() }) };
    const streaming = { description: 'Read, with progress', inputSchema: z.object({ path: z.string() }), execute: (_input: unknown, _options: unknown) => progress() };
    const tools = guard.tools({ ask_user: asked, read_file: streaming });
    expect(tools.ask_user).toBe(asked);
    expect(tools.read_file).toMatchObject({ description: streaming.description, inputSchema: streaming.inputSchema });
    const execute = tools.read_file.execute as unknown as (input: unknown, options: AiSdkToolCallOptions) => Promise<unknown>;
    const options = (id: string): AiSdkToolCallOptions => ({ toolCallId: id, messages: [{ role: 'user', content: 'Read it.' }] });
    expect(await execute(READ.arguments, options('a'))).toEqual(README);
    expect(await execute(READ.arguments, options('b'))).toEqual(README);
    expect(interventions(guard.guardrails.decisions)).toEqual([[0, 'b', 'replay_control', 'skip', 'duplicate_success']]);
  });
});
