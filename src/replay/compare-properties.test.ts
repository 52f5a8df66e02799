/**
 * Properties of the comparator over random tapes and random departures from them: a replay that
 * produces the tape's events reproduces it; one that drops, repeats or cuts events of a finished
 * tape has diverged (an event the tape has and the replay never produced is a divergence wherever
 * it sits: mid-step, at a step's end, at the tape's end); and the answer does not depend on how the
 * tape is read (one event at a time, or batches of any size).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventInput } from '../core/events.js';
import { tapeArbitrary } from '../tape/test-support/arbitraries.js';
import { ReplayComparator } from './compare.js';
import type { LoopProgress } from './loop-progress.js';
import { StepCursor } from './step-cursor.js';

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

interface Options {
  patched: number[];
  whatIf: boolean;
  complete: boolean;
  exhaustedAt: number | null;
  batch: number;
}

/** Everything a replay sees of the comparator: per event its divergences and peek, then the end. */
interface Outcome {
  seen: unknown[];
  first: unknown;
  all: unknown[];
  firstAt: unknown;
  backInSyncAt: unknown;
  decisionChanges: number;
}

async function run(recorded: readonly RunEvent[], replayed: readonly RunEvent[], opts: Options): Promise<Outcome> {
  const batches: RunEvent[][] = [];
  for (let i = 0; i < recorded.length; i += opts.batch) batches.push(recorded.slice(i, i + opts.batch));
  const state: LoopProgress = { step: 0, exhaustedAt: null, liveCalls: 0 };
  const cursor = new StepCursor({ batches: each(batches) });
  const comparator = new ReplayComparator({ cursor, state, patched: new Set(opts.patched), whatIf: opts.whatIf, fallback: 'error', complete: opts.complete });
  const seen: unknown[] = [];
  try {
    for (const event of replayed) {
      state.step = event.step;
      if (opts.exhaustedAt !== null && event.step >= opts.exhaustedAt) state.exhaustedAt ??= opts.exhaustedAt;
      await cursor.load(event.step);
      seen.push(comparator.observe(event), comparator.peek()?.seq ?? null);
    }
    seen.push(comparator.finish(replayed.at(-1)?.step ?? 0));
  } catch (error) {
    seen.push(`error: ${(error as Error).message}`);
  }
  const { first, firstAt, backInSyncAt, decisionChanges, all } = comparator;
  return { seen, first, firstAt, backInSyncAt, decisionChanges, all };
}

/** A replay that follows the tape and then departs from it: events dropped, repeated or changed, the tail cut. */
const mutation = fc.record({
  at: fc.nat(),
  how: fc.constantFrom('drop', 'repeat', 'change', 'cut', 'none' as const),
});

function mutate(events: readonly RunEvent[], changes: readonly { at: number; how: string }[]): RunEvent[] {
  let out = events.map((e) => ({ ...e }));
  for (const { at, how } of changes) {
    if (out.length === 0) break;
    const i = at % out.length;
    const e = out[i] as RunEvent;
    if (how === 'drop') out.splice(i, 1);
    else if (how === 'repeat') out.splice(i, 0, { ...e });
    else if (how === 'cut') out = out.slice(0, i);
    else if (how === 'change') {
      const changed = { ...e } as Record<string, unknown>;
      if ('hash' in changed) changed.hash = `${String(changed.hash)}x`;
      else if ('output' in changed) changed.output = `${String(changed.output)}x`;
      else if ('verdict' in changed) changed.verdict = changed.verdict === 'allow' ? 'block' : 'allow';
      else changed.reason = 'changed';
      out[i] = changed as unknown as RunEvent;
    }
  }
  return out;
}

const options = fc.record({
  patched: fc.array(fc.nat({ max: 8 }), { maxLength: 2 }),
  whatIf: fc.boolean(),
  complete: fc.boolean(),
  exhaustedAt: fc.option(fc.nat({ max: 8 }), { nil: null }),
  batch: fc.oneof(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 8, max: 40 })),
});

