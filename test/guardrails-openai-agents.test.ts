/**
 * The guardrails live in an @openai/agents (0.14) agent, through openaiAgentsGuardrails: a model
 * served by aimock on 127.0.0.1 that asks for the same tool with the same arguments at every turn,
 * the run recorded through agentctl's `fetch` onto a tape file with the guardrails' decisions. The
 * tool runs once, the second call is given the first one's result, the third is blocked, and the run
 * is stopped where the guardrails' engine stops it — before the model is asked a fifth time; the
 * analysis of the same agent recorded without the adapter names the same stop point.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool, type CallModelInputFilterArgs } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openaiAgentsGuardrails, type OpenAIAgentsGuardrails } from '../src/adapters/openai-agents.js';
import type { GuardrailEvent, RunEvent } from '../src/core/events.js';
import { GuardrailStopError, InvalidOptionError } from '../src/core/errors.js';
import type { ToolCall } from '../src/core/messages.js';
import { GuardrailSession, type GuardrailDecision } from '../src/guardrails/guardrail-session.js';
import { createGuardrails } from '../src/library/live-guardrails.js';
import { record } from '../src/library/record-replay.js';
import { analyseRun } from '../src/replay/guardrail-analysis.js';
import { openTapeFile } from '../src/tape/tape-file.js';
import { startAimock, type Aimock } from './support/aimock.js';

const API_KEY = 'sk-guardrails-agents-0123456789abcdef';
const MODEL = 'gpt-4.1-mini';
const LOOKUP_ARGS = '{"q":"agentctl"}';

/** A model that never gives up: the same lookup at every turn, whatever the tool said. */
const LOOPING = [{ match: { userMessage: 'Look up agentctl' }, response: { toolCalls: [{ name: 'lookup', arguments: LOOKUP_ARGS }] } }];
/** A model that keeps asking for a page that cannot be fetched, told of the halt (a halt nudge names the tool) or not. */
const FETCH = { toolCalls: [{ name: 'fetch_page', arguments: '{"url":"https://example.com"}' }] };
const FAILING = [{ match: { userMessage: 'Fetch the page' }, response: FETCH }, { match: { userMessage: 'fetch_page' }, response: FETCH }];
/** A model that looks up once, then answers. */
const ONCE = [
  { match: { userMessage: 'Look up once', hasToolResult: false }, response: { toolCalls: [{ name: 'lookup', arguments: LOOKUP_ARGS }] } },
  { match: { userMessage: 'Look up once', hasToolResult: true }, response: { content: 'agentctl: 3 hits.' } },
];

let dir: string;

beforeAll(async () => {
  setTracingDisabled(true);
  dir = await mkdtemp(join(tmpdir(), 'agentctl-guardrails-agents-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function runnerFor(client: OpenAI, api: 'responses' | 'chat'): Runner {
  return new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: api === 'responses' }), tracingDisabled: true });
}

/** The agent with its one lookup tool, guarded (or not); `lookups` counts the real runs. */
function lookupAgent(guarded?: OpenAIAgentsGuardrails) {
  const effects = { lookups: 0 };
  const search = async ({ q }: { q: string }) => {
    effects.lookups++;
    return { q, hits: 3 };
  };
  const lookup = tool({
    name: 'lookup',
    description: 'Look a term up',
    parameters: z.object({ q: z.string() }),
    execute: guarded === undefined ? search : guarded.execute(search),
  });
  return { effects, agent: new Agent({ name: 'researcher', instructions: 'Use the tool.', model: MODEL, tools: [lookup] }) };
}

