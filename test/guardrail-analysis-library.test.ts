/**
 * The analysis of runs recorded through the library, from agents on the real SDKs against real
 * servers on 127.0.0.1: a Chat Completions agent with its tool wrapped by recordTool (the scripted
 * server, for exact usage), and a Responses API and an Anthropic Messages agent whose tool outcomes
 * are only in the tool messages they send next (aimock). Every API's calls and tool messages fold
 * into one conversation, and the guardrails judge them as the built-in loop would have.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, DEFAULT_PRICES } from '../src/agent/prices.js';
import type { GuardrailEvent, RunEvent } from '../src/core/events.js';
import type { RunMeta } from '../src/core/run-meta.js';
import { record } from '../src/library/record-replay.js';
import { analyseRun, type RunAnalysis } from '../src/replay/guardrail-analysis.js';
import { openTapeFile } from '../src/tape/tape-file.js';
import { startAimock, type AimockFixture } from './support/aimock.js';
import { startMockLlm } from './support/mock-llm.js';
import type { ScenarioStep } from './support/scenario.js';

const API_KEY = 'sk-test-analysis-0123456789abcdef';
let dir: string;
let tapes = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-analysis-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readTape(path: string): Promise<{ meta: RunMeta; events: RunEvent[] }> {
  const tape = await openTapeFile(path);
  const events: RunEvent[] = [];
  for await (const event of tape.events()) events.push(event);
  return { meta: tape.meta, events };
}

/** `step gate verdict rule` of every decision that is not a plain allow or continue. */
const notable = (analysis: RunAnalysis): string[] =>
  analysis.decisions.filter((d) => d.verdict !== 'allow' && d.verdict !== 'continue').map((d) => `${d.step} ${d.gate} ${d.verdict} ${d.rule}`);

const LOOKUP = { type: 'function' as const, function: { name: 'lookup', description: 'Look a word up', parameters: { type: 'object' } } };

/**
 * A Chat Completions agent on the openai SDK; its tool wrapped by recordTool. Each turn runs until an
 * answer without tool calls; with `resend`, the first request of each turn is sent twice (its first
 * answer dropped, as an agent that retries would).
 */
async function chatAgent(steps: ScenarioStep[], turns: string[], resend = false): Promise<string> {
  const server = await startMockLlm(steps);
  const tape = join(dir, `chat-${tapes++}.tape.jsonl`);
  const session = await record({ tape });
  try {
    const client = new OpenAI({ apiKey: API_KEY, baseURL: server.baseURL, fetch: session.fetch });
    const lookup = session.recordTool('lookup', async (args: { q: string }) => ({ word: args.q, meaning: 'a thing' }));
    const messages: ChatCompletionMessageParam[] = [];
    for (const turn of turns) {
      messages.push({ role: 'user', content: turn });
      if (resend) await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [...messages], tools: [LOOKUP] });
      for (;;) {
        const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [...messages], tools: [LOOKUP] });
        const message = completion.choices[0]!.message;
        messages.push(message);
        if (message.tool_calls === undefined || message.tool_calls.length === 0) break;
        for (const call of message.tool_calls) {
          if (call.type !== 'function') continue;
          const value = await lookup(JSON.parse(call.function.arguments) as { q: string });
          messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(value) });
        }
      }
    }
  } finally {
    await session.finish();
    await server.close();
  }
  server.assertConsumed();
  return tape;
}

const USAGE = { prompt_tokens: 100, completion_tokens: 10 };
const SAME_LOOKUP: ScenarioStep = { tool_calls: [{ name: 'lookup', arguments: { q: 'x' } }], usage: USAGE };
/** The model asks for lookup(q=x) six times, one call a step, then answers. */
const LOOPING: ScenarioStep[] = [...Array.from({ length: 6 }, () => SAME_LOOKUP), { content: 'x is a thing.', usage: { prompt_tokens: 50, completion_tokens: 5 } }];

