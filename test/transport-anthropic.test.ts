/**
 * Anthropic's Messages API through agentctl with the real `@anthropic-ai/sdk` against a real server
 * on 127.0.0.1 (aimock): a tool-use agent (the model asks for a tool, the agent sends the result,
 * the model answers), streamed and not, is recorded as model calls — counted, content-matched,
 * shown as steps — and replayed offline byte for byte; a changed request is refused naming the
 * field; a patch is served as a reply the SDK parses; and `agentctl proxy` records and replays it.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FetchLike } from '../src/library/fetch-like.js';
import { record, replay } from '../src/library/record-replay.js';
import { startAimock, type Aimock, type AimockFixture } from './support/aimock.js';
import { runCli } from './support/cli.js';
import { killProxies, startProxy } from './support/proxy.js';
import { storedEvents } from './support/stored-events.js';

const API_KEY = 'sk-ant-test-0123456789abcdefghij';
const UPSTREAM_KEY = 'upstream-anthropic-key-5e8c1d7a';
const QUESTION = 'What is the weather in Paris?';
const FINAL = 'It is 18C and sunny in Paris.';

const FIXTURES: AimockFixture[] = [
  { match: { toolResultContains: '18C' }, response: { content: FINAL } },
  { match: { userMessage: QUESTION }, response: { toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] } },
];

const TOOLS = [{ name: 'get_weather', description: 'The weather in a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } }];

let dir: string;
let stores = 0;
const newStore = (): string => join(dir, `store-${stores++}`);
let mock: Aimock;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-anthropic-'));
  mock = await startAimock(FIXTURES);
});

afterAll(async () => {
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

afterEach(killProxies);

interface AgentRun {
  answer: string;
  /** Every reply as its bytes arrived at the client. */
  bodies: string[];
  /** The tools the agent ran, with their input. */
  tools: string[];
}

/** A fetch that keeps a copy of every reply's text (read to its end before the client gets it). */
function tapped(fetch: FetchLike, bodies: string[]): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, init);
    bodies.push(await response.clone().text());
    return response;
  };
}

/** A tool-use agent on the SDK: ask, run the tools the model asks for, send the results, until it answers. */
async function agent(
  client: Anthropic,
  stream: boolean,
  options: { weather?: string; maxTokens?: number } = {},
): Promise<Omit<AgentRun, 'bodies'>> {
  const messages: MessageParam[] = [{ role: 'user', content: QUESTION }];
  const tools: string[] = [];
  for (let turn = 0; turn < 4; turn++) {
    const params: MessageCreateParamsNonStreaming = { model: 'claude-test', max_tokens: options.maxTokens ?? 512, tools: TOOLS, messages };
    const message: Message = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
    messages.push({ role: 'assistant', content: message.content });
    const uses = message.content.filter((block) => block.type === 'tool_use');
    if (message.stop_reason !== 'tool_use' || uses.length === 0) {
      return { answer: message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''), tools };
    }
    messages.push({
      role: 'user',
      content: uses.map((use) => {
        tools.push(`${use.name} ${JSON.stringify(use.input)}`);
        return { type: 'tool_result' as const, tool_use_id: use.id, content: options.weather ?? '18C, sunny' };
      }),
    });
  }
  throw new Error('the agent did not finish');
}

function client(fetch: FetchLike, baseURL = 'http://127.0.0.1:9'): Anthropic {
  return new Anthropic({ apiKey: API_KEY, baseURL, fetch: fetch as never, maxRetries: 0 });
}

/** Record the agent against aimock; returns the store, the run and what the client saw. */
async function recordAgent(stream: boolean): Promise<{ store: string; runId: string; live: AgentRun; llmCalls: number | undefined }> {
  const store = newStore();
  const rec = await record({ tape: { store } });
  const bodies: string[] = [];
  const live = await agent(client(tapped(rec.fetch, bodies), mock.root), stream);
  const meta = await rec.finish();
  return { store, runId: rec.runId as string, live: { ...live, bodies }, llmCalls: meta?.totals?.llmCalls };
}

