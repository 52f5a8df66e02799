/**
 * The library API for agents written directly on the `openai` SDK: recordOpenAI and replayOpenAI,
 * with the real SDK client against the real scripted HTTP server, and a real LevelDB store.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { RunnableToolFunctionWithParse } from 'openai/lib/RunnableFunction';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDelta, requestHash } from '../src/agent/request-delta.js';
import { ManualClock } from '../src/core/clock.js';
import type { RunEvent } from '../src/core/events.js';
import type { ChatMessage, ToolDefinition } from '../src/core/messages.js';
import type { RunMeta } from '../src/core/run-meta.js';
import { recordOpenAI } from '../src/library/record-openai.js';
import { replayOpenAI } from '../src/library/record-openai.js';
import type { TapeOptions } from '../src/library/tape-options.js';
import { runEventSchema } from '../src/tape/schema.js';
import { record as recordRun, replay as replayRun } from '../src/library/record-replay.js';
import { writeTapeFile } from '../src/tape/tape-file.js';
import { TapeStore } from '../src/tape/tape-store.js';
import { startMockLlm } from './support/mock-llm.js';
import type { ScenarioStep } from './support/scenario.js';
import { filesUnder } from './support/files.js';

// ---------------------------------------------------------------------------------------------
// A small agent written directly on the SDK: call, answer tool calls with fake results, repeat.
// It only knows `chat.completions.create`, so a real OpenAI client runs it as well as ours.

interface Turn {
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string | null;
}

const TOOLS: ChatCompletionTool[] = [
  { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } } },
  { type: 'function', function: { name: 'list_dir', description: 'List a directory', parameters: { type: 'object' } } },
];

/** TOOLS in our own shape, as the tape hashes them. */
const OUR_TOOLS: ToolDefinition[] = [
  { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } } },
  { type: 'function', function: { name: 'list_dir', description: 'List a directory', parameters: { type: 'object' } } },
];

interface AgentOptions {
  stream: boolean;
  /** A secret that leaks into the conversation (a key pasted in the task, echoed by a tool). */
  secret?: string;
  /** Retries of a failed call (a cut stream). */
  retries?: number;
  /** Called after each create() has fully delivered its answer. */
  afterCall?: (iteration: number) => Promise<void>;
}

async function runAgent(client: OpenAI, options: AgentOptions): Promise<Turn[]> {
  const secret = options.secret ?? 'none';
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a careful agent.' },
    { role: 'user', content: `Find the answer. (my key is ${secret}, do not print it)` },
  ];
  const turns: Turn[] = [];
  for (let iteration = 0; iteration < 10; iteration++) {
    let turn: Turn | undefined;
    for (let attempt = 0; turn === undefined; attempt++) {
      try {
        turn = await callOnce(client, messages, options.stream);
      } catch (error) {
        if (attempt >= (options.retries ?? 0)) throw error;
      }
    }
    await options.afterCall?.(iteration);
    turns.push(turn);
    const calls = turn.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
    messages.push(calls.length > 0 ? { role: 'assistant', content: turn.content, tool_calls: calls } : { role: 'assistant', content: turn.content });
    if (calls.length === 0) break;
    for (const call of calls) {
      const output = call.function.name === 'list_dir' ? `a.txt b.txt .env (OPENAI_API_KEY=${secret})` : `contents of ${call.function.arguments}`;
      messages.push({ role: 'tool', tool_call_id: call.id, content: output });
    }
  }
  return turns;
}

async function callOnce(client: OpenAI, messages: ChatCompletionMessageParam[], stream: boolean): Promise<Turn> {
  if (!stream) {
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: [...messages], tools: TOOLS });
    const choice = completion.choices[0];
    if (choice === undefined) throw new Error('no choice');
    return {
      content: choice.message.content,
      toolCalls: (choice.message.tool_calls ?? []).map((c) =>
        c.type === 'function' ? { id: c.id, name: c.function.name, arguments: c.function.arguments } : { id: c.id, name: '', arguments: '' },
      ),
      finishReason: choice.finish_reason,
    };
  }
  const chunks = await client.chat.completions.create({
    model: 'gpt-test',
    messages: [...messages],
    tools: TOOLS,
    stream: true,
    stream_options: { include_usage: true },
  });
  const turn: Turn = { content: null, toolCalls: [], finishReason: null };
  for await (const chunk of chunks) {
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    if (typeof choice.delta.content === 'string' && choice.delta.content !== '') turn.content = (turn.content ?? '') + choice.delta.content;
    for (const fragment of choice.delta.tool_calls ?? []) {
      const call = (turn.toolCalls[fragment.index] ??= { id: '', name: '', arguments: '' });
      if (fragment.id !== undefined) call.id = fragment.id;
      call.name += fragment.function?.name ?? '';
      call.arguments += fragment.function?.arguments ?? '';
    }
    if (choice.finish_reason !== null) turn.finishReason = choice.finish_reason;
  }
  return turn;
}

