/**
 * The comparator answers most events at once (their step's recorded events are in hand) and only
 * reads the tape, awaiting, where it must. These properties check that the quick path reports the
 * very same divergences, peeks and verdict as the path that awaits the cursor for every event.
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

/** How many events the quick path answered at once, and of those how many began a step: the properties must exercise both. */
let answeredAtOnce = 0;
let stepsBegunAtOnce = 0;
/** How many peeks past a step's last event were answered at once. */
let peekedBeyondAtOnce = 0;

interface Options {
  patched: number[];
  whatIf: boolean;
  complete: boolean;
  exhaustedAt: number | null;
  batch: number;
}

/** Everything a replay sees of the comparator: per event its divergences and peek, then the end. */
async function run(recorded: readonly RunEvent[], replayed: readonly RunEvent[], opts: Options, awaitEveryEvent: boolean): Promise<unknown> {
  const state: LoopProgress = { step: 0, exhaustedAt: null, liveCalls: 0 };
  const batches: RunEvent[][] = [];
  for (let i = 0; i < recorded.length; i += opts.batch) batches.push(recorded.slice(i, i + opts.batch));
  const comparator = new ReplayComparator({
    cursor: new StepCursor({ batches: each(batches) }),
    state, patched: new Set(opts.patched), whatIf: opts.whatIf, fallback: 'error', complete: opts.complete, awaitEveryEvent,
  });
  const seen: unknown[] = [];
  try {
    let lastStep = -1;
    for (const event of replayed) {
      state.step = event.step;
      if (opts.exhaustedAt !== null && event.step >= opts.exhaustedAt) state.exhaustedAt = opts.exhaustedAt;
      const observed = comparator.observe(event);
      if (awaitEveryEvent) expect(observed).toBeInstanceOf(Promise);
      else if (Array.isArray(observed)) {
        answeredAtOnce++;
        if (event.step !== lastStep) stepsBegunAtOnce++;
      }
      lastStep = event.step;
      const answered = await observed;
      const peeked = comparator.peek();
      if (!awaitEveryEvent && !(peeked instanceof Promise) && peeked !== undefined && peeked.step !== event.step) peekedBeyondAtOnce++;
      seen.push(answered, (await peeked)?.seq ?? null);
    }
    seen.push(await comparator.finish(replayed.at(-1)?.step ?? 0));
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

describe('ReplayComparator: the synchronous path and the awaiting one', () => {
  it('give the same divergences, peeks and verdict on stepped tapes and their departures', async () => {
    await fc.assert(
      fc.asyncProperty(steppedTape, fc.array(mutation, { maxLength: 3 }), options, async (tape, changes, opts) => {
        const replayed = mutate(tape, changes);
        expect(await run(tape, replayed, opts, false)).toEqual(await run(tape, replayed, opts, true));
      }),
      { numRuns: 400 },
    );
    expect(answeredAtOnce).toBeGreaterThan(1000);
  });

  it('give the same divergences, peeks and verdict on arbitrary tapes', async () => {
    await fc.assert(
      fc.asyncProperty(tapeArbitrary, fc.array(mutation, { maxLength: 3 }), options, async ({ events }, changes, opts) => {
        const replayed = mutate(events, changes);
        expect(await run(events, replayed, opts, false)).toEqual(await run(events, replayed, opts, true));
      }),
      { numRuns: 200 },
    );
  });

  it('answer the first event of a step, and the peek past its last, at once when the batch in hand holds them', async () => {
    const tape = fc.sample(steppedTape.filter((t) => new Set(t.map((e) => e.step)).size >= 4), { numRuns: 1, seed: 7 })[0] as RunEvent[];
    const steps = new Set(tape.map((e) => e.step)).size;
    const before = { begun: stepsBegunAtOnce, beyond: peekedBeyondAtOnce };
    const opts = { patched: [], whatIf: false, complete: true, exhaustedAt: null, batch: tape.length };
    expect(await run(tape, tape, opts, false)).toEqual(await run(tape, tape, opts, true));
    // One batch holds the whole tape. Every step begins at once but the first (nothing is read yet)
    // and the last (its group ends the batch: whether the next batch goes on with it is not known
    // yet); the peek past each step's last event is answered at once but the last step's (the
    // tape's end is known only from the source).
    expect(stepsBegunAtOnce - before.begun).toBe(steps - 2);
    expect(peekedBeyondAtOnce - before.beyond).toBe(steps - 1);
  });

  it('leave the same state behind when the tape goes back to an earlier step', async () => {
    const warning = (seq: number, step: number): RunEvent => ({ type: 'warning', seq, step, t: seq, message: `m${seq}` });
    // One batch; the tape's last event goes back to step 0, and the replay skips the tape's seq 1.
    const tape = [warning(0, 0), warning(1, 0), warning(2, 1), warning(3, 1), warning(4, 0)];
    const outcome = async (awaitEveryEvent: boolean): Promise<unknown> => {
      const state: LoopProgress = { step: 0, exhaustedAt: null, liveCalls: 0 };
      const comparator = new ReplayComparator({
        cursor: new StepCursor({ batches: each([tape]) }), state, patched: new Set(), whatIf: false, fallback: 'error', complete: true, awaitEveryEvent,
      });
      let error = '';
      try {
        for (const event of [warning(0, 0), warning(2, 1)]) {
          state.step = event.step;
          await comparator.observe(event);
        }
      } catch (caught) {
        error = (caught as Error).message;
      }
      return { error, first: comparator.first?.message ?? null, all: comparator.all.length };
    };
    const awaiting = await outcome(true);
    expect(awaiting).toMatchObject({ error: expect.stringContaining('goes back'), all: 1 });
    expect(await outcome(false)).toEqual(awaiting);
  });
});
