/**
 * Stopping the loop from outside (the consumer ends the generator: a strict replay, a UI that
 * quits): whatever the step had in flight is ended with it, down through the step's parts.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock, seededRandom } from '../core/clock.js';
import type { LlmClient, LlmResponse } from '../core/llm.js';
import { parseConfig } from './load-config.js';
import { runLoop } from './loop.js';
import type { ToolHost } from './tool-host.js';

const config = parseConfig({ model: 'test-model', tools: [], seed: 3 }, 'test config');
const noTools: ToolHost = {
  lookup: () => undefined,
  definitions: () => [],
  execute: () => Promise.reject(new Error('no tool runs in this test')),
  policies: [],
};

describe('stopping the loop', () => {
  it('ending the loop during a streamed model call aborts that call', async () => {
    let seenSignal: AbortSignal | undefined;
    const llm: LlmClient = {
      complete: (_request, call = {}) => {
        seenSignal = call.signal;
        call.onChunk?.({ index: 0, offsetMs: 0, content: 'partial', finished: false });
        return new Promise<LlmResponse>((_resolve, reject) => call.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
      },
    };
    const loop = runLoop({ task: 'stream something', config }, { llm, tools: noTools, clock: new ManualClock(), random: seededRandom(3) });
    for (let next = await loop.next(); ; next = await loop.next()) {
      if (next.done === true) throw new Error('the loop ended on its own');
      if (next.value.type === 'llm_chunk') break;
    }
    expect(seenSignal?.aborted).toBe(false);
    await loop.return(undefined as never);
    expect(seenSignal?.aborted).toBe(true);
  });

  it('an error thrown into the loop lands where it was, so the loop can end the run its own way', async () => {
    const llm: LlmClient = {
      complete: (_request, call = {}) => {
        call.onChunk?.({ index: 0, offsetMs: 0, content: 'partial', finished: false });
        return new Promise<LlmResponse>(() => undefined);
      },
    };
    const cancel = new AbortController();
    const loop = runLoop({ task: 'stream something', config }, { llm, tools: noTools, clock: new ManualClock(), random: seededRandom(3), signal: cancel.signal });
    for (let next = await loop.next(); ; next = await loop.next()) {
      if (next.done === true) throw new Error('the loop ended on its own');
      if (next.value.type === 'llm_chunk') break;
    }
    cancel.abort();
    // The model call's handler sees the cancellation and ends the run CANCELLED, as it would had the call thrown.
    const next = await loop.throw(new Error('the consumer gave up'));
    expect(next).toMatchObject({ done: false, value: { type: 'state', to: 'CANCELLED' } });
  });
});
