/**
 * One engine: the analysis of a run the built-in loop recorded is the decisions the loop recorded —
 * gate, verdict, rule, tool, call, key, counters, threshold and reason, in order — save those the
 * loop's own policies made (an unknown tool, a replay's side-effect policy), which are no guardrail's;
 * and it finds no stop point the recording does not show. Checked over every golden tape and over
 * random runs of the real loop (a scripted model, tools with scripted outcomes).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock, seededRandom } from '../core/clock.js';
import type { GuardrailEvent, RunEvent } from '../core/events.js';
import type { LlmClient, LlmResponse } from '../core/llm.js';
import type { ToolCall } from '../core/messages.js';
import type { RunMeta } from '../core/run-meta.js';
import { parseConfig } from '../agent/load-config.js';
import { runLoop } from '../agent/loop.js';
import type { ToolHost } from '../agent/tool-host.js';
import { denyUnknownTools } from '../guardrails/call-policy.js';
import { RULES } from '../guardrails/rules.js';
import { openTapeFile } from '../tape/tape-file.js';
import { ToolRegistry } from '../tools/registry.js';
import { analyseRun } from './guardrail-analysis.js';

const TAPES = fileURLToPath(new URL('../../tapes/', import.meta.url));
const GOLDEN = readdirSync(TAPES).filter((f) => /\.tape\.jsonl(\.gz)?$/.test(f)).sort();

/** A decision as the comparison reads it. */
const shown = (d: GuardrailEvent) => ({
  step: d.step, gate: d.gate, verdict: d.verdict, rule: d.rule, tool: d.tool, callId: d.callId, key: d.key,
  counters: d.counters, threshold: d.threshold, reason: d.reason,
});
/** A decision of the loop's own policies, which the guardrails do not make. */
const ownPolicy = (d: GuardrailEvent): boolean => d.gate === 'policy' && d.rule !== RULES.afterHalt && d.rule !== RULES.afterStop;

function expectSameDecisions(meta: RunMeta, events: readonly RunEvent[]): void {
  const analysis = analyseRun(meta, events);
  const recorded = events.filter((e): e is GuardrailEvent => e.type === 'guardrail' && !ownPolicy(e));
  expect(analysis.decisions.map(shown)).toEqual(recorded.map(shown));
  expect(analysis.decisions.every((d) => d.analysis === true)).toBe(true);
  expect(analysis.stop).toBeNull();
}

describe('the analysis of a built-in-loop run is its recorded decisions', () => {
  it.each(GOLDEN)('golden tape %s', async (file) => {
    const tape = await openTapeFile(join(TAPES, file));
    const events: RunEvent[] = [];
    for await (const event of tape.events()) events.push(event);
    expectSameDecisions(tape.meta, events);
  });

  it('random runs of the loop: calls repeated, failing, mutating, unknown; cut-off answers; halts and nudges; turns; a token budget, a cost limit', async () => {
    const call = fc.record({
      tool: fc.constantFrom('read_file', 'list_dir', 'write_file', 'mystery'),
      path: fc.constantFrom('a', 'b'),
      broken: fc.constantFrom(false, false, false, true),
    });
    const answer = fc.oneof(
      { arbitrary: fc.record({ calls: fc.array(call, { minLength: 1, maxLength: 3 }) }), weight: 3 },
      // The same calls as the answer before: a loop, for the repetition check.
      { arbitrary: fc.constant({ again: true as const }), weight: 2 },
      { arbitrary: fc.record({ cutOff: fc.boolean() }), weight: 1 },
    );
    const run = fc.record({
      answers: fc.array(answer, { maxLength: 14 }),
      outcomes: fc.array(fc.constantFrom('ok', 'ok', 'error', 'timeout') as fc.Arbitrary<'ok' | 'error' | 'timeout'>, { maxLength: 30 }),
      turns: fc.array(fc.constantFrom('go on', 'again'), { maxLength: 2 }),
      guardrails: fc.record({
        identicalCallBlock: fc.integer({ min: 1, max: 4 }),
        failureWarn: fc.integer({ min: 1, max: 3 }),
        failureHalt: fc.integer({ min: 1, max: 5 }),
        maxRepeatedToolSteps: fc.integer({ min: 1, max: 3 }),
        maxTokensRecoveries: fc.integer({ min: 0, max: 2 }),
        haltNudges: fc.integer({ min: 0, max: 2 }),
        reserveTokens: fc.constantFrom(0, 40, 200),
      }),
      tokenBudget: fc.constantFrom(0, 0, 150, 300),
      costLimit: fc.constantFrom(0, 0, 0.2, 0.35),
    });
    await fc.assert(
      fc.asyncProperty(run, async (script) => {
        const { meta, events } = await recordLoop(script);
        expectSameDecisions(meta, events);
      }),
      { numRuns: 120 },
    );
  });
});

