/**
 * The determinism contract (docs/loop.md, §8): the loop is a function of (config, seed, model replies,
 * tool outcomes). The same scenario run twice — each time in a fresh temp workspace, against a
 * fresh server, on a fresh ManualClock — yields deep-equal event streams, `t` included.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../src/core/clock.js';
import type { AgentConfigInput } from '../src/agent/config.js';
import { ofType, useLoopHarness, type HarnessRun } from './support/loop-harness.js';

const harness = useLoopHarness();

async function twice(scenario: string, config: AgentConfigInput = {}): Promise<[HarnessRun, HarnessRun]> {
  // Different clock origins on purpose: only differences between readings may matter.
  const first = await harness.run(scenario, { config, clock: new ManualClock(0) });
  const second = await harness.run(scenario, { config, clock: new ManualClock(987_654) });
  return [first, second];
}

describe('determinism', () => {
  it('fix-the-bug (real tools: reads, a failing and a passing exec_shell, an edit) gives identical events', async () => {
    const [a, b] = await twice('fix-the-bug');
    expect(a.workspace).not.toBe(b.workspace);
    expect(a.events.length).toBeGreaterThan(40);
    expect(b.events).toEqual(a.events);
    expect(b.result).toEqual(a.result);
    // Same requests on the wire too.
    expect(b.bodies).toEqual(a.bodies);
  });

  it('retries with seeded jitter and the waits they put on the clock are identical, t included', async () => {
    const [a, b] = await twice('rate-limited-and-500s');
    expect(ofType(a.events, 'llm_error')).toHaveLength(3);
    expect(ofType(a.events, 'run_end')[0]?.t).toBeGreaterThan(2000);
    expect(b.events).toEqual(a.events);
  });

  it('a streamed run with a broken stream, retried, gives identical chunk events', async () => {
    const [a, b] = await twice('stream-cut-tool-call', { stream: true });
    expect(ofType(a.events, 'llm_chunk').length).toBeGreaterThan(5);
    expect(b.events).toEqual(a.events);
  });

  it('guardrail decisions (skip, block, warn, halt nudge, repetition) are identical', async () => {
    for (const [scenario, config] of [
      ['duplicate-read', {}],
      ['failing-reads', { guardrails: { haltNudges: 1 } }],
      ['repeated-step', {}],
      ['long-reads', { context: { strategy: 'compact', window: 250, keepLast: 3 } }],
    ] as const) {
      const [a, b] = await twice(scenario, config);
      expect(ofType(a.events, 'guardrail').length).toBeGreaterThan(0);
      expect(b.events, scenario).toEqual(a.events);
    }
  });

  it('the seed is what the jitter depends on: another seed waits differently', async () => {
    const waits = async (seed: number): Promise<Array<number | undefined>> => {
      const run = await harness.run('rate-limited-and-500s', { config: { seed } });
      return ofType(run.events, 'llm_error').map((e) => e.retryInMs);
    };
    const seven = await waits(7);
    const eight = await waits(8);
    expect(seven[0]).toBe(2000); // Retry-After: no jitter
    expect(eight[0]).toBe(2000);
    expect(eight.slice(1)).not.toEqual(seven.slice(1));
    expect(await waits(7)).toEqual(seven);
  });
});