describe('a looping Chat Completions agent recorded through the library', () => {
  let looping: { meta: RunMeta; events: RunEvent[] };
  beforeAll(async () => {
    looping = await readTape(await chatAgent(LOOPING, ['What is x?']));
  });

  it('the second identical call is a duplicate of a successful idempotent one, the third is blocked: the stop point, with what the run spent after it', () => {
    const analysis = analyseRun(looping.meta, looping.events);
    expect(notable(analysis).slice(0, 2)).toEqual(['1 replay_control skip duplicate_success', '2 loop_guard block identical_call_block']);
    const response = looping.events.find((e) => e.type === 'llm_response' && e.step === 2)!;
    expect(analysis.stop).toEqual({
      step: 2, seq: response.seq, callId: 'call_2_0', tool: 'lookup', gate: 'loop_guard', rule: 'identical_call_block', verdict: 'block',
      reason: 'identical call 3 of 3: blocked',
    });
    // Steps 3, 4 and 5 asked for the same call again, and step 6 answered.
    const price = DEFAULT_PRICES['gpt-4o-mini']!;
    const call = costOf({ inputTokens: 100, outputTokens: 10 }, price);
    const answer = costOf({ inputTokens: 50, outputTokens: 5 }, price);
    expect(analysis.saved.steps).toBe(4);
    expect(analysis.saved.tokens).toBe(3 * 110 + 55);
    expect(analysis.saved.cost).toBeCloseTo(3 * call + answer, 12);
    expect(analysis.totals).toMatchObject({ steps: 7, tokens: 6 * 110 + 55 });
    expect(analysis.totals.cost).toBeCloseTo(6 * call + answer, 12);
    // The calls that ran have their outcomes from recordTool; the decisions are marked analysis, at the answer that asked.
    expect(analysis.outcomes).toEqual({ recorded: 1, fromMessages: 0, unknown: 0 });
    const block = analysis.decisions.find((d) => d.rule === 'identical_call_block')!;
    expect(block).toMatchObject({ type: 'guardrail', analysis: true, seq: response.seq, step: 2, callId: 'call_2_0' });
  });

  it('the repetition check would have stopped it at the fourth identical step, and nothing after that would have run', () => {
    const analysis = analyseRun(looping.meta, looping.events);
    expect(notable(analysis).slice(2)).toEqual(['3 repetition stuck repetition', '4 policy block after_stop', '5 policy block after_stop']);
  });

  it('a tool said not to be idempotent is never a duplicate: no skip, the block stays at step 2', () => {
    const analysis = analyseRun(looping.meta, looping.events, { config: { tools: { lookup: { idempotent: false } } } });
    expect(analysis.decisions.filter((d) => d.verdict === 'skip')).toEqual([]);
    expect(analysis.decisions.filter((d) => d.gate === 'replay_control').map((d) => d.rule)).toEqual(['non_idempotent', 'non_idempotent']);
    expect(analysis.stop).toMatchObject({ step: 2, rule: 'identical_call_block' });
    expect(analysis.outcomes).toEqual({ recorded: 2, fromMessages: 0, unknown: 0 });
  });

  it('identicalCallBlock 2 moves the stop point to step 1', () => {
    const analysis = analyseRun(looping.meta, looping.events, { config: { identicalCallBlock: 2 } });
    expect(analysis.stop).toMatchObject({ step: 1, rule: 'identical_call_block', reason: 'identical call 2 of 2: blocked' });
    expect(analysis.saved.steps).toBe(5);
    expect(analysis.config.identicalCallBlock).toBe(2);
  });

  it('a token budget is warned of as it nears; over it, the analysis ends where the built-in loop would have ended the run', () => {
    const config = { reserveTokens: 600, maxRepeatedToolSteps: 10 };
    const near = analyseRun(looping.meta, looping.events, { limits: { tokenBudget: 1000 }, config });
    expect(near.decisions.filter((d) => d.gate === 'budget').map((d) => `${d.step} ${d.rule}`)).toEqual([3, 4, 5, 6].map((s) => `${s} near_token_budget`));
    // 110 tokens a step: 550 at step 4, over a budget of 500.
    const over = analyseRun(looping.meta, looping.events, { limits: { tokenBudget: 500 }, config });
    expect(over.decisions.at(-1)).toMatchObject({ step: 4, gate: 'budget', verdict: 'warn' });
  });

  it('a new user message is a new turn: the same call runs again', async () => {
    const steps: ScenarioStep[] = [SAME_LOOKUP, { content: 'x is a thing.' }, SAME_LOOKUP, { content: 'Still a thing.' }];
    const { meta, events } = await readTape(await chatAgent(steps, ['What is x?', 'Look again.']));
    const analysis = analyseRun(meta, events);
    expect(analysis.decisions.filter((d) => d.gate === 'replay_control').map((d) => `${d.step} ${d.rule}`)).toEqual(['0 first_call', '2 first_call']);
    expect(analysis.stop).toBeNull();
  });

  it('a request sent again is the same turn; a call that never ran has no outcome', async () => {
    const steps: ScenarioStep[] = [SAME_LOOKUP, SAME_LOOKUP, { content: 'x is a thing.' }];
    const { meta, events } = await readTape(await chatAgent(steps, ['What is x?'], true));
    const analysis = analyseRun(meta, events);
    expect(analysis.decisions.filter((d) => d.gate === 'loop_guard').map((d) => `${d.step} ${d.rule}`)).toEqual(['0 first_attempt', '1 identical_call']);
    expect(analysis.outcomes).toEqual({ recorded: 1, fromMessages: 0, unknown: 1 });
  });
});