// ---------------------------------------------------------------------------------------------

const STEPS: ScenarioStep[] = [
  { content: 'Let me look at the files.', tool_calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }, { name: 'list_dir', arguments: { path: '.' } }] },
  { tool_calls: [{ name: 'read_file', arguments: { path: 'b.txt' } }] },
  { content: 'All done: the answer is 42.' },
];

const MARKER = `sk-marker-${randomBytes(12).toString('hex')}`;

let dir: string;
let storeDir: string;
/** Recorded runs by mode, and what the agent saw live. */
const recorded: Record<'plain' | 'stream', { meta: RunMeta; turns: Turn[]; sent: string[] }> = {} as never;

async function record(stream: boolean, name: string): Promise<{ meta: RunMeta; turns: Turn[]; sent: string[] }> {
  const llm = await startMockLlm(STEPS);
  try {
    const real = new OpenAI({ baseURL: llm.baseURL, apiKey: MARKER, maxRetries: 0 });
    const recording = await recordOpenAI(real, { tape: { store: storeDir, run: name }, task: 'find the answer' });
    const turns = await runAgent(recording, { stream, secret: MARKER });
    const meta = (await recording.finish()) as RunMeta;
    expect(meta.id).toBe(recording.runId);
    llm.assertConsumed();
    return { meta, turns, sent: llm.requests.map((r) => JSON.stringify(r)) };
  } finally {
    await llm.close();
  }
}

async function storedEvents(runId: string): Promise<RunEvent[]> {
  const store = await TapeStore.open(storeDir, { create: false });
  try {
    const out: RunEvent[] = [];
    for await (const event of store.readEvents(runId)) out.push(event);
    return out;
  } finally {
    await store.close();
  }
}

