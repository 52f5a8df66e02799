/**
 * The replaying fetch under the conditions a real agent creates, with real servers on 127.0.0.1
 * (aimock, test/support/mock-llm.ts), real OpenAI clients and a real LevelDB store:
 *
 * - calls in flight together each get their own recorded answer, whatever order they arrive in;
 * - a request that differs from the recorded one is a divergence naming the parameter, and with
 *   `strict` an `agentctl_replay_mismatch` error naming the nearest recorded call and the field;
 * - a recorded reply is served whole (every choice, reasoning_content, logprobs, the server's
 *   request id), a stream event for event;
 * - a patch that makes the run longer than the tape continues live, recorded as the replay's own run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type {
  ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam, ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/core/events.js';
import type { RunMeta } from '../src/core/run-meta.js';
import { recordOpenAI } from '../src/library/record-openai.js';
import { replayOpenAI } from '../src/library/record-openai.js';
import { TapeStore } from '../src/tape/tape-store.js';
import { ToolNotReplayedError, type ToolFunction, type ToolPolicy } from '../src/library/recorded-tool.js';
import { record, replay } from '../src/library/record-replay.js';
import { startAimock, type AimockFixture } from './support/aimock.js';
import { startMockLlm } from './support/mock-llm.js';

const API_KEY = 'sk-test-replay-0123456789abcdef';

let dir: string;
let stores = 0;
/** A new store directory under the test's temporary directory. */
const newStore = (): string => join(dir, `store-${stores++}`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-transport-replay-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function storedEvents(store: string | TapeStore, runId: string): Promise<RunEvent[]> {
  const opened = typeof store === 'string' ? await TapeStore.open(store, { create: false }) : store;
  try {
    const out: RunEvent[] = [];
    for await (const event of opened.readEvents(runId)) out.push(event);
    return out;
  } finally {
    if (typeof store === 'string') await opened.close();
  }
}

/** A chat call's text and id, streamed or not. */
async function ask(client: OpenAI, question: string, stream: boolean): Promise<{ text: string; id: string }> {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
  if (!stream) {
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages });
    return { text: completion.choices[0]?.message.content ?? '', id: completion.id };
  }
  const chunks = await client.chat.completions.create({ model: 'gpt-test', messages, stream: true });
  let text = '';
  let id = '';
  for await (const chunk of chunks) {
    id = chunk.id;
    text += chunk.choices[0]?.delta.content ?? '';
  }
  return { text, id };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('concurrent calls', () => {
  const QUESTIONS = [0, 1, 2, 3, 4].map((i) => ({ question: `question number ${i}?`, answer: `The answer to question ${i} is ${i * 11}.`, stream: i % 2 === 1 }));
  const question = (i: number) => QUESTIONS[i] as (typeof QUESTIONS)[number];
  const FIXTURES: AimockFixture[] = QUESTIONS.map((q) => ({ match: { userMessage: q.question }, response: { content: q.answer } }));

  /** Record the five questions (all at once, or one after another) against aimock, which answers by content. */
  async function recordQuestions(store: string, concurrently: boolean): Promise<{ runId: string; live: { text: string; id: string }[] }> {
    const mock = await startAimock(FIXTURES);
    try {
      const real = new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, maxRetries: 0 });
      const rec = await recordOpenAI(real, { tape: { store } });
      const live: { text: string; id: string }[] = [];
      if (concurrently) live.push(...(await Promise.all(QUESTIONS.map((q) => ask(rec, q.question, q.stream)))));
      else for (const q of QUESTIONS) live.push(await ask(rec, q.question, q.stream));
      await rec.finish();
      expect(mock.requestCount()).toBe(5);
      return { runId: (rec.runId as string), live };
    } finally {
      await mock.close();
    }
  }

  it.each([
    ['recorded concurrently', true],
    ['recorded one after another', false],
  ] as const)('five different requests in flight at once each get their own answer, in any order (%s)', async (_label, concurrently) => {
    const store = newStore();
    const { runId, live } = await recordQuestions(store, concurrently);
    expect(live.map((r) => r.text)).toEqual(QUESTIONS.map((q) => q.answer));

    // replayOpenAI, the requests started in reverse order and staggered, so they arrive out of the recorded order.
    const client = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { tape: { store, run: runId }, strict: true });
    const order = [4, 2, 0, 3, 1];
    const answers = await Promise.all(order.map(async (i, n) => {
      await sleep(n * 3);
      return [i, await ask(client, question(i).question, question(i).stream)] as const;
    }));
    for (const [i, answer] of answers) expect(answer).toEqual(live[i]);
    expect(client.replay?.divergences).toEqual([]);
    expect(client.replay?.calls).toHaveLength(5);
    expect(client.replay?.calls.every((c) => c.source === 'tape' && c.matched === true)).toBe(true);
    expect(client.replay?.remaining).toBe(0);

    // replay().fetch under another client, all five at once in yet another order.
    const rep = await replay({ tape: { store, run: runId }, strict: true });
    const viaFetch = new OpenAI({ apiKey: API_KEY, baseURL: 'http://127.0.0.1:9/v1', fetch: rep.fetch, maxRetries: 0 });
    const shuffled = [3, 0, 4, 1, 2];
    const again = await Promise.all(shuffled.map((i) => ask(viaFetch, question(i).question, question(i).stream)));
    expect(again).toEqual(shuffled.map((i) => live[i]));
    expect(rep.replay?.divergences).toEqual([]);
  });

  it('equal requests get their answers in recorded order, concurrent or not', async () => {
    const llm = await startMockLlm([{ content: 'first answer' }, { content: 'second answer' }, { content: 'third answer' }]);
    const store = newStore();
    let runId: string;
    try {
      const rec = await recordOpenAI(new OpenAI({ apiKey: API_KEY, baseURL: llm.baseURL, maxRetries: 0 }), { tape: { store } });
      runId = (rec.runId as string);
      for (const expected of ['first answer', 'second answer', 'third answer']) expect((await ask(rec, 'same question', false)).text).toBe(expected);
      await rec.finish();
      llm.assertConsumed();
    } finally {
      await llm.close();
    }
    const sequential = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), { tape: { store, run: runId } });
    const inOrder: string[] = [];
    for (let i = 0; i < 3; i++) inOrder.push((await ask(sequential, 'same question', false)).text);
    expect(inOrder).toEqual(['first answer', 'second answer', 'third answer']);

    const concurrent = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), { tape: { store, run: runId } });
    const together = await Promise.all([0, 1, 2].map(() => ask(concurrent, 'same question', false)));
    expect(together.map((r) => r.text).sort()).toEqual(['first answer', 'second answer', 'third answer']);
    expect(concurrent.replay?.divergences).toEqual([]);
  });
});

