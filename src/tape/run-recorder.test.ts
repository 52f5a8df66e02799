import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { createRedactor } from '../core/redact.js';
import type { RunMeta } from '../core/run-meta.js';
import { EventWriter } from './event-writer.js';
import { RunRecorder } from './run-recorder.js';
import type { TapeStore } from './tape-store.js';

/** A store that records each batch it is asked to write, and lets the test decide when a write completes. */
interface Batch { types: string[]; text: string; sync: boolean; done: () => void }

function fakeStore(): { store: TapeStore; batches: Batch[]; meta: RunMeta[] } {
  const batches: Batch[] = [];
  const meta: RunMeta[] = [];
  const store = {
    createRun: async (run: Omit<RunMeta, 'id' | 'createdAt' | 'status' | 'tapeVersion'>) => {
      const created = { ...run, id: '01M80BD0DH1T99S5EY9167MAX2', createdAt: 'now', status: 'recording', tapeVersion: 1 } as RunMeta;
      meta.push(created);
      return created;
    },
    writer: () =>
      new EventWriter((events, sync) => new Promise<void>((resolve) => {
        batches.push({ types: events.map((e) => e.type), text: JSON.stringify(events), sync, done: resolve });
      })),
    finishRun: async () => meta[0] as RunMeta,
  };
  return { store: store as unknown as TapeStore, batches, meta };
}

const at = (seq: number) => ({ seq, step: 0, t: seq });
const response: RunEvent = {
  ...at(1), type: 'llm_response', iteration: 0, attempt: 0, durationMs: 1,
  response: { message: { role: 'assistant', content: 'hi sk-proj-AbCdEfGhIjKlMn' }, finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
};

describe('RunRecorder', () => {
  it('writes a model response with sync, and the loop may go on only once it is on disk', async () => {
    const { store, batches } = fakeStore();
    const recorder = await RunRecorder.start(store, { kind: 'record', task: 't', model: 'm', config: {}, seed: 0 }, createRedactor());
    const state: RunEvent = { ...at(0), type: 'state', from: null, to: 'RUNNING', reason: 'x' };
    void recorder.write(state);
    let written = false;
    const pending = recorder.write(response).then(() => (written = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The response rides in a synced batch (with what came before it), and is not done before the write is.
    const batch = batches.find((b) => b.types.includes('llm_response'));
    expect(batch?.sync).toBe(true);
    expect(written).toBe(false);
    batch?.done();
    await pending;
    expect(written).toBe(true);
  });

  it('redacts what it writes, the run meta included, and does not store the user\'s patterns', async () => {
    const { store, meta, batches } = fakeStore();
    const recorder = await RunRecorder.start(
      store,
      { kind: 'record', task: 'use sk-proj-AbCdEfGhIjKlMn', model: 'm', config: { redact: ['my-literal'] }, seed: 0 },
      createRedactor({ patterns: ['my-literal'] }),
    );
    expect(meta[0]).toMatchObject({ task: 'use [REDACTED]', config: { redact: [] } });
    void recorder.write({ ...response, seq: 0 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(batches[0]?.text).toContain('hi [REDACTED]');
    expect(batches[0]?.text).not.toContain('sk-proj');
  });

  it('does not wait for a model request: it is written with (or before) the synced batch of its reply', async () => {
    const { store, batches } = fakeStore();
    const recorder = await RunRecorder.start(store, { kind: 'record', task: 't', model: 'm', config: {}, seed: 0 }, createRedactor());
    const request = { ...at(0), type: 'llm_request', iteration: 0, hash: 'h', messages: [], model: 'm', stream: false, tools: [] } as unknown as RunEvent;
    // Resolves although no batch has been written (the fake store completes none until told to).
    await recorder.write(request);
    let written = false;
    const pending = recorder.write(response).then(() => (written = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The reply waits for its own synced batch, which comes after (or carries) the request.
    for (const batch of batches) {
      expect(written).toBe(false);
      batch.done();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await pending;
    const last = batches.at(-1);
    expect(last?.types).toContain('llm_response');
    expect(last?.sync).toBe(true);
    expect(batches.flatMap((b) => b.types)).toEqual(['llm_request', 'llm_response']);
  });

  it('lets the loop go on from a tool result only once it is written (its tool has had its effects), so the tool calls after it find it written', async () => {
    const { store, batches } = fakeStore();
    const recorder = await RunRecorder.start(store, { kind: 'record', task: 't', model: 'm', config: {}, seed: 0 }, createRedactor());
    const result = { ...at(0), type: 'tool_result', callId: 'a', tool: 'read_file', status: 'ok', output: 'x', durationMs: 0 } as RunEvent;
    const call = { ...at(1), type: 'tool_call', callId: 'b', tool: 'read_file', arguments: '{}', key: 'k' } as RunEvent;
    let written = false;
    const pending = recorder.write(result).then(() => (written = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(written).toBe(false);
    expect(batches[0]?.types[0]).toBe('tool_result');
    batches[0]?.done();
    await pending;
    expect(written).toBe(true);
    // The tool call after it has nothing left to wait for.
    await recorder.write(call);
  });

  it('starts the batch of a tool result at once, with what was appended before it, instead of a turn later', async () => {
    const { store, batches } = fakeStore();
    const recorder = await RunRecorder.start(store, { kind: 'record', task: 't', model: 'm', config: {}, seed: 0 }, createRedactor());
    void recorder.write({ ...at(0), type: 'state', from: null, to: 'RUNNING', reason: 'x' });
    await Promise.resolve();
    void recorder.write({ ...at(1), type: 'tool_result', callId: 'a', tool: 'read_file', status: 'ok', output: 'x', durationMs: 0 } as RunEvent);
    // A few microtasks, no turn of the event loop: the batch is already being written.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(batches.map((b) => b.types)).toEqual([['state', 'tool_result']]);
  });

  it('reports a failed write that nothing waited for at the next write that is waited for', async () => {
    const store = {
      createRun: async (run: object) => ({ ...run, id: '01M80BD0DH1T99S5EY9167MAX2', createdAt: 'now', status: 'recording', tapeVersion: 1 }),
      writer: () => new EventWriter(async () => Promise.reject(new Error('disk full'))),
      finishRun: async () => undefined,
    } as unknown as TapeStore;
    const recorder = await RunRecorder.start(store, { kind: 'record', task: 't', model: 'm', config: {}, seed: 0 }, createRedactor());
    await recorder.write({ ...at(0), type: 'state', from: null, to: 'RUNNING', reason: 'x' });
    await new Promise((resolve) => setTimeout(resolve, 1));
    await expect(recorder.write(response)).rejects.toThrow('disk full');
    await expect(recorder.finish(null)).rejects.toThrow('disk full');
  });
});