async function exportRun(runId: string, file: string): Promise<string> {
  const store = await TapeStore.open(storeDir, { create: false });
  try {
    const path = join(dir, file);
    await writeTapeFile(path, await store.getRun(runId), store.readEvents(runId));
    return path;
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-library-'));
  storeDir = join(dir, 'store');
  recorded.plain = await record(false, 'plain');
  recorded.stream = await record(true, 'streamed');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('recordOpenAI', () => {
  it.each(['plain', 'stream'] as const)('records a %s agent run as valid events, requests as deltas', async (mode) => {
    const { meta, turns } = recorded[mode];
    expect(turns.map((t) => t.finishReason)).toEqual(['tool_calls', 'tool_calls', 'stop']);
    expect(turns[2]?.content).toBe('All done: the answer is 42.');
    expect(turns[0]?.toolCalls.map((c) => c.name)).toEqual(['read_file', 'list_dir']);
    expect(meta).toMatchObject({
      kind: 'record',
      status: 'complete',
      finalState: 'COMPLETED',
      task: 'find the answer',
      model: 'gpt-test',
      seed: 0,
      config: {},
      totals: { steps: 3, llmCalls: 3, toolCalls: 3, cost: 0 },
    });
    expect(meta.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const events = await storedEvents(meta.id);
    for (const event of events) expect(runEventSchema.safeParse(event).error).toBeUndefined();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events[0]).toMatchObject({ type: 'run_start', task: 'find the answer', model: 'gpt-test', seed: 0, config: {} });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', state: 'COMPLETED', totals: meta.totals });
    expect(meta.eventCount).toBe(events.length);

    const requests = events.filter((e) => e.type === 'llm_request');
    const responses = events.filter((e) => e.type === 'llm_response');
    expect(requests.map((r) => [r.iteration, r.prefix, r.append.length, r.stream, r.tools])).toEqual([
      [0, 0, 2, mode === 'stream', ['read_file', 'list_dir']],
      [1, 2, 3, mode === 'stream', ['read_file', 'list_dir']], // + assistant, 2 tool results
      [2, 5, 2, mode === 'stream', ['read_file', 'list_dir']], // + assistant, 1 tool result
    ]);
    expect(responses.map((r) => [r.iteration, r.attempt, r.response.finishReason])).toEqual([
      [0, 0, 'tool_calls'],
      [1, 0, 'tool_calls'],
      [2, 0, 'stop'],
    ]);
    // Each response comes after its request; the deltas rebuild requests whose hashes are stored.
    let messages: ChatMessage[] = [];
    for (const request of requests) {
      messages = applyDelta(messages, request);
      expect(requestHash({ model: 'gpt-test', messages, tools: OUR_TOOLS, stream: mode === 'stream' })).toBe(request.hash);
    }
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool']);

    const chunks = events.filter((e) => e.type === 'llm_chunk');
    if (mode === 'plain') {
      expect(chunks).toEqual([]);
    } else {
      // Exactly one finished chunk per stream, the last chunk of its call, before the response.
      for (const iteration of [0, 1, 2]) {
        const mine = chunks.filter((c) => c.iteration === iteration);
        expect(mine.filter((c) => c.chunk.finished)).toHaveLength(1);
        expect(mine.at(-1)?.chunk.finished).toBe(true);
        expect(mine.map((c) => c.chunk.index)).toEqual(mine.map((_, i) => i));
        const response = responses[iteration] as RunEvent;
        expect(mine.every((c) => c.seq < response.seq)).toBe(true);
      }
      expect(chunks.filter((c) => c.iteration === 2).map((c) => c.chunk.content ?? '').join('')).toBe('All done: the answer is 42.');
    }
  });

  it('hands back the SDK\'s own objects, only after the response is durably in the store', async () => {
    const llm = await startMockLlm([...STEPS, ...STEPS]);
    const store = await TapeStore.open(join(dir, 'durable-store'));
    try {
      const clock = new ManualClock(1000);
      const real = new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-other-key-0123456789', maxRetries: 0 });
      const recording = await recordOpenAI(real, { tape: { store }, clock });
      const seen: string[] = [];
      const stored = async (iteration: number): Promise<void> => {
        clock.advance(5);
        const types: string[] = [];
        for await (const event of store.readEvents((recording.runId as string))) {
          if ('iteration' in event && event.iteration === iteration) types.push(event.type);
        }
        seen.push(`${iteration}:${types.includes('llm_response')}`);
      };
      await runAgent(recording, { stream: false, afterCall: stored });
      await runAgent(recording, { stream: true, afterCall: (i) => stored(i + 3) });
      expect(seen).toEqual(['0:true', '1:true', '2:true', '3:true', '4:true', '5:true']);

      // The SDK's objects themselves: the server's ids, and the usage-only trailer of a stream.
      const direct = await recording.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
        .catch((error: unknown) => error);
      expect(String(direct)).toMatch(/400/); // the scenario ran out: the server's error reaches the caller unchanged
      const meta = await recording.finish({ state: 'ERROR', reason: 'stopped by the test' });
      expect(meta?.finalState).toBe('ERROR');
      expect(await recording.finish()).toEqual(meta);
      await expect(recording.chat.completions.create({ model: 'gpt-test', messages: [] })).rejects.toThrow(/finished/);

      const events: RunEvent[] = [];
      for await (const event of store.readEvents((recording.runId as string))) events.push(event);
      const error = events.find((e) => e.type === 'llm_error');
      expect(error).toMatchObject({ iteration: 6, attempt: 0, kind: 'fatal', status: 400 });
      expect(events.at(-1)).toMatchObject({ type: 'run_end', state: 'ERROR', reason: 'stopped by the test' });
      // Times come from the injected clock.
      expect(events.filter((e) => e.type === 'llm_response').map((e) => e.t)).toEqual([0, 5, 10, 15, 20, 25]);
    } finally {
      await store.close();
      await llm.close();
    }
  });

  it('passes the server\'s completion and chunk objects through', async () => {
    const llm = await startMockLlm([STEPS[2] as ScenarioStep, STEPS[2] as ScenarioStep]);
    const store = await TapeStore.open(join(dir, 'passthrough-store'));
    try {
      const real = new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-other-key-0123456789', maxRetries: 0 });
      const recording = await recordOpenAI(real, { tape: { store } });
      const completion = await recording.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
      expect(completion).toMatchObject({ id: 'chatcmpl-mock-0', object: 'chat.completion', created: 1_700_000_000 });
      const stream = await recording.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const ids: string[] = [];
      let usageChunks = 0;
      for await (const chunk of stream) {
        ids.push(chunk.id);
        if (chunk.choices.length === 0 && chunk.usage) usageChunks++;
      }
      expect(new Set(ids)).toEqual(new Set(['chatcmpl-mock-1']));
      expect(usageChunks).toBe(1);
      await recording.finish();
    } finally {
      await store.close();
      await llm.close();
    }
  });

  it('records a stream cut mid-way: one finished chunk with the error, an llm_error, then the retry', async () => {
    const cut: ScenarioStep = { content: 'This answer will be cut short', disconnectAfter: 3 };
    const llm = await startMockLlm([cut, STEPS[2] as ScenarioStep]);
    const recordingStore = join(dir, 'cut-store');
    let runId = '';
    let live: Turn[] = [];
    try {
      const real = new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-other-key-0123456789', maxRetries: 0 });
      const recording = await recordOpenAI(real, { tape: { store: recordingStore } });
      runId = (recording.runId as string);
      live = await runAgent(recording, { stream: true, retries: 1 });
      await recording.finish();
    } finally {
      await llm.close();
    }
    expect(live).toEqual([{ content: 'All done: the answer is 42.', toolCalls: [], finishReason: 'stop' }]);
    const store = await TapeStore.open(recordingStore, { create: false });
    const events: RunEvent[] = [];
    try {
      for await (const event of store.readEvents(runId)) events.push(event);
    } finally {
      await store.close();
    }
    for (const event of events) expect(runEventSchema.safeParse(event).error).toBeUndefined();
    const finished = events.flatMap((e) => (e.type === 'llm_chunk' && e.chunk.finished ? [e] : []));
    expect(finished.map((e) => [e.iteration, e.attempt, e.chunk.error !== undefined])).toEqual([
      [0, 0, true],
      [0, 1, false],
    ]);
    expect(events.filter((e) => e.type === 'llm_error')).toMatchObject([{ iteration: 0, attempt: 0, kind: 'recoverable' }]);
    expect(events.filter((e) => e.type === 'llm_response')).toMatchObject([{ iteration: 0, attempt: 1 }]);

    // The replay serves the answer that was acted on; the cut attempt is not replayed.
    // The replay fails the same way (the same events, then the break) and the retry gets the answer.
    const replayed = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { tape: { store: recordingStore, run: runId } });
    const failure = await runAgent(replayed, { stream: true }).catch((error: unknown) => error);
    expect(String(failure)).toMatch(/terminated/);
    const again = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { tape: { store: recordingStore, run: runId } });
    expect(await runAgent(again, { stream: true, retries: 1 })).toEqual(live);
    expect(again.replay?.divergences).toEqual([]);
  });

  it('records a stream the caller stops reading as what had arrived, still with one finished chunk', async () => {
    // The server sends three events, then nothing more: what the client has is all it will get.
    const llm = await startMockLlm([{ content: 'one two three four', stallAfter: 3 }]);
    const store = await TapeStore.open(join(dir, 'abandon-store'));
    try {
      const real = new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-other-key-0123456789', maxRetries: 0 });
      const recording = await recordOpenAI(real, { tape: { store } });
      const stream = await recording.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'count' }], stream: true });
      let text = '';
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (text === 'one two ') break;
      }
      await recording.finish();
      const events: RunEvent[] = [];
      for await (const event of store.readEvents((recording.runId as string))) events.push(event);
      for (const event of events) expect(runEventSchema.safeParse(event).error).toBeUndefined();
      const chunks = events.flatMap((e) => (e.type === 'llm_chunk' ? [e.chunk] : []));
      expect(chunks.filter((c) => c.finished)).toMatchObject([{ error: 'the client stopped reading the stream' }]);
      expect(chunks.at(-1)?.finished).toBe(true);
      expect(events.filter((e) => e.type === 'warning')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'llm_response')).toMatchObject([{ response: { message: { content: 'one two ' } } }]);
    } finally {
      await store.close();
      await llm.close();
    }
  });
});