describe('a request that differs from the recording', () => {
  const TOOLS: ChatCompletionTool[] = [
    { type: 'function', function: { name: 'pick', description: 'Pick a color', parameters: { type: 'object', properties: { color: { type: 'string' } } } } },
  ];
  const FIRST: ChatCompletionCreateParamsNonStreaming = {
    model: 'gpt-test',
    messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello.' }],
  };
  const BASE: ChatCompletionCreateParamsNonStreaming = {
    model: 'gpt-test',
    messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Pick a color.' }],
    tools: TOOLS,
    tool_choice: 'auto',
    top_p: 0.9,
    seed: 7,
    response_format: { type: 'text' },
    stop: ['END'],
    n: 1,
    parallel_tool_calls: true,
    reasoning_effort: 'low',
    temperature: 0.2,
    max_tokens: 100,
  };
  let store: string;
  let runId: string;
  let recordedHashes: string[];

  beforeAll(async () => {
    // Two calls: a greeting, then the call with every parameter set.
    const llm = await startMockLlm([{ content: 'Hello.' }, { content: 'Blue.' }]);
    store = newStore();
    try {
      const rec = await recordOpenAI(new OpenAI({ apiKey: API_KEY, baseURL: llm.baseURL, maxRetries: 0 }), { tape: { store } });
      runId = (rec.runId as string);
      await rec.chat.completions.create(FIRST);
      await rec.chat.completions.create(BASE);
      await rec.finish();
      llm.assertConsumed();
    } finally {
      await llm.close();
    }
    const events = await storedEvents(store, runId);
    recordedHashes = events.flatMap((e) => (e.type === 'llm_request' ? [e.hash] : []));
    expect(recordedHashes).toHaveLength(2);
  });

  /** Replay the two calls, the second one changed by `change`. */
  async function replayChanged(change: Partial<ChatCompletionCreateParamsNonStreaming>, strict: boolean) {
    const client = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { tape: { store, run: runId }, strict });
    expect((await client.chat.completions.create(FIRST)).choices[0]?.message.content).toBe('Hello.');
    const result = await client.chat.completions.create({ ...BASE, ...change }).catch((error: unknown) => error);
    return { client, result };
  }

  it('the unchanged request matches', async () => {
    const { client, result } = await replayChanged({}, true);
    expect((result as ChatCompletion).choices[0]?.message.content).toBe('Blue.');
    expect(client.replay?.divergences).toEqual([]);
  });

  // [what changes, the path the divergence names, recorded, replayed]
  const CHANGES: [string, Partial<ChatCompletionCreateParamsNonStreaming>, string, unknown, unknown][] = [
    ['top_p', { top_p: 0.5 }, 'params.top_p', 0.9, 0.5],
    ['seed', { seed: 8 }, 'params.seed', 7, 8],
    ['tool_choice', { tool_choice: 'none' }, 'params.tool_choice', 'auto', 'none'],
    ['response_format', { response_format: { type: 'json_object' } }, 'params.response_format.type', 'text', 'json_object'],
    ['stop', { stop: ['STOP'] }, 'params.stop[0]', 'END', 'STOP'],
    ['n', { n: 2 }, 'params.n', 1, 2],
    ['parallel_tool_calls', { parallel_tool_calls: false }, 'params.parallel_tool_calls', true, false],
    ['reasoning_effort', { reasoning_effort: 'high' }, 'params.reasoning_effort', 'low', 'high'],
    ['model', { model: 'gpt-other' }, 'model', 'gpt-test', 'gpt-other'],
    ['a message', { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Pick a shape.' }] }, 'messages[1].content', 'Pick a color.', 'Pick a shape.'],
    ['a tool', { tools: [{ type: 'function', function: { name: 'choose', parameters: { type: 'object' } } }] }, 'tools[0]', 'pick', 'choose'],
  ];

  it.each(CHANGES)('%s: a divergence at %s, the recorded answer still served by position', async (_label, change, path, recorded, replayed) => {
    const { client, result } = await replayChanged(change, false);
    expect((result as ChatCompletion).choices[0]?.message.content).toBe('Blue.');
    expect(client.replay?.divergences).toHaveLength(1);
    expect(client.replay?.divergences[0]).toMatchObject({ iteration: 1, recordedIteration: 1, path, recorded, replayed, expected: false });
    expect(client.replay?.divergences[0]?.recordedHash).toBe(recordedHashes[1]);
    expect(client.replay?.calls.map((c) => c.matched)).toEqual([true, false]);
  });

  it.each(CHANGES)('%s, strict: an agentctl_replay_mismatch 400 naming the nearest recorded call and %s', async (_label, change, path, recorded, replayed) => {
    const { client, result } = await replayChanged(change, true);
    expect(result).toBeInstanceOf(OpenAI.BadRequestError);
    const error = result as InstanceType<typeof OpenAI.BadRequestError>;
    expect(error.status).toBe(400);
    expect(error.code).toBe('agentctl_replay_mismatch');
    expect(error.error).toMatchObject({
      type: 'agentctl_replay_mismatch',
      nearest: { iteration: 1, hash: recordedHashes[1] },
      difference: { path, recorded, replayed },
    });
    expect(error.message).toContain(`differs from recorded call 1 at ${path}`);
    // Nothing was used up: the recorded request still gets its answer.
    expect((await client.chat.completions.create(BASE)).choices[0]?.message.content).toBe('Blue.');
    expect(client.replay?.calls.map((c) => c.matched)).toEqual([true, true]);
  });

  // temperature and max_tokens are kept in `params` (the tape has no other field for them), so the divergence names them.
  it.each([
    ['temperature', { temperature: 0.7 }, /^params\.temperature$/],
    ['max_tokens', { max_tokens: 50 }, /^params\.max_tokens$/],
  ] as const)('%s: the divergence names it', async (_label, change, path) => {
    const { client } = await replayChanged(change, false);
    expect(client.replay?.divergences).toHaveLength(1);
    expect(client.replay?.divergences[0]?.path).toMatch(path);
  });

  it.each([
    ['temperature', { temperature: 0.7 }],
    ['max_tokens', { max_tokens: 50 }],
  ] as const)('%s: a change is still detected (by the hash), and refused when strict', async (_label, change) => {
    const loose = await replayChanged(change, false);
    expect(loose.client.replay?.divergences).toHaveLength(1);
    const strict = await replayChanged(change, true);
    expect((strict.result as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('agentctl_replay_mismatch');
  });
});

describe('the recorded reply, served whole', () => {
  const logprob = (token: string, value: number) => {
    const bytes = [...Buffer.from(token)];
    return { token, logprob: value, bytes, top_logprobs: [{ token, logprob: value, bytes }] };
  };
  const RICH = {
    id: 'chatcmpl-rich-1',
    object: 'chat.completion',
    created: 1_700_000_123,
    model: 'gpt-test-2025-01-01',
    system_fingerprint: 'fp_rich',
    service_tier: 'default',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'Blue.', refusal: null, reasoning_content: 'A calm color fits.' },
        finish_reason: 'stop',
        logprobs: { content: [logprob('Blue', -0.01), logprob('.', -0.2)], refusal: null },
      },
      {
        index: 1,
        message: { role: 'assistant', content: 'Green.', refusal: null, reasoning_content: 'Green is fine too.' },
        finish_reason: 'stop',
        logprobs: { content: [logprob('Green', -1.5), logprob('.', -0.3)], refusal: null },
      },
    ],
    usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21, completion_tokens_details: { reasoning_tokens: 5 } },
  };
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id: 'chatcmpl-rich-2', object: 'chat.completion.chunk', created: 1_700_000_124, model: 'gpt-test-2025-01-01', system_fingerprint: 'fp_rich', choices, ...extra,
  });
  const RICH_EVENTS = [
    chunk([{ index: 0, delta: { role: 'assistant', content: '', reasoning_content: 'A calm ' }, finish_reason: null, logprobs: null }]),
    chunk([{ index: 1, delta: { role: 'assistant', content: '', reasoning_content: 'Green ' }, finish_reason: null, logprobs: null }]),
    chunk([{ index: 0, delta: { reasoning_content: 'color.' }, finish_reason: null, logprobs: null }]),
    chunk([{ index: 0, delta: { content: 'Blue.' }, finish_reason: null, logprobs: { content: [logprob('Blue.', -0.01)], refusal: null } }]),
    chunk([{ index: 1, delta: { content: 'Green.' }, finish_reason: null, logprobs: { content: [logprob('Green.', -1.5)], refusal: null } }]),
    chunk([{ index: 0, delta: {}, finish_reason: 'stop', logprobs: null }]),
    chunk([{ index: 1, delta: {}, finish_reason: 'stop', logprobs: null }]),
    chunk([], { usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } }),
  ];
  const REQUEST: ChatCompletionCreateParamsNonStreaming = {
    model: 'gpt-test', messages: [{ role: 'user', content: 'Pick a color.' }], n: 2, logprobs: true, top_logprobs: 1,
  };

  it('every choice, reasoning_content and logprobs, plain and streamed, with the server gone', async () => {
    const llm = await startMockLlm([{ body: RICH }, { events: RICH_EVENTS }]);
    const store = newStore();
    let runId: string;
    let recorded: ChatCompletion;
    let recordedChunks: ChatCompletionChunk[] = [];
    try {
      const rec = await recordOpenAI(new OpenAI({ apiKey: API_KEY, baseURL: llm.baseURL, maxRetries: 0 }), { tape: { store } });
      runId = (rec.runId as string);
      recorded = await rec.chat.completions.create(REQUEST);
      const stream = await rec.chat.completions.create({ ...REQUEST, stream: true, stream_options: { include_usage: true } });
      for await (const c of stream) recordedChunks.push(c);
      await rec.finish();
      llm.assertConsumed();
    } finally {
      await llm.close();
    }
    expect(recorded).toEqual(RICH);
    expect(recordedChunks).toEqual(RICH_EVENTS);

    const client = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), { tape: { store, run: runId }, strict: true });
    const replayed = await client.chat.completions.create(REQUEST);
    expect(replayed).toEqual(recorded);
    const chunks: ChatCompletionChunk[] = [];
    for await (const c of await client.chat.completions.create({ ...REQUEST, stream: true, stream_options: { include_usage: true } })) chunks.push(c);
    expect(chunks).toEqual(recordedChunks);
    expect(client.replay?.divergences).toEqual([]);
    recordedChunks = [];
  });

  it('the server\'s request id and the headers clients read are served back; others are not', async () => {
    const mock = await startAimock([{ match: { userMessage: 'headers' }, response: { content: 'With headers.' } }]);
    const store = newStore();
    let runId: string;
    const live: { id: string | null; type: string | null; cors: string | null; data: unknown }[] = [];
    try {
      const rec = await recordOpenAI(new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, maxRetries: 0 }), { tape: { store } });
      runId = (rec.runId as string);
      const plain = await rec.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'headers please' }] }).withResponse();
      live.push({ id: plain.request_id, type: plain.response.headers.get('content-type'), cors: plain.response.headers.get('access-control-allow-origin'), data: plain.data });
      const streamed = await rec.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'headers streamed' }], stream: true }).withResponse();
      for await (const c of streamed.data) void c;
      live.push({ id: streamed.request_id, type: streamed.response.headers.get('content-type'), cors: streamed.response.headers.get('access-control-allow-origin'), data: null });
      await rec.finish();
    } finally {
      await mock.close();
    }
    expect(live.map((l) => l.id)).toEqual([expect.stringMatching(/\S/), expect.stringMatching(/\S/)]);
    expect(live[0]?.id).not.toBe(live[1]?.id);
    expect(live.map((l) => l.cors)).toEqual(['*', '*']);

    const client = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), { tape: { store, run: runId }, strict: true });
    const plain = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'headers please' }] }).withResponse();
    expect(plain.request_id).toBe(live[0]?.id);
    expect(plain.data).toEqual(live[0]?.data);
    expect(plain.response.headers.get('content-type')).toBe(live[0]?.type);
    expect(plain.response.headers.get('access-control-allow-origin')).toBeNull();
    const streamed = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'headers streamed' }], stream: true }).withResponse();
    let text = '';
    for await (const c of streamed.data) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe('With headers.');
    expect(streamed.request_id).toBe(live[1]?.id);
    expect(streamed.response.headers.get('content-type')).toBe(live[1]?.type);
  });
});