/** Run to the end (streamed or not): what the run was rejected with, or undefined when it finished. */
async function rejection(runner: Runner, agent: Agent, task: string, options: object, stream: boolean): Promise<unknown> {
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

/** The calls the model made, from the tape: one per llm_response, in order. */
function recordedCalls(events: readonly RunEvent[]): ToolCall[][] {
  return events.flatMap((e) => (e.type === 'llm_response' ? [e.response.message.tool_calls ?? []] : []));
}

/** The tool outputs the model was given, from the tape: the requests' tool messages, by call id. */
function toolOutputs(events: readonly RunEvent[]): Map<string, string> {
  const outputs = new Map<string, string>();
  for (const e of events) {
    if (e.type !== 'llm_request') continue;
    for (const message of e.append) if (message.role === 'tool') outputs.set(message.tool_call_id, String(message.content));
  }
  return outputs;
}

/** The engine driven as a framework adapter drives it (no startStep): the calls of each step, each ending ok. */
function engineDecisions(steps: readonly ToolCall[][]): { decisions: GuardrailDecision[]; stop: { rule: string } | null; stopStep: number } {
  const decisions: GuardrailDecision[] = [];
  const session = new GuardrailSession({}, { onDecision: (d) => decisions.push(d) });
  let stopStep = -1;
  for (const calls of steps) {
    for (const call of calls) {
      if (session.beforeTool(call).action === 'allow') session.afterTool(call, { status: 'ok', output: 'out' });
    }
    const step = session.step;
    if (session.endStep().action === 'stop') {
      stopStep = step;
      break;
    }
  }
  return { decisions, stop: session.stop, stopStep };
}

async function readTape(file: string): Promise<RunEvent[]> {
  const tape = await openTapeFile(file);
  const events: RunEvent[] = [];
  for await (const event of tape.events()) events.push(event);
  return events;
}

const brief = (d: GuardrailDecision | GuardrailEvent) => [d.step, d.gate, d.rule, d.verdict];

describe('openaiAgentsGuardrails: an @openai/agents 0.14 agent that loops', () => {
  let mock: Aimock;
  beforeAll(async () => {
    mock = await startAimock([...LOOPING, ...FAILING, ...ONCE]);
  });
  afterAll(async () => {
    await mock.close();
  });

  const cases = [
    { api: 'responses', stream: false },
    { api: 'chat', stream: true },
  ] as const;

  it.each(cases)('$api API, stream $stream: runs once, skips the duplicate, blocks the third, stops at the repetition before a fifth model call', async ({ api, stream }) => {
    const file = join(dir, `loop-${api}-${stream}.tape.jsonl`);
    const rec = await record({ tape: file });
    const lookupFlags = { lookup: { idempotent: true, mutating: false } };
    const guardrails = createGuardrails({ tape: rec, tools: lookupFlags });
    const guarded = openaiAgentsGuardrails(guardrails);
    const { agent, effects } = lookupAgent(guarded);
    const before = mock.requestCount();
    const client = new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, fetch: rec.fetch, maxRetries: 0 });
    const outcome = await rejection(runnerFor(client, api), agent, 'Look up agentctl.', guarded.runOptions(), stream);
    const meta = await rec.finish();

    // Stopped, with a typed error naming the rule and the step.
    expect(outcome).toBeInstanceOf(GuardrailStopError);
    const stop = outcome as GuardrailStopError;
    expect(stop).toMatchObject({ code: 'AGENTCTL_GUARDRAIL_STOP', exitCode: 3, rule: 'repetition', step: 3 });
    expect(stop.message).toMatch(/^the guardrails stopped the run at step 3: repetition: /);
    expect(guardrails.stopped?.rule).toBe('repetition');
    // Four model calls, the tool run once.
    expect(mock.requestCount() - before).toBe(4);
    expect(effects.lookups).toBe(1);

    // What the model was told, as the tape has it.
    const events = await readTape(file);
    const steps = recordedCalls(events);
    expect(steps.map((calls) => calls.map((c) => [c.function.name, c.function.arguments]))).toEqual(Array(4).fill([['lookup', LOOKUP_ARGS]]));
    const ids = steps.map((calls) => calls[0]!.id);
    const outputs = toolOutputs(events);
    expect(JSON.parse(outputs.get(ids[0]!)!)).toEqual({ q: 'agentctl', hits: 3 });
    expect(outputs.get(ids[1]!)).toBe(outputs.get(ids[0]!)); // the duplicate: the first call's result
    expect(outputs.get(ids[2]!)).toMatch(/^Blocked: you have requested `lookup` with exactly these arguments 3 times/); // the guardrails' message
    expect(outputs.has(ids[3]!)).toBe(false); // stopped before the model read it

    // The decisions: the engine's, call for call, and the stop where it stops.
    const blocks = guardrails.decisions.filter((d) => d.verdict !== 'allow' && d.verdict !== 'continue');
    expect(blocks.map((d) => [...brief(d), d.callId ?? null])).toEqual([
      [1, 'replay_control', 'duplicate_success', 'skip', ids[1]],
      [2, 'loop_guard', 'identical_call_block', 'block', ids[2]],
      [3, 'loop_guard', 'identical_call_block', 'block', ids[3]],
      [3, 'repetition', 'repetition', 'stuck', null],
    ]);
    const engine = engineDecisions(steps);
    expect(guardrails.decisions.map((d) => [...brief(d), d.callId ?? null])).toEqual(engine.decisions.map((d) => [...brief(d), d.callId ?? null]));
    expect([engine.stopStep, engine.stop?.rule]).toEqual([3, 'repetition']);

    // On the tape, each decision at the step of the model answer that asked for its call; and the
    // analysis of this tape finds nothing it does not already show.
    const onTape = events.flatMap((e) => (e.type === 'guardrail' ? [e] : []));
    expect(onTape.map((e) => [...brief(e), e.callId ?? null])).toEqual(guardrails.decisions.map((d) => [...brief(d), d.callId ?? null]));
    expect(onTape.every((e) => e.analysis === undefined)).toBe(true);
    expect(analyseRun(meta!, events, { config: { tools: lookupFlags } }).stop).toBeNull();
  });

  it('the analysis of the same run recorded without the adapter stops it where the adapter did: step 2, the identical-call block', async () => {
    const lookupFlags = { lookup: { idempotent: true, mutating: false } };
    const client = (fetch?: typeof globalThis.fetch) =>
      new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, maxRetries: 0, ...(fetch === undefined ? {} : { fetch }) });

    const guardrails = createGuardrails({ tools: lookupFlags });
    const guarded = openaiAgentsGuardrails(guardrails);
    const live = await rejection(runnerFor(client(), 'responses'), lookupAgent(guarded).agent, 'Look up agentctl.', guarded.runOptions(), false);
    expect(live).toBeInstanceOf(GuardrailStopError);

    // The same agent, its tool not guarded: it loops until the SDK's own turn limit.
    const file = join(dir, 'unguarded.tape.jsonl');
    const rec = await record({ tape: file });
    const { agent, effects } = lookupAgent();
    const loose = await rejection(runnerFor(client(rec.fetch), 'responses'), agent, 'Look up agentctl.', { maxTurns: 6 }, false);
    const meta = await rec.finish();
    expect(String(loose)).toMatch(/Max turns \(6\) exceeded/);
    expect(effects.lookups).toBe(6);

    const analysis = analyseRun(meta!, await readTape(file), { config: { tools: lookupFlags } });
    const firstStop = guardrails.decisions.find((d) => d.verdict === 'block' || d.verdict === 'stuck' || d.verdict === 'halt')!;
    expect(analysis.stop).toMatchObject({ step: 2, rule: 'identical_call_block', verdict: 'block', tool: 'lookup' });
    expect([analysis.stop?.step, analysis.stop?.rule, analysis.stop?.tool]).toEqual([firstStop.step, firstStop.rule, firstStop.tool]);
    // Up to the stop point, decision for decision (the order within a step aside: the analysis checks a
    // repeated step before its calls run, the adapter after).
    const upTo = (ds: readonly GuardrailDecision[] | readonly GuardrailEvent[]) => ds.filter((d) => d.step <= 2).map((d) => brief(d).join(' ')).sort();
    expect(upTo(analysis.decisions)).toEqual(upTo(guardrails.decisions));
    expect(analysis.saved.steps).toBe(3);
  });

  /** An agent whose one tool always throws; `fetches` counts its runs. */
  function failingAgent(guarded: OpenAIAgentsGuardrails) {
    const effects = { fetches: 0 };
    const fetchPage = tool({
      name: 'fetch_page',
      description: 'Fetch a page',
      parameters: z.object({ url: z.string() }),
      execute: guarded.execute(async () => {
        effects.fetches++;
        throw new Error('connection refused');
      }),
    });
    return { effects, agent: new Agent({ name: 'reader', instructions: 'Use the tool.', model: MODEL, tools: [fetchPage] }) };
  }

  it('a tool that throws: each throw is a failure, and the failure halt stops the run at the end of its step', async () => {
    const guardrails = createGuardrails({ failureWarn: 1, failureHalt: 2 });
    const guarded = openaiAgentsGuardrails(guardrails);
    const { agent, effects } = failingAgent(guarded);
    const before = mock.requestCount();
    const client = new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, maxRetries: 0 });
    const rejected = await runnerFor(client, 'chat').run(agent, 'Fetch the page.', guarded.runOptions({ maxTurns: 10 })).catch((error: unknown) => error);

    expect(rejected).toBeInstanceOf(GuardrailStopError);
    expect(rejected).toMatchObject({ rule: 'consecutive_failures_halt', step: 1 });
    expect(effects.fetches).toBe(2);
    expect(mock.requestCount() - before).toBe(2);
    const watched = guardrails.decisions.filter((d) => d.rule.startsWith('consecutive_failures'));
    expect(watched.map((d) => [d.step, d.rule, d.verdict])).toEqual([
      [0, 'consecutive_failures_warn', 'warn'],
      [1, 'consecutive_failures_halt', 'halt'],
    ]);
  });

  it('a halt nudge: the model is told why in its next request, the failures count afresh, and the next halt stops the run', async () => {
    const file = join(dir, 'nudge.tape.jsonl');
    // Only the failure watch: identical calls and repeated steps never stop this run first.
    const guardrails = createGuardrails({ failureHalt: 2, haltNudges: 1, identicalCallBlock: 10, maxRepeatedToolSteps: 10 });
    const guarded = openaiAgentsGuardrails(guardrails);
    const { agent, effects } = failingAgent(guarded);
    const rec = await record({ tape: file });
    const client = new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, fetch: rec.fetch, maxRetries: 0 });
    const outcome = await rejection(runnerFor(client, 'chat'), agent, 'Fetch the page.', guarded.runOptions(), false);
    await rec.finish();

    expect(outcome).toMatchObject({ rule: 'consecutive_failures_halt', step: 3 });
    expect(effects.fetches).toBe(4);
    const requests = (await readTape(file)).flatMap((e) => (e.type === 'llm_request' ? [e] : []));
    expect(requests).toHaveLength(4);
    const nudges = requests.map((r) => r.append.filter((m) => m.role === 'user' && /fetch_page/.test(String(m.content))).length);
    expect(nudges).toEqual([0, 0, 1, 0]);
    expect(guardrails.decisions.filter((d) => d.verdict === 'halt').map((d) => d.step)).toEqual([1, 3]);
  });

  it('a caller\'s own filter is given the model\'s input with the halt nudge in it', async () => {
    const guarded = openaiAgentsGuardrails(createGuardrails({ failureHalt: 1, haltNudges: 1 }));
    const seen: unknown[][] = [];
    const { callModelInputFilter } = guarded.runOptions({
      callModelInputFilter: async ({ modelData }: CallModelInputFilterArgs) => {
        seen.push(modelData.input);
        return modelData;
      },
    });
    const task = { input: [{ role: 'user', content: 'Fetch the page.' }] };
    // Driven as the runner drives it: a model call, a tool that throws (the halt), the next model call.
    await callModelInputFilter({ modelData: task });
    const fetchPage = guarded.execute(async (): Promise<string> => Promise.reject(new Error('503 from example.com')));
    await expect(fetchPage({}, undefined, { toolCall: { callId: 'c1', name: 'fetch_page', arguments: '{}' } })).rejects.toThrow('503');
    const next = await callModelInputFilter({ modelData: task });
    expect(seen[1]).toHaveLength(2);
    expect(seen[1]?.at(-1)).toEqual({ role: 'user', content: expect.stringContaining('`fetch_page` has failed 1 consecutive times') });
    expect(next.input).toEqual(seen[1]);
  });

  it('each runOptions() is a new turn (the dedup gate starts afresh); the same options again are the same turn; steps count on', async () => {
    const guardrails = createGuardrails({ tools: { lookup: { idempotent: true, mutating: false } } });
    const guarded = openaiAgentsGuardrails(guardrails);
    const { agent, effects } = lookupAgent(guarded);
    const runner = runnerFor(new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, maxRetries: 0 }), 'chat');
    const first = await runner.run(agent, 'Look up once.', guarded.runOptions());
    // Options of the caller's own are kept, its filter run after the guardrails'.
    const filtered: number[] = [];
    const second = guarded.runOptions({
      maxTurns: 5,
      callModelInputFilter: async ({ modelData }: CallModelInputFilterArgs) => {
        filtered.push(modelData.input.length);
        return modelData;
      },
    });
    await runner.run(agent, 'Look up once.', second);
    const resumed = await runner.run(agent, 'Look up once.', second);
    expect([first.finalOutput, resumed.finalOutput]).toEqual(['agentctl: 3 hits.', 'agentctl: 3 hits.']);
    expect(effects.lookups).toBe(2);
    expect(filtered).toHaveLength(4);
    const dedup = guardrails.decisions.filter((d) => d.gate === 'replay_control');
    expect(dedup.map((d) => [d.step, d.rule, d.verdict])).toEqual([
      [0, 'first_call', 'allow'],
      [2, 'first_call', 'allow'],
      [4, 'duplicate_success', 'skip'],
    ]);
    expect(guardrails.stopped).toBeNull();
  });

  it('a run after the stop is refused before its first model call', async () => {
    const guardrails = createGuardrails({ maxRepeatedToolSteps: 1, tools: { lookup: { idempotent: true, mutating: false } } });
    const guarded = openaiAgentsGuardrails(guardrails);
    const { agent } = lookupAgent(guarded);
    const client = new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, maxRetries: 0 });
    const first = await rejection(runnerFor(client, 'chat'), agent, 'Look up agentctl.', guarded.runOptions(), false);
    expect(first).toMatchObject({ rule: 'repetition', step: 1 });
    const before = mock.requestCount();
    const step = guardrails.step;
    const again = await rejection(runnerFor(client, 'chat'), agent, 'Look up agentctl.', guarded.runOptions(), false);
    expect(again).toMatchObject({ rule: 'repetition', step: 1 });
    expect(mock.requestCount()).toBe(before);
    // No step of the stopped run ends again.
    expect(guardrails.step).toBe(step);
  });

  it('a guarded tool of a run not given the run options refuses to run (no step could end)', async () => {
    const guarded = openaiAgentsGuardrails(createGuardrails());
    const { agent, effects } = lookupAgent(guarded);
    const client = new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, maxRetries: 0 });
    const outcome = await rejection(runnerFor(client, 'chat'), agent, 'Look up agentctl.', { maxTurns: 2 }, false);
    expect(effects.lookups).toBe(0);
    expect(String(outcome)).toMatch(/Max turns/);
    await expect(guarded.execute(() => 1)({})).rejects.toBeInstanceOf(InvalidOptionError);
  });
});