describe('replayOpenAI', () => {
  it.each(['plain', 'stream'] as const)('replays a %s run from the store with the server gone: same answers, same hashes', async (mode) => {
    const { meta, turns } = recorded[mode];
    const client = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), { tape: { store: storeDir, run: meta.id } });
    expect(await runAgent(client, { stream: mode === 'stream', secret: MARKER })).toEqual(turns);
    expect(client.replay?.divergences).toEqual([]);
    expect(client.replay?.calls).toEqual([0, 1, 2].map((iteration) => ({ iteration, source: 'tape', matched: true, resynced: false })));
    expect(client.replay?.liveCalls).toBe(0);
    expect(client.replay?.remaining).toBe(0);
    expect(client.replay?.run.id).toBe(meta.id);
  });

  it.each(['plain', 'stream'] as const)('replays a %s run from exported tape files (plain and gzip), by run name too', async (mode) => {
    const { meta, turns } = recorded[mode];
    for (const file of [`${mode}.tape.jsonl`, `${mode}.tape.jsonl.gz`]) {
      const client = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), { tape: await exportRun(meta.id, file) });
      expect(await runAgent(client, { stream: mode === 'stream', secret: MARKER })).toEqual(turns);
      expect(client.replay?.divergences).toEqual([]);
    }
    const byName = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), { tape: { store: storeDir, run: meta.name ?? '' } });
    expect(byName.replay?.run.id).toBe(meta.id);
  });

  it('rebuilds the stream a recording without streaming never had; the changed stream flag is reported', async () => {
    const client = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), { tape: { store: storeDir, run: recorded.plain.meta.id }, strict: false });
    expect(await runAgent(client, { stream: true, secret: MARKER })).toEqual(recorded.plain.turns);
    expect(client.replay?.divergences.map((d) => [d.iteration, d.path, d.recorded, d.replayed, d.expected])).toEqual([
      [0, 'stream', false, true, false],
      [1, 'stream', false, true, false],
      [2, 'stream', false, true, false],
    ]);
  });

  it('serves a text patch in place of a response; the tape entry is consumed', async () => {
    const client = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), { tape: { store: storeDir, run: recorded.stream.meta.id }, patches: { 0: 'Nothing to do.' } });
    const turns = await runAgent(client, { stream: true, secret: MARKER });
    expect(turns).toEqual([{ content: 'Nothing to do.', toolCalls: [], finishReason: 'stop' }]);
    expect(client.replay?.calls).toEqual([{ iteration: 0, source: 'patch', matched: true, resynced: false }]);
    expect(client.replay?.remaining).toBe(2);
  });

  it('reports the divergence a patch causes in the next request, as expected', async () => {
    const original = recorded.plain.turns[0] as Turn;
    const patch = {
      content: 'Patched: let me look.',
      tool_calls: original.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
    };
    const client = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), { tape: { store: storeDir, run: recorded.plain.meta.id }, patches: { 0: patch } });
    const turns = await runAgent(client, { stream: false, secret: MARKER });
    expect(turns[0]).toEqual({ ...original, content: 'Patched: let me look.' });
    expect(turns.slice(1)).toEqual(recorded.plain.turns.slice(1));
    const first = client.replay?.divergences[0];
    expect(first).toMatchObject({
      iteration: 1,
      messageIndex: 2,
      path: 'messages[2].content',
      recorded: 'Let me look at the files.',
      replayed: 'Patched: let me look.',
      expected: true,
    });
    expect(first?.recordedHash).not.toBe(first?.replayedHash);
    expect(client.replay?.divergences.map((d) => d.iteration)).toEqual([1, 2]);
    expect(client.replay?.calls.map((c) => [c.source, c.matched])).toEqual([
      ['patch', true],
      ['tape', false],
      ['tape', false],
    ]);
  });

  describe('when a patch makes the agent need one more call than the tape has', () => {
    const oneMoreCall = {
      content: null,
      tool_calls: [{ id: 'call_patch', type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"c.txt"}' } }],
    };
    const options = (mode: 'plain' | 'stream'): TapeOptions => ({
      tape: { store: storeDir, run: recorded[mode].meta.id },
      patches: { 2: oneMoreCall },
    });

    it.each(['plain', 'stream'] as const)('replay (%s): "tape exhausted at iteration 3"', async (mode) => {
      const client = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), options(mode));
      const failure = await runAgent(client, { stream: mode === 'stream', secret: MARKER }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
      expect((failure as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('agentctl_tape_exhausted');
      expect((failure as Error).message).toBe('400 agentctl replay: tape exhausted at iteration 3');
      expect(client.replay?.exhaustedAt).toBe(3);
      expect(client.replay?.liveCalls).toBe(0);
    });

    it.each(['plain', 'stream'] as const)('new-episodes (%s): continues live for one call', async (mode) => {
      const llm = await startMockLlm([{ content: 'Live: c.txt says 43.' }]);
      try {
        const upstream = { url: llm.baseURL, apiKey: 'sk-live-key-0123456789' };
        const client = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { ...options(mode), mode: 'new-episodes', upstream });
        const turns = await runAgent(client, { stream: mode === 'stream', secret: MARKER });
        expect(turns.map((t) => t.content)).toEqual(['Let me look at the files.', null, null, 'Live: c.txt says 43.']);
        expect(client.replay?.liveCalls).toBe(1);
        expect(client.replay?.calls.map((c) => c.source)).toEqual(['tape', 'tape', 'patch', 'live']);
        expect(client.replay?.divergences).toEqual([]);
        llm.assertConsumed();
        // The replay is a run of its own in the tape's store, linked to it, with the live call on it.
        const saved = await client.finish();
        expect(saved).toMatchObject({ kind: 'replay', source: 'library', parentId: recorded[mode].meta.id, status: 'complete' });
        const events = await storedEvents(saved?.id ?? '');
        expect(events.filter((e) => e.type === 'llm_response').map((e) => e.type === 'llm_response' && e.response.message.content))
          .toEqual(['Let me look at the files.', null, null, 'Live: c.txt says 43.']);
      } finally {
        await llm.close();
      }
    });
  });

  it('refuses a patch key that is not an iteration number', async () => {
    await expect(replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), { tape: { store: storeDir, run: recorded.plain.meta.id }, patches: { [-1]: 'x' } })).rejects.toThrow(/not a call number/);
  });
});