describe.each([
  ['not streamed', false],
  ['streamed', true],
] as const)('the Messages API through record() and replay() (%s)', (_label, stream) => {
  let recorded: Awaited<ReturnType<typeof recordAgent>>;

  beforeAll(async () => {
    recorded = await recordAgent(stream);
  });

  it('records each call as a model call: llm_request with endpoint messages, the answer, counted in the totals, no key on the tape', async () => {
    const { live, store, runId, llmCalls } = recorded;
    expect(live.answer).toBe(FINAL);
    expect(live.tools).toEqual(['get_weather {"city":"Paris"}']);
    expect(llmCalls).toBe(2);
    const events = await storedEvents(store, runId);
    expect(events.filter((e) => e.type === 'http_exchange')).toEqual([]);
    const requests = events.filter((e) => e.type === 'llm_request');
    expect(requests.map((e) => [e.endpoint, e.stream, e.tools, e.params])).toEqual([
      ['messages', stream, ['get_weather'], { max_tokens: 512 }],
      ['messages', stream, ['get_weather'], { max_tokens: 512 }],
    ]);
    expect(requests[1]?.append).toMatchObject([{ role: 'assistant', content: null, tool_calls: [{ function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, { role: 'tool', content: '18C, sunny' }]);
    const responses = events.filter((e) => e.type === 'llm_response');
    expect(responses.map((e) => e.response.finishReason)).toEqual(['tool_calls', 'stop']);
    expect(responses[1]?.response.message.content).toBe(FINAL);
    if (stream) expect(events.filter((e) => e.type === 'llm_chunk' && e.chunk.content !== undefined).length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain(API_KEY);
  });

  it('replays offline byte for byte, every call counted and matched', async () => {
    const { store, runId, live } = recorded;
    const rep = await replay({ tape: { store, run: runId }, strict: true });
    const bodies: string[] = [];
    const again = await agent(client(tapped(rep.fetch, bodies)), stream);
    expect(again).toEqual({ answer: live.answer, tools: live.tools });
    expect(bodies).toEqual(live.bodies);
    expect(rep.replay?.calls).toHaveLength(2);
    expect(rep.replay?.calls.every((c) => c.source === 'tape' && c.matched === true)).toBe(true);
    expect(rep.replay?.divergences).toEqual([]);
    expect(rep.replay?.remaining).toBe(0);
    await rep.finish();
  });

  it('refuses a changed request in strict replay, naming the first differing field', async () => {
    const { store, runId } = recorded;
    const toolResult = await replay({ tape: { store, run: runId }, strict: true });
    const changed = agent(client(toolResult.fetch), stream, { weather: '-3C, snow' });
    await expect(changed).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(changed).rejects.toThrow(/differs from recorded call 1 at messages\[2\]\.content/);
    expect(toolResult.replay?.divergences.map((d) => d.path)).toEqual(['messages[2].content']);

    const maxTokens = await replay({ tape: { store, run: runId }, strict: true });
    await expect(agent(client(maxTokens.fetch), stream, { maxTokens: 100 })).rejects.toThrow(/at params\.max_tokens/);
  });

  it('serves a patch as a reply the SDK parses', async () => {
    const { store, runId } = recorded;
    const rep = await replay({ tape: { store, run: runId }, strict: true, patches: { 1: 'Patched: it is raining.' } });
    const patched = await agent(client(rep.fetch), stream);
    expect(patched).toEqual({ answer: 'Patched: it is raining.', tools: ['get_weather {"city":"Paris"}'] });
    expect(rep.replay?.calls.map((c) => c.source)).toEqual(['tape', 'patch']);

    // A patch that asks for a tool: the SDK reads the tool_use block and its input.
    const tools = await replay({ tape: { store, run: runId }, strict: true, patches: { 0: { tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] } } });
    const message = await client(tools.fetch).messages.create({ model: 'claude-test', max_tokens: 512, tools: TOOLS, messages: [{ role: 'user', content: QUESTION }], stream: false });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toMatchObject([{ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } }]);
  });

  it('shows the calls as steps in agentctl view', async () => {
    const { store, runId } = recorded;
    const view = await runCli(['--store', store, 'view', runId, '--no-tui'], { env: { AGENTCTL_STORE: undefined } });
    expect(view.code, view.stderr).toBe(0);
    expect(view.stdout).toMatch(/→ claude-test \(messages\): 1 message \(\+1\)/);
    expect(view.stdout).toMatch(/→ claude-test \(messages\): 3 messages \(\+2\)/);
  });
});

describe('the Messages API through agentctl proxy', () => {
  it('records and replays an Anthropic client pointed at the proxy root, counting its calls', async () => {
    const store = newStore();
    const env = { ANTHROPIC_API_KEY: undefined, AGENTCTL_STORE: undefined, UPSTREAM_ANTHROPIC_KEY: UPSTREAM_KEY };
    const before = mock.requests().length;
    const recording = await startProxy(['--record', 'anth', '--upstream', mock.root, '--api-key-env', 'UPSTREAM_ANTHROPIC_KEY'], { store, env });
    const root = recording.url.replace(/\/v1$/, '');
    const bodies: string[] = [];
    const live = await agent(client(tapped(globalThis.fetch, bodies), root), true);
    expect(live.answer).toBe(FINAL);
    const stopped = await recording.stop();
    const summary = JSON.parse(stopped.stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(summary).toMatchObject({ mode: 'record', recorded: 2, requests: 2 });
    // The SDK's base URL has no /v1: the proxy keeps the /v1 of its paths on an upstream without one.
    expect(mock.requests().slice(before).map((r) => r.path)).toEqual(['/v1/messages', '/v1/messages']);

    const replaying = await startProxy(['--replay', 'anth'], { store, env });
    const replayed: string[] = [];
    const again = await agent(client(tapped(globalThis.fetch, replayed), replaying.url.replace(/\/v1$/, '')), true);
    expect(again).toEqual({ answer: live.answer, tools: live.tools });
    expect(replayed).toEqual(bodies);
    const done = await replaying.stop();
    const served = JSON.parse(done.stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(served).toMatchObject({ mode: 'replay', served: 2, divergences: 0, unused: 0, refused: 0 });
  });
});

describe('a stream that carries an error event', () => {
  /** A server whose stream starts a message, then reports `overloaded_error` (as the API does mid-stream). */
  async function overloadedServer(): Promise<{ root: string; close(): Promise<void> }> {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const start = { type: 'message_start', message: { id: 'msg_live', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 0 } } };
        res.write(`event: message_start\ndata: ${JSON.stringify(start)}\n\n`);
        res.end(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { root: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it('is recorded as the call failing, and a replay fails it the same way', async () => {
    const server = await overloadedServer();
    const store = newStore();
    const rec = await record({ tape: { store } });
    const ask = (c: Anthropic): Promise<Message> => c.messages.stream({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    try {
      await expect(ask(client(rec.fetch, server.root))).rejects.toThrow(/Overloaded/);
    } finally {
      await server.close();
    }
    const meta = await rec.finish();
    const events = await storedEvents(store, rec.runId as string);
    expect(events.filter((e) => e.type === 'llm_response')).toEqual([]);
    expect(events.filter((e) => e.type === 'llm_error').map((e) => e.message)).toEqual(['overloaded_error: Overloaded']);
    expect(events.filter((e) => e.type === 'llm_chunk').at(-1)).toMatchObject({ chunk: { finished: true, error: 'overloaded_error: Overloaded' } });
    expect(meta?.totals?.llmCalls).toBe(1);

    const rep = await replay({ tape: { store, run: rec.runId as string }, strict: true });
    await expect(ask(client(rep.fetch))).rejects.toThrow(/Overloaded/);
    expect(rep.replay?.calls).toHaveLength(1);
  });
});
