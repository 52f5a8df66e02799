import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent, ToolCallEvent, ToolResultEvent } from '../core/events.js';
import { createRedactor } from '../core/redact.js';
import { readCallTape } from '../replay/call-tape.js';
import { TapeStore } from '../tape/tape-store.js';
import { recordingTool, replayingTool, ToolNotReplayedError } from './recorded-tool.js';
import { RecordingSession } from './recording-session.js';

let dir: string;
let store: TapeStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-tool-'));
  store = await TapeStore.open(dir, { create: true });
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function recorded(runId: string): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const event of store.readEvents(runId)) out.push(event);
  return out;
}

describe('recordTool', () => {
  it('records the input and the value; on replay the value comes back and nothing runs; a call the tape lacks follows the policy', async () => {
    const session = new RecordingSession({ store, ownsStore: false, redact: createRedactor(), source: 'library' });
    const effects: string[] = [];
    const send = async (input: { to: string }, _context?: unknown): Promise<{ sent: string }> => {
      effects.push(input.to);
      return { sent: input.to };
    };
    const live = recordingTool(session, createRedactor(), 'send', send);
    // A framework's context after the input is not recorded (the default: the first argument).
    expect(await live({ to: 'bob' }, { runContext: { usage: 1 } })).toEqual({ sent: 'bob' });
    await session.finish();
    const events = await recorded(session.runId);
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ tool: 'send', arguments: '{"to":"bob"}' });

    const tape = await readCallTape(events);
    const used = new Set<(typeof tape.tools)[number]>();
    const replayed = replayingTool(tape.tools, used, createRedactor(), 'send', send, { mutating: true }, false);
    expect(await replayed({ to: 'bob' }, { another: 'context' })).toEqual({ sent: 'bob' });
    expect(effects).toEqual(['bob']); // not sent again
    await expect(replayed({ to: 'carol' })).rejects.toBeInstanceOf(ToolNotReplayedError);
    const readOnly = replayingTool(tape.tools, used, createRedactor(), 'send', send, { idempotent: true, mutating: false }, false);
    expect(await readOnly({ to: 'dave' })).toEqual({ sent: 'dave' }); // safe to run: it runs
  });

  it('a value JSON cannot hold still reaches the agent; the tape keeps its text', async () => {
    const session = new RecordingSession({ store, ownsStore: false, redact: createRedactor(), source: 'library' });
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const tool = recordingTool(session, createRedactor(), 'odd', async (which: string) => (which === 'cycle' ? cyclic : { n: 10n }), { arguments: 'all' });
    expect(await tool('cycle')).toBe(cyclic);
    expect(await tool('big')).toEqual({ n: 10n });
    await session.finish();
    const results = (await recorded(session.runId)).filter((e) => e.type === 'tool_result');
    expect(results.map((e) => e.type === 'tool_result' && [e.status, e.output])).toEqual([
      ['ok', '"[object Object]"'],
      ['ok', '{"n":"10"}'],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Concurrent calls: several wrappers (of the same and of different tools), calls with the same and
// with different arguments, some throwing, in any interleaving the scheduler picks.

interface Input {
  item: string;
}
/** What the framework passes after the input: not recorded, so it tells calls with equal arguments apart here. */
interface Context {
  n: number;
  throws: boolean;
}
/** A call's outcome names the call it came from: its tool, its arguments and its number. */
interface Outcome {
  tool: string;
  for: Input;
  n: number;
}
type Settled = { ok: Outcome } | { error: string };

const scenarioArb = fc
  .record({
    wrappers: fc.array(fc.constantFrom('reserve', 'lookup'), { minLength: 1, maxLength: 4 }),
    calls: fc.array(fc.record({ wrapper: fc.nat(), item: fc.constantFrom('a', 'b', 'c'), throws: fc.boolean() }), { minLength: 1, maxLength: 10 }),
    /** One call after another (each answered before the next starts) instead of all at once. */
    sequential: fc.boolean(),
  })
  .map(({ wrappers, calls, sequential }) => ({
    wrappers,
    calls: calls.map((c) => ({ wrapper: c.wrapper % wrappers.length, input: { item: c.item }, throws: c.throws })),
    sequential,
  }));

/** The outcome a result carries: the value's JSON, or the error's message, which is the outcome's JSON too. */
function outcomeOf(result: ToolResultEvent): Outcome {
  return JSON.parse(result.output) as Outcome;
}

function settle(call: Promise<Outcome>): Promise<Settled> {
  return call.then(
    (ok) => ({ ok }),
    (error: unknown) => ({ error: (error as Error).message }),
  );
}

/** The tape's tool events with the ids recordTool gave before the session numbered them: `name:n` counted per wrapper. */
function withPerWrapperIds(events: readonly RunEvent[], invocationOf: ReadonlyMap<string, number>, oldIdOf: (n: number) => string): RunEvent[] {
  return events.map((e) => (e.type === 'tool_call' || e.type === 'tool_result' ? { ...e, callId: oldIdOf(invocationOf.get(e.callId) as number) } : e));
}

/** The ids on a tape whose calls overlapped: a call of the id began while an earlier one had no result yet. */
function overlappingIds(events: readonly RunEvent[]): Set<string> {
  const open = new Map<string, number>();
  const overlapping = new Set<string>();
  for (const e of events) {
    if (e.type === 'tool_call') {
      if ((open.get(e.callId) ?? 0) > 0) overlapping.add(e.callId);
      open.set(e.callId, (open.get(e.callId) ?? 0) + 1);
    } else if (e.type === 'tool_result') open.set(e.callId, (open.get(e.callId) ?? 0) - 1);
  }
  return overlapping;
}

describe('recordTool, calls under any interleaving', () => {
  it('every call has its own id, every result is under its own call, and a replay gives each call exactly its own outcome (tapes with per-wrapper ids never pair a result with another call)', async () => {
    const redact = createRedactor();
    await fc.assert(
      fc.asyncProperty(scenarioArb, fc.scheduler(), async ({ wrappers: names, calls, sequential }, s) => {
        // Record: each call starts when the scheduler says, and its tool completes when the scheduler says.
        const session = new RecordingSession({ store, ownsStore: false, redact, source: 'library' });
        const started: number[] = [];
        const wrappers = names.map((name) =>
          recordingTool(session, redact, name, async (input: Input, context: Context): Promise<Outcome> => {
            await s.schedule(Promise.resolve(), `${name} #${context.n} completes`);
            const outcome = { tool: name, for: input, n: context.n };
            if (context.throws) throw new Error(JSON.stringify(outcome));
            return outcome;
          }),
        );
        const invoke = (n: number): Promise<Settled> => {
          const call = calls[n] as (typeof calls)[number];
          started.push(n);
          return settle((wrappers[call.wrapper] as (typeof wrappers)[number])(call.input, { n, throws: call.throws }));
        };
        let live: Settled[];
        if (sequential) {
          live = [];
          for (let n = 0; n < calls.length; n++) live.push(await s.waitFor(invoke(n)));
        } else {
          live = await s.waitFor(Promise.all(calls.map((_c, n) => s.schedule(Promise.resolve(), `call #${n} starts`).then(() => invoke(n)))));
        }
        await session.finish();
        const expected = (n: number): Settled => {
          const call = calls[n] as (typeof calls)[number];
          const outcome = { tool: names[call.wrapper] as string, for: call.input, n };
          return call.throws ? { error: JSON.stringify(outcome) } : { ok: outcome };
        };
        expect(live).toEqual(calls.map((_c, n) => expected(n)));

        // On the tape: one id per call, one result per call, each under the id of the call it answers.
        const events = await recorded(session.runId);
        const toolCalls = events.filter((e): e is ToolCallEvent => e.type === 'tool_call');
        const results = events.filter((e): e is ToolResultEvent => e.type === 'tool_result');
        expect(toolCalls).toHaveLength(calls.length);
        expect(new Set(toolCalls.map((c) => c.callId)).size).toBe(calls.length);
        expect(results).toHaveLength(calls.length);
        const invocationOf = new Map<string, number>();
        for (const result of results) {
          const outcome = outcomeOf(result);
          const call = toolCalls.find((c) => c.callId === result.callId);
          expect(call?.tool).toBe(outcome.tool);
          expect(JSON.parse(call?.arguments ?? 'null')).toEqual(outcome.for);
          expect(result.status).toBe(calls[outcome.n]?.throws === true ? 'error' : 'ok');
          invocationOf.set(result.callId, outcome.n);
        }
        expect([...invocationOf.values()].sort((a, b) => a - b)).toEqual(calls.map((_c, n) => n));

        // Read back: each call has the result with its own id.
        const tape = await readCallTape(events);
        expect(tape.tools.map((o) => o.result?.callId)).toEqual(toolCalls.map((c) => c.callId));

        // Replay, with new wrappers: calls with equal arguments in their recorded order, the others
        // interleaved as the scheduler picks. Each gets its own outcome; nothing runs.
        const used = new Set<(typeof tape.tools)[number]>();
        let ran = 0;
        const reserveAgain = async (_input: Input, _context: Context): Promise<Outcome> => {
          ran++;
          throw new Error('a recorded call ran on replay');
        };
        const again = names.map((name) => replayingTool(tape.tools, used, redact, name, reserveAgain, { mutating: true }, false));
        const replayed = new Map<number, Settled>();
        const groups = new Map<string, number[]>();
        for (const o of tape.tools) {
          const group = `${o.call.tool} ${o.call.key}`;
          groups.set(group, [...(groups.get(group) ?? []), invocationOf.get(o.call.callId) as number]);
        }
        const sequences = [...groups.values()].map((group) =>
          s.scheduleSequence(group.map((n) => ({
            label: `replay #${n}`,
            builder: async () => {
              const call = calls[n] as (typeof calls)[number];
              replayed.set(n, await settle((again[call.wrapper] as (typeof again)[number])(call.input, { n: -1, throws: false })));
            },
          }))).task,
        );
        await s.waitFor(Promise.all(sequences));
        expect(calls.map((_c, n) => replayed.get(n))).toEqual(calls.map((_c, n) => expected(n)));
        expect(ran).toBe(0);

        // The same tape as recordTool wrote it when each wrapper counted its own calls: ids repeat.
        // A result is given only to its own call, and every call of an id whose calls did not overlap
        // (one agent run at a time) gets its result.
        const oldIdOf = (n: number): string => {
          const wrapper = (calls[n] as (typeof calls)[number]).wrapper;
          const before = started.slice(0, started.indexOf(n)).filter((m) => calls[m]?.wrapper === wrapper).length;
          return `${names[wrapper] as string}:${before}`;
        };
        const old = withPerWrapperIds(events, invocationOf, oldIdOf);
        const overlapping = overlappingIds(old);
        const oldTape = await readCallTape(old);
        for (const [i, o] of oldTape.tools.entries()) {
          const own = invocationOf.get((toolCalls[i] as ToolCallEvent).callId) as number;
          if (o.result !== undefined) expect(outcomeOf(o.result).n).toBe(own);
          if (!overlapping.has(o.call.callId)) expect(o.result).toBeDefined();
        }
        if (sequential) expect(oldTape.tools.every((o) => o.result !== undefined)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