describe('secrets', () => {
  it('the API key, sent to the server and pasted into the conversation, is in no byte of the store or a tape', async () => {
    // It really was there to leak: in the auth header and in the messages the server got.
    for (const mode of ['plain', 'stream'] as const) {
      expect(recorded[mode].sent).toHaveLength(3);
      for (const request of recorded[mode].sent) {
        const { headers, body } = JSON.parse(request) as { headers: Record<string, string>; body: unknown };
        expect(headers['authorization']).toBe(`Bearer ${MARKER}`);
        expect(JSON.stringify(body)).toContain(MARKER);
      }
    }

    const tapes = [await exportRun(recorded.plain.meta.id, 'secret.tape.jsonl'), await exportRun(recorded.stream.meta.id, 'secret2.tape.jsonl')];
    const files = [...(await filesUnder(storeDir)), ...tapes];
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const bytes = await readFile(file);
      expect(bytes.includes(MARKER), file).toBe(false);
      expect(bytes.includes(MARKER.slice(3)), file).toBe(false);
    }
    // LevelDB may compress table files: check the decoded values too.
    for (const mode of ['plain', 'stream'] as const) {
      const text = JSON.stringify(await storedEvents(recorded[mode].meta.id));
      expect(text).not.toContain(MARKER.slice(3));
      expect(text).toContain('[REDACTED]');
    }
  });
});