// ---- Agents whose tool outcomes are only in the messages they send the model next ----

const CITIES = ['Paris', 'Rome', 'Oslo', 'Lima', 'Kyiv'];

/** The model asks for the weather of the next city for as many tool results as the request has, then answers. */
function weatherFixtures(): AimockFixture[] {
  const fixtures: AimockFixture[] = CITIES.map((city, i) => ({
    match: { predicate: (req) => req.messages.filter((m) => m.role === 'tool').length === i },
    response: { toolCalls: [{ name: 'get_weather', arguments: JSON.stringify({ city }) }] },
  }));
  fixtures.push({ match: { predicate: () => true }, response: { content: 'No weather anywhere.' } });
  return fixtures;
}

const WEATHER_SCHEMA = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };

describe('agents on the Responses and Messages APIs: outcomes from the tool messages', () => {
  let aimock: Awaited<ReturnType<typeof startAimock>>;
  beforeAll(async () => {
    aimock = await startAimock(weatherFixtures());
  });
  afterAll(async () => {
    await aimock.close();
  });

  it('Anthropic: a tool_result marked is_error is a failure — warned, halted, a halt nudge granted once, then the run stopped', async () => {
    const tape = join(dir, `anthropic-${tapes++}.tape.jsonl`);
    const session = await record({ tape });
    const client = new Anthropic({ apiKey: API_KEY, baseURL: aimock.root, fetch: session.fetch });
    const messages: MessageParam[] = [{ role: 'user', content: 'What is the weather?' }];
    for (let i = 0; i < 8; i++) {
      const message = await client.messages.create({
        model: 'claude-test', max_tokens: 256, messages, tools: [{ name: 'get_weather', description: 'The weather in a city', input_schema: WEATHER_SCHEMA }],
      });
      messages.push({ role: 'assistant', content: message.content });
      const uses = message.content.filter((b) => b.type === 'tool_use');
      if (uses.length === 0) break;
      const results: ContentBlockParam[] = uses.map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: 'weather service down', is_error: true }));
      messages.push({ role: 'user', content: results });
    }
    await session.finish();
    const { meta, events } = await readTape(tape);
    const analysis = analyseRun(meta, events, { config: { failureWarn: 1, failureHalt: 2, haltNudges: 1 } });
    // Four calls ran before the stop; the fifth would not have.
    expect(analysis.outcomes).toEqual({ recorded: 0, fromMessages: 4, unknown: 0 });
    expect(notable(analysis)).toEqual([
      '0 failures warn consecutive_failures_warn',
      '1 failures halt consecutive_failures_halt',
      '2 failures warn consecutive_failures_warn',
      '3 failures halt consecutive_failures_halt',
      '4 policy block after_stop',
    ]);
    // The first halt became a message to the model; the second ended the run.
    expect(analysis.stop).toMatchObject({ step: 3, gate: 'failures', verdict: 'halt', rule: 'consecutive_failures_halt', tool: 'get_weather' });
  });

  it('Responses API: function_call_output items are the outcomes; different cities, no stop', async () => {
    const tape = join(dir, `responses-${tapes++}.tape.jsonl`);
    const session = await record({ tape });
    const client = new OpenAI({ apiKey: API_KEY, baseURL: aimock.baseURL, fetch: session.fetch });
    const input: ResponseInputItem[] = [{ role: 'user', content: 'What is the weather?' }];
    for (let i = 0; i < 8; i++) {
      const response = await client.responses.create({
        model: 'gpt-4.1-mini', input, tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER_SCHEMA, strict: false }],
      });
      const calls = response.output.filter((item) => item.type === 'function_call');
      if (calls.length === 0) break;
      for (const call of calls) {
        input.push(call);
        input.push({ type: 'function_call_output', call_id: call.call_id, output: 'sunny' });
      }
    }
    await session.finish();
    const { meta, events } = await readTape(tape);
    const analysis = analyseRun(meta, events);
    expect(analysis.outcomes).toEqual({ recorded: 0, fromMessages: 5, unknown: 0 });
    const gates = analysis.decisions.filter((d): d is GuardrailEvent => d.gate === 'replay_control' || d.gate === 'failures');
    expect(gates.map((d) => d.rule)).toEqual(Array.from({ length: 5 }, () => ['first_call', 'failure_reset']).flat());
    expect(analysis.stop).toBeNull();
  });
});
