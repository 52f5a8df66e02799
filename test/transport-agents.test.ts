/**
 * Agent frameworks recorded at the transport and replayed offline: openai-agents-js (Responses API
 * and Chat Completions, plain and streamed) and the Vercel AI SDK 5 (chat and responses models,
 * generateText and streamText), each through `record().fetch`, against aimock on 127.0.0.1 — then
 * replayed through `replay().fetch` with the server stopped. A replay gives the same final output
 * and the same tool calls, and runs no tool again: their outcomes come from the tape.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { generateText, stepCountIs, streamText, tool as aiTool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolFunction, ToolPolicy } from '../src/library/recorded-tool.js';
import { record, replay } from '../src/library/record-replay.js';
import { startAimock, type AimockFixture } from './support/aimock.js';
import { BIN } from './support/cli.js';
import { storedEvents } from './support/stored-events.js';

const API_KEY = 'sk-test-agents-0123456789abcdef';
const TASK = 'What is the weather in Paris? Email it to bob@example.com.';

/** The model's side of the run: two tool calls, then the answer once their results are in. */
const FIXTURES: AimockFixture[] = [
  {
    match: { userMessage: 'weather in Paris', hasToolResult: false },
    response: {
      toolCalls: [
        { name: 'get_weather', arguments: '{"city":"Paris"}' },
        { name: 'send_email', arguments: '{"to":"bob@example.com","body":"Paris: sunny, 21C"}' },
      ],
    },
  },
  { match: { userMessage: 'weather in Paris', hasToolResult: true }, response: { content: 'Paris is sunny at 21C; I emailed Bob.' } },
];

let dir: string;

beforeAll(async () => {
  // Nothing goes to OpenAI's tracing endpoint (nor anywhere else off this machine).
  setTracingDisabled(true);
  dir = await mkdtemp(join(tmpdir(), 'agentctl-transport-agents-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The tools' real work, with what it did counted. */
function toolImplementations() {
  const effects = { weatherLookups: 0, emailsSent: 0 };
  return {
    effects,
    getWeather: async (args: { city: string }) => {
      effects.weatherLookups++;
      return { city: args.city, sky: 'sunny', celsius: 21 };
    },
    sendEmail: async (args: { to: string; body: string }) => {
      effects.emailsSent++; // the side effect a replay must not repeat
      return `sent to ${args.to}`;
    },
  };
}

type Wrap = <F extends ToolFunction>(name: string, fn: F, policy?: ToolPolicy) => F;

/** The agent, its tools wrapped by a recording or a replay. */
function weatherAgent(wrap: Wrap, impl: ReturnType<typeof toolImplementations>): Agent {
  const getWeather = wrap('get_weather', impl.getWeather, { idempotent: true, mutating: false });
  const sendEmail = wrap('send_email', impl.sendEmail, { mutating: true });
  return new Agent({
    name: 'assistant',
    instructions: 'Answer briefly. Use the tools.',
    model: 'gpt-4.1-mini',
    tools: [
      agentTool({ name: 'get_weather', description: 'The weather in a city', parameters: z.object({ city: z.string() }), execute: (input) => getWeather(input) }),
      agentTool({
        name: 'send_email',
        description: 'Send an email',
        parameters: z.object({ to: z.string(), body: z.string() }),
        execute: (input) => sendEmail(input),
      }),
    ],
  });
}

interface AgentOutcome {
  finalOutput: unknown;
  toolCalls: { name: string; arguments: string }[];
  toolOutputs: unknown[];
}

async function runAgent(client: OpenAI, agent: Agent, api: 'responses' | 'chat', stream: boolean): Promise<AgentOutcome> {
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: api === 'responses' }), tracingDisabled: true });
  let result;
  if (stream) {
    const streamed = await runner.run(agent, TASK, { stream: true });
    for await (const event of streamed) void event;
    await streamed.completed;
    result = streamed;
  } else {
    result = await runner.run(agent, TASK);
  }
  const toolCalls = result.newItems.flatMap((item) =>
    item.type === 'tool_call_item' && item.rawItem.type === 'function_call' ? [{ name: item.rawItem.name, arguments: item.rawItem.arguments }] : [],
  );
  const toolOutputs = result.newItems.flatMap((item) => (item.type === 'tool_call_output_item' ? [item.output] : []));
  return { finalOutput: result.finalOutput, toolCalls, toolOutputs };
}