describe('record().fetch and replay().fetch', () => {
  it('take a Request object with a body, as fetch does (its body is read once)', async () => {
    const llm = await startMockLlm([STEPS[2] as ScenarioStep]);
    const storeDirectory = join(dir, 'request-object-store');
    try {
      const rec = await recordRun({ tape: { store: storeDirectory } });
      const body = JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
      const request = new Request(`${llm.baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const reply = (await (await rec.fetch(request)).json()) as { choices: [{ message: { content: string } }] };
      expect(reply.choices[0].message.content).toBe('All done: the answer is 42.');
      await rec.finish();
      const rep = await replayRun({ tape: { store: storeDirectory, run: rec.runId } });
      const again = new Request('http://127.0.0.1:9/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(await (await rep.fetch(again)).json()).toEqual(reply);
      expect(rep.replay?.divergences).toEqual([]);
    } finally {
      await llm.close();
    }
  });
});

describe('the SDK helpers and recorded failures, through the recording client', () => {
  it('chat.completions.runTools and .stream(): recorded, and replayed to the same result', async () => {
    const llm = await startMockLlm([
      { tool_calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { content: 'a.txt says hello' },
      { content: 'streamed through the helper' },
    ]);
    const storeDirectory = join(dir, 'helpers-store');
    const readFile = (args: { path: string }): string => `contents of ${args.path}`;
    const tools: RunnableToolFunctionWithParse<{ path: string }>[] = [{
      type: 'function',
      function: { name: 'read_file', description: 'Read a file', function: readFile, parse: (text: string) => JSON.parse(text) as { path: string }, parameters: { type: 'object' } },
    }];
    const use = async (client: OpenAI): Promise<[string | null, string | null]> => {
      const runner = client.chat.completions.runTools({ model: 'gpt-test', messages: [{ role: 'user', content: 'read a.txt' }], tools });
      const answer = await runner.finalContent();
      const stream = client.chat.completions.stream({ model: 'gpt-test', messages: [{ role: 'user', content: 'stream please' }] });
      const streamed = await stream.finalChatCompletion();
      return [answer, streamed.choices[0]?.message.content ?? null];
    };
    let live: [string | null, string | null];
    let runId: string;
    try {
      const recording = await recordOpenAI(new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-helpers-0123456789', maxRetries: 0 }), { tape: { store: storeDirectory } });
      runId = (recording.runId as string);
      live = await use(recording);
      await recording.finish();
      llm.assertConsumed();
    } finally {
      await llm.close();
    }
    expect(live).toEqual(['a.txt says hello', 'streamed through the helper']);
    const replayed = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay' }), { tape: { store: storeDirectory, run: runId } });
    expect(await use(replayed)).toEqual(live);
    expect(replayed.replay?.divergences).toEqual([]);
    expect(replayed.replay?.calls.map((c) => c.matched)).toEqual([true, true, true]);
  });

  it('a recorded 429 keeps its status, body and Retry-After, and fails the same way on replay (without the wait)', async () => {
    const llm = await startMockLlm([{ status: 429, retryAfter: 30, body: { error: { message: 'slow down', type: 'rate_limit' } } }, STEPS[2] as ScenarioStep]);
    const storeDirectory = join(dir, 'rate-limit-store');
    let runId: string;
    try {
      const recording = await recordOpenAI(new OpenAI({ baseURL: llm.baseURL, apiKey: 'sk-rate-0123456789', maxRetries: 0 }), { tape: { store: storeDirectory } });
      runId = (recording.runId as string);
      const first = await recording.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(first).toBeInstanceOf(OpenAI.RateLimitError);
      await recording.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
      await recording.finish();
    } finally {
      await llm.close();
    }
    const store = await TapeStore.open(storeDirectory, { create: false });
    try {
      const events: RunEvent[] = [];
      for await (const event of store.readEvents(runId)) events.push(event);
      expect(events.filter((e) => e.type === 'llm_error')).toMatchObject([{
        iteration: 0, attempt: 0, kind: 'recoverable', status: 429, retryAfterMs: 30_000, message: '429 slow down',
        http: { status: 429, headers: { 'retry-after': '30' }, body: { error: { message: 'slow down' } } },
      }]);
      expect(events.filter((e) => e.type === 'llm_response')).toMatchObject([{ iteration: 0, attempt: 1 }]);
    } finally {
      await store.close();
    }

    // Without retries: the same error, status, body and header.
    const once = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { tape: { store: storeDirectory, run: runId } });
    const error = await once.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).message).toBe('429 slow down');
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('30');
    // With the SDK's own retry: it is told to wait 1 ms, not 30 s, and gets the recorded answer.
    const retried = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 1 }), { tape: { store: storeDirectory, run: runId } });
    const answer = await retried.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0]?.message.content).toBe('All done: the answer is 42.');
    expect(retried.replay?.calls).toEqual([{ iteration: 0, source: 'tape', matched: true, resynced: false }]);
  });
});