describe('a patch that makes the run longer, continued live', () => {
  const TOOLS: ChatCompletionTool[] = [
    { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
  ];
  const STEPS = [
    { tool_calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
    { content: 'a.txt says hello.' },
  ];
  const LIVE_ANSWER = 'x says 42 (live).';

  type Wrap = <F extends ToolFunction>(name: string, fn: F, policy?: ToolPolicy) => F;

  /** A small agent on the SDK: call, run the tool calls, repeat until an answer. */
  async function runAgent(client: OpenAI, wrap: Wrap, reads: string[]): Promise<(string | null)[]> {
    const readFile = wrap('read_file', async (args: { path: string }) => {
      reads.push(args.path);
      return `contents of ${args.path}`;
    }, { idempotent: true, mutating: false });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'What do the files say?' }];
    const said: (string | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const message = (await client.chat.completions.create({ model: 'gpt-test', messages: [...messages], tools: TOOLS })).choices[0]?.message;
      if (message === undefined) throw new Error('no choice');
      said.push(message.content);
      messages.push(message);
      const calls = (message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [c] : []));
      if (calls.length === 0) return said;
      for (const call of calls) {
        const output = await readFile(JSON.parse(call.function.arguments) as { path: string });
        messages.push({ role: 'tool', tool_call_id: call.id, content: output });
      }
    }
    throw new Error('too many turns');
  }

  it.each([
    ['a store directory', 'dir'],
    ['an open TapeStore shared by the recording and the replay', 'instance'],
  ] as const)('the live call is on the replay\'s own run, in the same process, no lock error (%s)', async (_label, how) => {
    // The server stays up: it answers the two recorded calls, then (on replay) the live one.
    const llm = await startMockLlm([...STEPS, { content: LIVE_ANSWER }]);
    const storeDir = newStore();
    const shared = how === 'instance' ? await TapeStore.open(storeDir) : undefined;
    const store = shared ?? storeDir;
    try {
      const reads: string[] = [];
      const rec = await record({ tape: { store, run: 'short' } });
      const recorded = await runAgent(new OpenAI({ apiKey: API_KEY, baseURL: llm.baseURL, fetch: rec.fetch, maxRetries: 0 }), rec.recordTool, reads);
      const meta = await rec.finish();
      expect(recorded).toEqual([null, 'a.txt says hello.']);
      expect(reads).toEqual(['a.txt']);
      expect(meta?.totals?.llmCalls).toBe(2);
      expect(llm.requests).toHaveLength(2);

      const rep = await replay({
        tape: { store, run: rec.runId },
        patches: { 1: { tool_calls: [{ name: 'read_file', arguments: { path: 'x' } }] } },
        mode: 'new-episodes',
      });
      const replayReads: string[] = [];
      const client = new OpenAI({ apiKey: API_KEY, baseURL: 'http://127.0.0.1:9/v1', fetch: rep.fetch, maxRetries: 0 });
      const said = await runAgent(client, rep.recordTool, replayReads);
      expect(said).toEqual([null, null, LIVE_ANSWER]);
      // a.txt came from the tape; x (read-only) ran, as the tape has no outcome for it.
      expect(replayReads).toEqual(['x']);
      expect(rep.replay?.calls.map((c) => c.source)).toEqual(['tape', 'patch', 'live']);
      expect(rep.replay?.liveCalls).toBe(1);
      expect(rep.replay?.exhaustedAt).toBe(2);
      expect(llm.requests).toHaveLength(3);
      llm.assertConsumed();
      // The live request went to the recorded endpoint, with this client's own key.
      expect(llm.requests[2]?.headers.authorization).toBe(`Bearer ${API_KEY}`);

      const saved = await rep.finish();
      expect(saved).toMatchObject({ id: rep.runId, kind: 'replay', source: 'library', parentId: rec.runId, status: 'complete' });
      expect(await rep.finish()).toEqual(saved);
      const events = await storedEvents(store, rep.runId ?? '');
      const responses = events.flatMap((e) => (e.type === 'llm_response' ? [e] : []));
      const answers = responses.map(({ iteration, response: { message } }) => [
        iteration,
        message.content,
        message.tool_calls?.map((c) => c.function.arguments),
      ]);
      expect(answers).toEqual([
        [0, null, ['{"path":"a.txt"}']],
        [1, null, ['{"path":"x"}']],
        [2, LIVE_ANSWER, undefined],
      ]);
      expect(events.flatMap((e) => (e.type === 'tool_call' ? [e.arguments] : []))).toEqual(['{"path":"a.txt"}', '{"path":"x"}']);
      // The recording is untouched, and both runs are listed.
      expect((await storedEvents(store, (rec.runId as string))).filter((e) => e.type === 'llm_response')).toHaveLength(2);
      const listed = shared === undefined ? await withStore(storeDir, allRuns) : await allRuns(shared);
      expect(listed.map((r) => r.id).sort()).toEqual([rec.runId, rep.runId].sort());
    } finally {
      await shared?.close();
      await llm.close();
    }
  });

  it('a patched call to a mutating tool the tape has no outcome for is refused, not run', async () => {
    const llm = await startMockLlm(STEPS);
    const store = newStore();
    let runId: string;
    try {
      const rec = await record({ tape: { store } });
      runId = (rec.runId as string);
      await runAgent(new OpenAI({ apiKey: API_KEY, baseURL: llm.baseURL, fetch: rec.fetch, maxRetries: 0 }), rec.recordTool, []);
      await rec.finish();
    } finally {
      await llm.close();
    }
    const rep = await replay({ tape: { store, run: runId } });
    let sent = 0;
    const send = rep.recordTool('send_email', async (to: string) => ++sent && `sent to ${to}`, { mutating: true });
    await expect(send('bob@example.com')).rejects.toBeInstanceOf(ToolNotReplayedError);
    await expect(send('bob@example.com')).rejects.toMatchObject({ code: 'AGENTCTL_TOOL_NOT_REPLAYED', exitCode: 8 });
    expect(sent).toBe(0);
  });
});

async function allRuns(store: TapeStore): Promise<RunMeta[]> {
  const out: RunMeta[] = [];
  for await (const meta of store.listRuns()) out.push(meta);
  return out;
}

async function withStore<T>(dirPath: string, fn: (store: TapeStore) => Promise<T>): Promise<T> {
  const store = await TapeStore.open(dirPath, { create: false });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