describe('openai-agents-js through record().fetch and replay().fetch', () => {
  const cases = [
    { api: 'responses', stream: false },
    { api: 'responses', stream: true },
    { api: 'chat', stream: false },
    { api: 'chat', stream: true },
  ] as const;

  it.each(cases)('$api API, stream $stream: replayed offline with the same output and tool calls, no tool run again', async ({ api, stream }) => {
    const store = join(dir, `agents-${api}-${stream}`);
    const live = toolImplementations();
    const mock = await startAimock(FIXTURES);
    let recorded: AgentOutcome;
    let runId: string;
    try {
      const rec = await record({ tape: { store, run: `agents-${api}` } });
      runId = (rec.runId as string);
      const client = new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, fetch: rec.fetch, maxRetries: 0 });
      recorded = await runAgent(client, weatherAgent(rec.recordTool, live), api, stream);
      const meta = await rec.finish();
      expect(meta).toMatchObject({ kind: 'record', source: 'library', status: 'complete', model: 'gpt-4.1-mini' });
      expect(mock.requestCount()).toBe(2);
    } finally {
      await mock.close();
    }

    // What ran live: the model's two tool calls, each tool once, then the answer.
    expect(recorded.finalOutput).toBe('Paris is sunny at 21C; I emailed Bob.');
    expect(recorded.toolCalls.map((c) => [c.name, JSON.parse(c.arguments) as unknown])).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['send_email', { to: 'bob@example.com', body: 'Paris: sunny, 21C' }],
    ]);
    expect(live.effects).toEqual({ weatherLookups: 1, emailsSent: 1 });

    const events = await storedEvents(store, runId);
    expect(events.filter((e) => e.type === 'llm_request').map((e) => e.type === 'llm_request' && [e.endpoint ?? 'chat', e.stream])).toEqual([
      [api, stream],
      [api, stream],
    ]);
    expect(events.filter((e) => e.type === 'tool_call').map((e) => e.type === 'tool_call' && [e.tool, JSON.parse(e.arguments) as unknown])).toEqual([
      ['get_weather', { city: 'Paris' }],
      ['send_email', { body: 'Paris: sunny, 21C', to: 'bob@example.com' }],
    ]);
    expect(JSON.stringify(events)).not.toContain(API_KEY);

    // Replay with the server gone: the same tools (a new count), wrapped by the replay.
    const rep = await replay({ tape: { store, run: runId } });
    const again = toolImplementations();
    const client = new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, fetch: rep.fetch, maxRetries: 0 });
    const replayed = await runAgent(client, weatherAgent(rep.recordTool, again), api, stream);
    expect(replayed.finalOutput).toEqual(recorded.finalOutput);
    expect(replayed.toolCalls).toEqual(recorded.toolCalls);
    expect(replayed.toolOutputs).toEqual(recorded.toolOutputs);
    expect(again.effects).toEqual({ weatherLookups: 0, emailsSent: 0 });
    expect(rep.replay?.divergences).toEqual([]);
    expect(rep.replay?.calls).toEqual([0, 1].map((iteration) => ({ iteration, source: 'tape', matched: true, resynced: false })));
    expect(rep.replay?.remaining).toBe(0);
    expect(rep.replay?.liveCalls).toBe(0);
    expect(await rep.finish()).toBeUndefined(); // not saved: nothing went live
  });
});

