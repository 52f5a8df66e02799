import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { updatedTape } from './tape-update.js';

const meta: RunMeta = {
  id: '01M80BD0DH1T99S5EY9167MAX2', kind: 'record', name: 'demo', createdAt: '2026-11-22T00:44:50.482Z', task: 'find the port', model: 'm',
  config: { guardrails: { identicalCallBlock: 3 } }, seed: 42, status: 'complete', finalState: 'ERROR',
  totals: { steps: 5, llmCalls: 5, toolCalls: 4, inputTokens: 10, outputTokens: 5, cost: 0 }, eventCount: 58, tapeVersion: 1,
};
const totals = { steps: 3, llmCalls: 3, toolCalls: 2, inputTokens: 6, outputTokens: 3, cost: 0 };
const replayed: RunEvent[] = [
  { seq: 0, step: 0, t: 0, type: 'run_start', task: 'find the port', model: 'm', seed: 42, config: { guardrails: { identicalCallBlock: 2 } } },
  { seq: 1, step: 0, t: 1, type: 'divergence', iteration: 0, kind: 'decision', expected: false, message: 'changed' },
  { seq: 2, step: 0, t: 2, type: 'state', from: 'RUNNING', to: 'COMPLETED', reason: 'done' },
  { seq: 3, step: 0, t: 3, type: 'run_end', state: 'COMPLETED', reason: 'done', totals },
];

describe('updatedTape', () => {
  it('keeps the run, takes the replayed config, end and totals, drops divergence reports and renumbers', () => {
    const note = { at: '2026-11-23T10:00:00.000Z', note: 'updated by agentctl ci --update' };
    const tape = updatedTape({ ...meta, updates: [{ at: 'earlier', note: 'first' }] }, replayed, note);
    expect(tape.events.map((e) => [e.seq, e.type])).toEqual([[0, 'run_start'], [1, 'state'], [2, 'run_end']]);
    expect(tape.meta).toEqual({
      ...meta, config: { guardrails: { identicalCallBlock: 2 } }, finalState: 'COMPLETED', totals, eventCount: 3,
      updates: [{ at: 'earlier', note: 'first' }, note],
    });
    // The replay's own events are not changed in place.
    expect(replayed[2]?.seq).toBe(2);
  });

  it('takes run_start\'s model and seed too (a --config with others): a header must agree with its run_start', () => {
    const start = { ...(replayed[0] as RunEvent & { type: 'run_start' }), model: 'm2', seed: 7 };
    const tape = updatedTape(meta, [start, ...replayed.slice(1)], { at: '2026-11-23T10:00:00.000Z', note: 'n' });
    expect(tape.meta).toMatchObject({ task: 'find the port', model: 'm2', seed: 7, config: start.config });
  });
});