/** A tape of several events a step, as a replay makes them: request, response, call, decisions, result. */
const steppedTape = fc.array(fc.record({ calls: fc.nat({ max: 2 }), output: fc.constantFrom('a', 'b'), verdict: fc.constantFrom('allow', 'block' as const) }), { minLength: 1, maxLength: 6 })
  .map((steps) => {
    const inputs: RunEventInput[] = [];
    steps.forEach(({ calls, output, verdict }, step) => {
      inputs.push({ type: 'llm_request', step, iteration: step, hash: `h${step}`, prefix: step, append: [{ role: 'user', content: `u${step}` }], model: 'm', stream: false, tools: ['read_file'] });
      const toolCalls = Array.from({ length: calls }, (_, n) => ({ id: `call_${step}_${n}`, type: 'function' as const, function: { name: 'read_file', arguments: '{}' } }));
      inputs.push({ type: 'llm_response', step, iteration: step, attempt: 0, durationMs: 1,
        response: { message: calls > 0 ? { role: 'assistant', content: null, tool_calls: toolCalls } : { role: 'assistant', content: 'done' }, finishReason: calls > 0 ? 'tool_calls' : 'stop', usage: { inputTokens: 1, outputTokens: 1 } } });
      for (const call of toolCalls) {
        inputs.push({ type: 'tool_call', step, callId: call.id, tool: 'read_file', arguments: '{}', key: 'k' });
        inputs.push({ type: 'guardrail', step, callId: call.id, gate: 'loop_guard', verdict, rule: 'first_attempt', tool: 'read_file', key: 'k', counters: { before: {}, after: {} }, reason: `r (call ${call.id})` });
        inputs.push({ type: 'tool_result', step, callId: call.id, tool: 'read_file', status: 'ok', output, durationMs: 1 });
      }
    });
    return inputs.map((input, seq) => ({ ...input, seq, t: seq }) as RunEvent);
  });

const plain: Options = { patched: [], whatIf: false, complete: true, exhaustedAt: null, batch: 1 };

describe('ReplayComparator over random tapes', () => {
  it('reproduces a tape the replay produces exactly, however the tape is read', async () => {
    await fc.assert(
      fc.asyncProperty(steppedTape, fc.integer({ min: 1, max: 40 }), async (tape, batch) => {
        const outcome = await run(tape, tape, { ...plain, batch });
        expect(outcome.all).toEqual([]);
        expect(outcome.first).toBeNull();
      }),
      { numRuns: 200 },
    );
  });

  it('has diverged when the replay drops, repeats or cuts events of a finished tape', async () => {
    await fc.assert(
      fc.asyncProperty(steppedTape, fc.nat(), fc.constantFrom('drop', 'repeat', 'cut'), fc.integer({ min: 1, max: 40 }), async (tape, at, how, batch) => {
        const replayed = mutate(tape, [{ at, how }]);
        // A replay always produces its first event (run_start): only a departure after it is a replay.
        fc.pre(replayed.length > 0);
        const outcome = await run(tape, replayed, { ...plain, batch });
        expect(outcome.first).not.toBeNull();
      }),
      { numRuns: 400 },
    );
  });

  it('reports an event the replay never produced at the end of a step, and of the tape', async () => {
    const tape = fc.sample(steppedTape.filter((t) => new Set(t.map((e) => e.step)).size >= 3), { numRuns: 1, seed: 7 })[0] as RunEvent[];
    for (let i = 0; i < tape.length; i++) {
      const last = tape[i + 1] === undefined || tape[i + 1]?.step !== tape[i]?.step;
      if (!last) continue;
      const replayed = tape.filter((_, j) => j !== i);
      const missing = tape[i] as RunEvent;
      const outcome = await run(tape, replayed, plain);
      expect(outcome.first).toMatchObject({ step: missing.step, kind: 'event', message: expect.stringContaining(`at step ${missing.step} that the replay never produced`) });
    }
  });

  it('gives the same divergences, peeks and verdict whether the tape is read one event or a batch at a time', async () => {
    const tapes = fc.oneof(steppedTape, tapeArbitrary.map((t) => t.events));
    await fc.assert(
      fc.asyncProperty(tapes, fc.array(mutation, { maxLength: 3 }), options, async (tape, changes, opts) => {
        const replayed = mutate(tape, changes);
        expect(await run(tape, replayed, opts)).toEqual(await run(tape, replayed, { ...opts, batch: 1 }));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a tape that goes back to an earlier step, once the replay reaches it', async () => {
    const warning = (seq: number, step: number): RunEvent => ({ type: 'warning', seq, step, t: seq, message: `m${seq}` });
    // One batch; the tape's last event goes back to step 0, and the replay skips the tape's seq 1.
    const tape = [warning(0, 0), warning(1, 0), warning(2, 1), warning(3, 1), warning(4, 0)];
    const outcome = await run(tape, [warning(0, 0), warning(2, 1)], { ...plain, batch: tape.length });
    expect(outcome.seen.at(-1)).toEqual(expect.stringContaining('goes back from step 1 to 0'));
  });
});