describe('Vercel AI SDK 5 (createOpenAI) through record().fetch and replay().fetch', () => {
  const HAIKU: AimockFixture[] = [
    { match: { userMessage: 'haiku about a pond' }, response: { content: 'Old pond; a frog jumps in. The sound of water.' } },
    { match: { userMessage: 'haiku about snow' }, response: { content: 'First snow, then silence.' } },
    { match: { userMessage: 'weather in Paris', hasToolResult: false }, response: { toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] } },
    { match: { userMessage: 'weather in Paris', hasToolResult: true }, response: { content: 'Sunny, 21C in Paris.' } },
  ];

  it.each(['chat', 'responses'] as const)('%s model: generateText (with a tool) and streamText replay the same text offline', async (kind) => {
    const store = join(dir, `ai-sdk-${kind}`);
    const model = (fetch: typeof globalThis.fetch, baseURL: string) => {
      const provider = createOpenAI({ apiKey: API_KEY, baseURL, fetch });
      return kind === 'chat' ? provider.chat('gpt-4.1-mini') : provider.responses('gpt-4.1-mini');
    };
    const run = async (fetch: typeof globalThis.fetch, baseURL: string, getWeather: (args: { city: string }) => Promise<unknown>) => {
      const plain = await generateText({ model: model(fetch, baseURL), prompt: 'Write a haiku about a pond.', maxRetries: 0 });
      const withTool = await generateText({
        model: model(fetch, baseURL),
        prompt: 'What is the weather in Paris?',
        tools: { get_weather: aiTool({ description: 'The weather in a city', inputSchema: z.object({ city: z.string() }), execute: (input) => getWeather(input) }) },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      const errors: unknown[] = [];
      const streamed = streamText({ model: model(fetch, baseURL), prompt: 'Write a haiku about snow.', maxRetries: 0, onError: ({ error }) => void errors.push(error) });
      const parts: string[] = [];
      for await (const part of streamed.textStream) parts.push(part);
      expect(errors).toEqual([]);
      return {
        plain: plain.text,
        withTool: withTool.text,
        toolCalls: withTool.steps.flatMap((s) => s.toolCalls.map((c) => [c.toolName, c.input])),
        streamed: parts.join(''),
        streamedParts: parts.length,
      };
    };

    const live = toolImplementations();
    const mock = await startAimock(HAIKU);
    let recorded;
    let runId: string;
    try {
      const rec = await record({ tape: { store } });
      runId = (rec.runId as string);
      recorded = await run(rec.fetch, mock.baseURL, rec.recordTool('get_weather', live.getWeather, { idempotent: true, mutating: false }));
      await rec.finish();
      expect(mock.requestCount()).toBe(4);
    } finally {
      await mock.close();
    }
    expect(recorded).toMatchObject({
      plain: 'Old pond; a frog jumps in. The sound of water.',
      withTool: 'Sunny, 21C in Paris.',
      toolCalls: [['get_weather', { city: 'Paris' }]],
      streamed: 'First snow, then silence.',
    });
    expect(recorded.streamedParts).toBeGreaterThan(1);
    expect(live.effects.weatherLookups).toBe(1);

    const rep = await replay({ tape: { store, run: runId } });
    const again = toolImplementations();
    const replayed = await run(rep.fetch, mock.baseURL, rep.recordTool('get_weather', again.getWeather, { idempotent: true, mutating: false }));
    expect(replayed).toEqual(recorded);
    expect(again.effects.weatherLookups).toBe(0);
    expect(rep.replay?.divergences).toEqual([]);
    expect(rep.replay?.calls.map((c) => [c.source, c.matched])).toEqual([0, 1, 2, 3].map(() => ['tape', true]));
  });
});

/** Start `agentctl proxy` on a free port; resolves with its URL once its `--json` line is out. */
async function startProxy(store: string, args: string[]): Promise<{ url: string; stop(): Promise<number | null> }> {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: API_KEY, NO_COLOR: '1' };
  delete env.OPENAI_BASE_URL;
  const child = spawn(process.execPath, [BIN, 'proxy', '--port', '0', '--json', '--store', store, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the proxy did not start: ${stderr}`)), 10_000);
    void exited.then((code) => reject(new Error(`the proxy exited with ${code}: ${stderr}`)));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { url: string }).url);
    });
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('openai-agents-js through agentctl proxy', () => {
  // An agent that knows nothing of agentctl: only its base URL points at the proxy. Its tools are its
  // own (the proxy sees model calls only): they run again on replay unless the agent wraps them.
  it.each(['responses', 'chat'] as const)('%s API: recorded through the proxy, served back offline with the same output and tool calls', async (api) => {
    const store = join(dir, `agents-proxy-${api}`);
    const mock = await startAimock(FIXTURES);
    let recorded: AgentOutcome;
    try {
      const proxy = await startProxy(store, ['--record', `agents-${api}`, '--upstream', mock.baseURL]);
      try {
        const client = new OpenAI({ apiKey: 'sk-client-side-key-0123456789', baseURL: proxy.url, maxRetries: 0 });
        recorded = await runAgent(client, weatherAgent((_name, fn) => fn, toolImplementations()), api, true);
      } finally {
        expect(await proxy.stop()).toBe(0);
      }
      expect(mock.requestCount()).toBe(2);
    } finally {
      await mock.close();
    }
    expect(recorded.finalOutput).toBe('Paris is sunny at 21C; I emailed Bob.');

    // The server is gone: the proxy serves the run, strictly.
    const proxy = await startProxy(store, ['--replay', `agents-${api}`]);
    try {
      const client = new OpenAI({ apiKey: 'anything', baseURL: proxy.url, maxRetries: 0 });
      const replayed = await runAgent(client, weatherAgent((_name, fn) => fn, toolImplementations()), api, true);
      expect(replayed.finalOutput).toEqual(recorded.finalOutput);
      expect(replayed.toolCalls).toEqual(recorded.toolCalls);
    } finally {
      expect(await proxy.stop()).toBe(0);
    }
  });
});
