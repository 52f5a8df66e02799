/**
 * Many agent runs at once through one recording `fetch`, each wrapping its own tool with recordTool
 * (one wrapper per run, as agent code does): the real record()/replay() API, the real `openai`
 * client, aimock on 127.0.0.1 and a real store. Every tool call keeps its own id and outcome, and a
 * replay gives each run its own recorded result without running the tool.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolFunction, ToolPolicy } from '../src/library/recorded-tool.js';
import { record, replay } from '../src/library/record-replay.js';
import { startAimock, type AimockFixture } from './support/aimock.js';
import { storedEvents } from './support/stored-events.js';

const API_KEY = 'sk-test-tool-concurrency-0123456789';
const RUNS = 20;
const ITEMS = Array.from({ length: RUNS }, (_, i) => String(i).padStart(2, '0'));
const TOOLS: ChatCompletionTool[] = [{ type: 'function', function: { name: 'reserve', description: 'Reserve an item', parameters: { type: 'object' } } }];

/** Per item: the model asks to reserve it, then answers once the tool's result is in. */
const FIXTURES: AimockFixture[] = ITEMS.flatMap((item) => [
  { match: { userMessage: `Reserve item ${item}.`, hasToolResult: false }, response: { toolCalls: [{ name: 'reserve', arguments: JSON.stringify({ item }) }] } },
  { match: { userMessage: `Reserve item ${item}.`, hasToolResult: true }, response: { content: `Item ${item} is reserved.` } },
]);

type Wrap = <F extends ToolFunction>(name: string, fn: F, policy?: ToolPolicy) => F;
type Reserve = (input: { item: string }) => Promise<{ item: string; code: string }>;

/** One agent run: its own wrapper of the tool, one model call asking for it, one answering after it. */
async function reserveRun(client: OpenAI, wrap: Wrap, reserve: Reserve, item: string): Promise<{ result: unknown; answer: string | null }> {
  const tool = wrap('reserve', reserve, { mutating: true });
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: `Reserve item ${item}.` }];
  const first = (await client.chat.completions.create({ model: 'gpt-test', messages: [...messages], tools: TOOLS })).choices[0]?.message;
  const call = first?.tool_calls?.[0];
  if (first === undefined || call?.type !== 'function') throw new Error(`item ${item}: the model asked for no tool`);
  const result = await tool(JSON.parse(call.function.arguments) as { item: string });
  messages.push(first, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
  const second = await client.chat.completions.create({ model: 'gpt-test', messages: [...messages], tools: TOOLS });
  return { result, answer: second.choices[0]?.message.content ?? null };
}

/**
 * The live tool: a booking system that issues codes in the order it completes reservations. Every
 * call waits until all runs are inside the tool, then they complete in the reverse of their arrival,
 * so every tool_call is on the tape before any tool_result and the results come in another order.
 */
function bookingSystem(): { reserve: Reserve; calls: () => number } {
  const waiting: Array<() => void> = [];
  let issued = 0;
  let calls = 0;
  const reserve: Reserve = async ({ item }) => {
    calls++;
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      // Released from outside any one call, so the last to arrive is the first to complete.
      if (waiting.length === RUNS) queueMicrotask(() => waiting.reverse().forEach((release) => release()));
    });
    return { item, code: `R${String(++issued).padStart(3, '0')}` };
  };
  return { reserve, calls: () => calls };
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-tool-concurrency-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});


describe('recordTool under concurrent agent runs', () => {
  it('twenty runs through one recording, one wrapper each: every call has its own id, and a replay gives each run its own result without running the tool', async () => {
    const store = join(dir, 'twenty');
    const mock = await startAimock(FIXTURES);
    const live = bookingSystem();
    let runId: string;
    let recorded: Array<{ result: unknown; answer: string | null }>;
    try {
      const rec = await record({ tape: { store, run: 'reservations' } });
      runId = (rec.runId as string);
      const client = new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, fetch: rec.fetch, maxRetries: 0 });
      recorded = await Promise.all(ITEMS.map((item) => reserveRun(client, rec.recordTool, live.reserve, item)));
      await rec.finish();
    } finally {
      await mock.close();
    }
    expect(live.calls()).toBe(RUNS);
    // Each run got its own item back, and the codes are all different.
    expect(recorded.map((r) => (r.result as { item: string }).item)).toEqual(ITEMS);
    expect(new Set(recorded.map((r) => (r.result as { code: string }).code)).size).toBe(RUNS);
    expect(recorded.map((r) => r.answer)).toEqual(ITEMS.map((item) => `Item ${item} is reserved.`));

    // On the tape: twenty distinct call ids, and each result under the id of the call with its item.
    const events = await storedEvents(store, runId);
    const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e] : []));
    const results = events.flatMap((e) => (e.type === 'tool_result' ? [e] : []));
    expect(calls).toHaveLength(RUNS);
    expect(new Set(calls.map((c) => c.callId)).size).toBe(RUNS);
    for (const result of results) {
      const call = calls.find((c) => c.callId === result.callId);
      expect(JSON.parse(call?.arguments ?? 'null')).toEqual({ item: (JSON.parse(result.output) as { item: string }).item });
    }

    // Replay with the server gone, the runs again all at once, each with a wrapper of its own: each
    // gets exactly the result it was recorded with, and nothing is reserved again.
    const rep = await replay({ tape: { store, run: runId }, strict: true });
    const again = bookingSystem();
    const client = new OpenAI({ apiKey: API_KEY, baseURL: 'http://127.0.0.1:9/v1', fetch: rep.fetch, maxRetries: 0 });
    const replayed = await Promise.all(ITEMS.map((item) => reserveRun(client, rep.recordTool, again.reserve, item)));
    expect(replayed).toEqual(recorded);
    expect(again.calls()).toBe(0);
    expect(rep.replay?.divergences).toEqual([]);
    await rep.finish();
  });
});
