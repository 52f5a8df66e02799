/**
 * The recorder's durability promise, checked where the loop acts: `agentctl record` drives the real
 * loop and writes every event through RunRecorder (awaiting each write, as src/cli/commands/record.ts
 * does) into a store whose writes complete only later, in order. Whenever the loop acts on something —
 * a tool runs (acting on the model's reply, and on the results of the tools before it in the step),
 * the model is called again (acting on the tool results it reports) — what it acts on must already be
 * written, and a model reply must have been written with sync. A recorder that let the loop go on
 * before a reply was synced (or a tool result written) fails here, whatever the timing.
 *
 * Not required: that a request (or the tool results it reports) is written before the model is
 * called. The model's reply is acted on only once the synced batch carrying it — and everything
 * appended before it — is on disk (see src/tape/run-recorder.ts).
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/agent/load-config.js';
import { runLoop } from '../src/agent/loop.js';
import type { ToolHost } from '../src/agent/tool-host.js';
import { seededRandom, systemClock } from '../src/core/clock.js';
import type { RunEvent } from '../src/core/events.js';
import type { LlmClient, LlmRequest, LlmResponse } from '../src/core/llm.js';
import { createRedactor } from '../src/core/redact.js';
import type { RunMeta } from '../src/core/run-meta.js';
import { EventWriter } from '../src/tape/event-writer.js';
import { RunRecorder } from '../src/tape/run-recorder.js';
import type { TapeStore } from '../src/tape/tape-store.js';

/** A store that completes each batch after a few turns of the event loop, in order, and remembers what is on "disk". */
function slowStore(): { store: TapeStore; onDisk: Map<number, { event: RunEvent; synced: boolean }> } {
  const onDisk = new Map<number, { event: RunEvent; synced: boolean }>();
  let turns = 0;
  const later = (): Promise<void> => new Promise((resolve) => {
    let n = 1 + (turns++ % 3);
    const tick = (): void => (--n === 0 ? resolve() : void setImmediate(tick));
    setImmediate(tick);
  });
  const meta = { id: '01M80BD0DH1T99S5EY9167MAX2', createdAt: 'now', status: 'recording', tapeVersion: 1 } as unknown as RunMeta;
  const store = {
    createRun: async (run: object) => ({ ...run, ...meta }),
    writer: () =>
      new EventWriter(async (events, sync) => {
        await later();
        for (const event of events) onDisk.set(event.seq, { event, synced: sync });
      }),
    finishRun: async () => meta,
  };
  return { store: store as unknown as TapeStore, onDisk };
}

const reply = (step: number, steps: number, callsPerStep: number): LlmResponse => ({
  message: step < steps
    ? {
      role: 'assistant',
      content: null,
      tool_calls: Array.from({ length: callsPerStep }, (_, k) => ({
        id: `call_${step}_${k}`, type: 'function' as const, function: { name: 'read_file', arguments: JSON.stringify({ path: `f${step}_${k}.ts` }) },
      })),
    }
    : { role: 'assistant', content: 'done' },
  finishReason: step < steps ? 'tool_calls' : 'stop',
  usage: { inputTokens: 10, outputTokens: 5 },
});

describe('recording: what the loop acts on is on disk first', () => {
  it.each([1, 3])('with %i tool call(s) per step', async (callsPerStep) => {
    const steps = 6;
    const { store, onDisk } = slowStore();
    const written = (type: RunEvent['type'], match: (e: RunEvent) => boolean): boolean =>
      [...onDisk.values()].some((d) => d.event.type === type && match(d.event));
    /** Every event up to the reply of `step` is on disk, the reply itself synced. */
    const replyOnDisk = (step: number): boolean => {
      const response = [...onDisk.values()].find((d) => d.event.type === 'llm_response' && d.event.step === step);
      if (response === undefined || !response.synced) return false;
      for (let seq = 0; seq < response.event.seq; seq++) if (!onDisk.has(seq)) return false;
      return true;
    };
    let step = 0;
    const llm: LlmClient = { complete: async (_request: LlmRequest) => reply(step++, steps, callsPerStep) };
    let executed = 0;
    const tools: ToolHost = {
      lookup: () => ({ name: 'read_file', description: 'read', parameters: { type: 'object' }, readOnly: true } as never),
      definitions: () => [{ type: 'function', function: { name: 'read_file', description: 'read', parameters: { type: 'object' } } }] as never,
      execute: async (call) => {
        const [, s, k] = call.id.split('_').map(Number) as [number, number, number];
        // A tool runs on the model's reply: it was synced, with everything before it (the request it
        // answers, the tool results that request reported). And on the results before it in the step.
        expect(replyOnDisk(s)).toBe(true);
        for (let j = 0; j < k; j++) expect(written('tool_result', (e) => e.type === 'tool_result' && e.callId === `call_${s}_${j}`)).toBe(true);
        executed++;
        return { status: 'ok', output: `content ${s}.${k}`, durationMs: 0 };
      },
      policies: [],
    };
    const config = parseConfig({ model: 'm', tools: ['read_file'], limits: { maxSteps: steps + 2 } }, 'test config');
    const recorder = await RunRecorder.start(store, { kind: 'record', task: 't', model: 'm', config: { ...config }, seed: 1 }, createRedactor());
    const loop = runLoop({ task: 't', config }, { llm, tools, clock: systemClock, random: seededRandom(1) });
    let count = 0;
    let result;
    for (let next = await loop.next(); ; next = await loop.next()) {
      if (next.done) {
        result = next.value;
        break;
      }
      count++;
      await recorder.write(next.value);
    }
    await recorder.finish({ finalState: result.state, totals: result.totals });
    expect(result.state).toBe('COMPLETED');
    expect(executed).toBe(steps * callsPerStep);
    expect(step).toBe(steps + 1);
    // Nothing was lost or reordered on the way.
    expect([...onDisk.keys()].sort((a, b) => a - b)).toEqual([...Array(count).keys()]);
    expect(onDisk.get(count - 1)?.event.type).toBe('run_end');
  });
});