interface Script {
  answers: ({ calls: { tool: string; path: string; broken: boolean }[] } | { again: true } | { cutOff: boolean })[];
  outcomes: ('ok' | 'error' | 'timeout')[];
  turns: string[];
  guardrails: Record<string, number>;
  tokenBudget: number;
  costLimit: number;
}

/** A run of the real loop on `script`: its answers, then a final one each turn; its tools' outcomes in order. */
async function recordLoop(script: Script): Promise<{ meta: RunMeta; events: RunEvent[] }> {
  const config = parseConfig({
    model: 'test-model',
    tools: ['read_file', 'list_dir', 'write_file'],
    seed: 1,
    guardrails: script.guardrails,
    limits: { tokenBudget: script.tokenBudget, costLimit: script.costLimit, maxSteps: 40 },
    // $0.03 a call: a cost limit is reached in a few steps.
    prices: { 'test-model': { input: 1000, output: 1000 } },
  }, 'test config');
  const registry = ToolRegistry.fromNames(config.tools);
  let answered = 0;
  let previous: { tool: string; path: string; broken: boolean }[] | undefined;
  const llm: LlmClient = {
    complete: (): Promise<LlmResponse> => {
      let next = script.answers[answered];
      answered++;
      if (next !== undefined && 'again' in next) next = previous === undefined ? { cutOff: false } : { calls: previous };
      const usage = { inputTokens: 20, outputTokens: 10 };
      if (next === undefined || !('calls' in next)) {
        const cutOff = next !== undefined && next.cutOff;
        return Promise.resolve({ message: { role: 'assistant', content: cutOff ? 'and so' : 'done' }, finishReason: cutOff ? 'length' : 'stop', usage });
      }
      previous = next.calls;
      const tool_calls: ToolCall[] = next.calls.map((c, i) => ({
        id: `call_${answered}_${i}`, type: 'function', function: { name: c.tool, arguments: c.broken ? '{"path":' : JSON.stringify({ path: c.path }) },
      }));
      return Promise.resolve({ message: { role: 'assistant', content: null, tool_calls }, finishReason: 'tool_calls', usage });
    },
  };
  let ran = 0;
  const tools: ToolHost = {
    lookup: (name) => registry.spec(name),
    definitions: () => registry.definitions(),
    execute: () => {
      const status = script.outcomes[ran++ % Math.max(1, script.outcomes.length)] ?? 'ok';
      return { status, output: `${status} ${ran}`, durationMs: 1 };
    },
    policies: [denyUnknownTools],
  };
  const turns = [...script.turns];
  const input = { next: () => Promise.resolve(turns.shift() ?? null) };
  const events: RunEvent[] = [];
  const loop = runLoop({ task: 'do it', config }, { llm, tools, clock: new ManualClock(), random: seededRandom(1), input });
  for (let next = await loop.next(); next.done !== true; next = await loop.next()) events.push(next.value);
  const meta: RunMeta = {
    id: 'run', kind: 'record', source: 'cli', model: config.model, seed: 1, task: 'do it', config: { ...config }, createdAt: '2020-01-01T00:00:00.000Z', status: 'complete', tapeVersion: 1,
  } as RunMeta;
  return { meta, events };
}
