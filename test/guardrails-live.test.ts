/**
 * The guardrails live in an agent's own loop (createGuardrails, docs/guardrails.md "Any agent: the
 * guardrails live"): the hand-written loop of docs/examples/guardrails run as a user runs it — a real
 * `openai` client against a scripted model on 127.0.0.1 that asks for the same call over and over —
 * stopped where the built-in loop stops the same model, with its decisions on the tape; guard()'s
 * order and outcomes; and how the decisions are written onto a recorded session's run.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor, type Redactor } from '../src/core/redact.js';
import type { RunEvent } from '../src/core/events.js';
import { InvalidOptionError } from '../src/core/errors.js';
import { callKey } from '../src/guardrails/call-key.js';
import { createGuardrails, type GuardedCall, type GuardrailsOptions } from '../src/library/live-guardrails.js';
import { recordOpenAI } from '../src/library/record-openai.js';
import { record, replay } from '../src/library/record-replay.js';
import { RecordingSession } from '../src/library/recording-session.js';
import { withInternals } from '../src/library/session-internals.js';
import type { TapeSession } from '../src/library/tape-options.js';
import { openTapeFile } from '../src/tape/tape-file.js';
import { TapeStore } from '../src/tape/tape-store.js';
import { runProgram } from './support/cli.js';
import { ofType, TEST_API_KEY, useLoopHarness } from './support/loop-harness.js';
import { startMockLlm, type MockLlm } from './support/mock-llm.js';
import { loadScenario } from './support/scenario.js';

const EXAMPLE = fileURLToPath(new URL('../docs/examples/guardrails/hand-written-loop.mjs', import.meta.url));

const harness = useLoopHarness();
let dir: string;
const servers: MockLlm[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-guardrails-live-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function tapeEvents(file: string): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const event of (await openTapeFile(file)).events()) out.push(event);
  return out;
}

/** A decision as two runs can compare it: without its place on the tape (seq) and its time. */
function decisionsOf(events: readonly RunEvent[]): unknown[] {
  return ofType(events, 'guardrail').map(({ seq: _seq, t: _t, ...decision }) => decision);
}

/** Run the example in `workspace` against `model`, recording onto `tape`; `mode` as AGENTCTL_MODE. */
function runExample(workspace: string, model: MockLlm, tape: string, mode?: string) {
  return runProgram(process.execPath, [EXAMPLE, tape], {
    cwd: workspace,
    env: {
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: TEST_API_KEY,
      MODEL: 'test-model',
      AGENTCTL_MODE: mode,
    },
    timeoutMs: 60_000,
  });
}

describe('the hand-written loop example (docs/examples/guardrails/hand-written-loop.mjs)', () => {
  it('is stopped by its guardrails where the built-in loop stops the same model, with the same decisions on its tape', async () => {
    // The built-in loop against the looping model: skipped at step 2, blocked at 3, stopped at 4.
    const builtIn = await harness.run('demo-loop', { fixture: 'demo' });
    expect(builtIn.result).toMatchObject({ state: 'ERROR' });
    const expected = decisionsOf(builtIn.events);

    const model = await startMockLlm(loadScenario('demo-loop'));
    servers.push(model);
    const workspace = await harness.workspace('demo');
    const tape = join(dir, 'tapes', 'hand-written-loop.tape.jsonl');
    const result = await runExample(workspace, model, tape);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^stopped by the guardrails \(repetition\): repetition: /);
    // Stopped before its fifth answer's calls ran: the model was asked five times, as the built-in loop asked it.
    expect(model.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(builtIn.bodies.length);

    const events = await tapeEvents(tape);
    const decisions = decisionsOf(events);
    expect(decisions).toEqual(expected);
    // What the decisions are, step by step, with the model's call ids.
    const verdicts = ofType(events, 'guardrail')
      .filter((e) => e.verdict !== 'allow' && e.verdict !== 'continue')
      .map((e) => [e.step, e.callId, e.gate, e.verdict, e.rule]);
    expect(verdicts).toEqual([
      [2, 'call_2_0', 'replay_control', 'skip', 'duplicate_success'],
      [3, 'call_3_0', 'loop_guard', 'block', 'identical_call_block'],
      [4, undefined, 'repetition', 'stuck', 'repetition'],
    ]);
    // In the order made, each after the model answer that asked for its call, and an allowed call's
    // decisions before the tool ran.
    for (const decision of ofType(events, 'guardrail')) {
      const answer = ofType(events, 'llm_response').find((e) => e.step === decision.step);
      expect(answer !== undefined && answer.seq < decision.seq, `decision ${decision.seq} after the answer of step ${decision.step}`).toBe(true);
    }
    for (const tool of ofType(events, 'tool_call')) {
      const first = ofType(events, 'guardrail').find((e) => e.step === tool.step);
      expect(first !== undefined && first.seq < tool.seq, `the gates before ${tool.callId} ran`).toBe(true);
    }
    expect(events.at(-1)).toMatchObject({ type: 'run_end', state: 'ERROR', reason: expect.stringMatching(/^repetition: /) });
  });

  it('replayed from its tape, it is stopped at the same place and writes nothing', async () => {
    const model = await startMockLlm(loadScenario('demo-loop'));
    servers.push(model);
    const workspace = await harness.workspace('demo');
    const tape = join(dir, 'hand-written-loop.tape.jsonl');
    const recorded = await runExample(workspace, model, tape);
    expect(recorded.code).toBe(3);
    const bytes = await readFile(tape, 'utf8');
    const asked = model.requests.length;

    const replayed = await runExample(workspace, model, tape, 'replay');
    expect(replayed.stderr).toBe('');
    expect({ code: replayed.code, stdout: replayed.stdout }).toEqual({ code: recorded.code, stdout: recorded.stdout });
    expect(await readFile(tape, 'utf8')).toBe(bytes);
    expect(model.requests).toHaveLength(asked);
  });
});

/** A promise and the functions that settle it. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const call = (id: string, name: string, args: unknown): GuardedCall => ({ id, name, arguments: args });

describe('guard()', () => {
  it('runs the calls one at a time, in the order they were guarded, even when started together', async () => {
    const guardrails = createGuardrails({ tools: { write: { idempotent: false, mutating: true } } });
    const log: string[] = [];
    const gates = [deferred<void>(), deferred<void>(), deferred<void>()];
    const runs = gates.map((gate, i) =>
      guardrails.guard(call(`c${i}`, 'write', { n: i }), async () => {
        log.push(`start ${i}`);
        await gate.promise;
        log.push(`end ${i}`);
        return i;
      }),
    );
    // The last one lets go first: still, each starts only once the one before it has settled.
    gates[2]!.resolve();
    gates[1]!.resolve();
    gates[0]!.resolve();
    const results = await Promise.all(runs);
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
    expect(results.map((r) => r.action === 'ran' && r.value)).toEqual([0, 1, 2]);
    expect(guardrails.decisions.filter((d) => d.gate === 'loop_guard').map((d) => d.callId)).toEqual(['c0', 'c1', 'c2']);
  });

  it('a duplicate of an earlier success is not run: it gets the earlier call\'s value', async () => {
    const guardrails = createGuardrails();
    let runs = 0;
    const lookup = () => ({ answer: 42, run: ++runs });
    const first = await guardrails.guard(call('a', 'lookup', { q: 'x' }), lookup);
    const second = await guardrails.guard(call('b', 'lookup', { q: 'x' }), lookup);
    expect(first).toMatchObject({ action: 'ran', value: { answer: 42, run: 1 } });
    expect(second).toEqual({ action: 'skip', value: { answer: 42, run: 1 }, message: expect.stringContaining('duplicate') });
    expect(runs).toBe(1);
  });

  it('a tool that throws is a failure, counted by the failure watch, and its error is thrown on', async () => {
    const guardrails = createGuardrails({ failureWarn: 1 });
    const error = new Error('connection refused');
    await expect(guardrails.guard(call('a', 'fetch_page', { url: 'u' }), () => Promise.reject(error))).rejects.toBe(error);
    expect(guardrails.decisions.filter((d) => d.gate === 'failures')).toEqual([
      expect.objectContaining({ callId: 'a', verdict: 'warn', counters: { before: { failures: 0 }, after: { failures: 1 } } }),
    ]);
    // A failure is no success to skip a retry for: the same call runs again.
    expect(await guardrails.guard(call('b', 'fetch_page', { url: 'u' }), () => 'page')).toMatchObject({ action: 'ran', value: 'page' });
  });

  it('a tool that throws, or returns, a value with no text (no prototype, contains itself) is settled as any other: its own throw thrown on, its value given back', async () => {
    const guardrails = createGuardrails({ failureWarn: 1 });
    const thrown: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    thrown.code = 'E_TOOL';
    await expect(guardrails.guard(call('a', 'raw', {}), () => Promise.reject(thrown))).rejects.toBe(thrown);
    expect(guardrails.decisions.filter((d) => d.gate === 'failures').map((d) => [d.callId, d.verdict])).toEqual([['a', 'warn']]);
    const value: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    value.self = value;
    const ran = await guardrails.guard(call('b', 'cyclic', {}), () => value);
    expect(ran).toMatchObject({ action: 'ran', value, settled: { verdict: 'continue' } });
  });

  it('refuses an onDecision that is no function, before any call: it would fail the first decision', () => {
    expect(() => createGuardrails({ onDecision: 'log' as unknown as () => void })).toThrow(InvalidOptionError);
    expect(() => createGuardrails({ identicalCallBlok: 2 } as GuardrailsOptions)).toThrow(/identicalCallBlok is not a guardrails setting/);
  });

  it('what a call returned is the output the model reads: text as it is, anything else as JSON', async () => {
    const guardrails = createGuardrails();
    const text = await guardrails.guard(call('a', 'lookup', { q: 'x' }), () => 'port 8080');
    const object = await guardrails.guard(call('b', 'lookup', { q: 'y' }), () => ({ port: 8080 }));
    expect(text.action === 'ran' && text.settled.output).toBe('port 8080');
    expect(object.action === 'ran' && object.settled.output).toBe('{"port":8080}');
  });

  it('a blocked call never runs: the model gets the message instead', async () => {
    const guardrails = createGuardrails({ identicalCallBlock: 2, tools: { send: {} } });
    let runs = 0;
    const send = () => ++runs;
    expect(await guardrails.guard(call('a', 'send', { to: 'x' }), send)).toMatchObject({ action: 'ran', value: 1 });
    const blocked = await guardrails.guard(call('b', 'send', { to: 'x' }), send);
    expect(blocked).toEqual({ action: 'block', message: expect.stringContaining('2 times') });
    expect(runs).toBe(1);
  });
});

describe('createGuardrails({ tape })', () => {
  it('writes each decision onto a recording session\'s run, with the call as the tape keeps it (redacted)', async () => {
    const tape = join(dir, 'lookup.tape.jsonl');
    const session = await record({ tape, redact: ['hunter2[\\w-]*'] });
    const guardrails = createGuardrails({ tape: session });
    const asked = call('call_1', 'lookup', { q: 'hunter2-secret' });
    expect(await guardrails.guard(asked, () => 'found')).toMatchObject({ action: 'ran' });
    expect(await guardrails.guard({ ...asked, id: 'call_2' }, () => 'found')).toMatchObject({ action: 'skip', value: 'found' });
    await session.finish();
    const events = await tapeEvents(tape);
    const written = ofType(events, 'guardrail');
    expect(written.map((e) => [e.step, e.callId, e.gate, e.verdict])).toEqual(guardrails.decisions.map((d) => [d.step, d.callId, d.gate, d.verdict]));
    expect(written.map((e) => [e.callId, e.gate, e.verdict])).toEqual([
      ['call_1', 'arguments', 'allow'], ['call_1', 'loop_guard', 'allow'], ['call_1', 'replay_control', 'allow'], ['call_1', 'failures', 'continue'],
      ['call_2', 'arguments', 'allow'], ['call_2', 'loop_guard', 'allow'], ['call_2', 'replay_control', 'skip'],
    ]);
    // Keyed over the redacted arguments, as a replay and an analysis of the tape key them.
    expect(new Set(written.map((e) => e.key).filter((key) => key !== undefined))).toEqual(new Set([callKey('lookup', { q: '[REDACTED]' })]));
    expect(JSON.stringify(events)).not.toContain('hunter2');
  });

  it('a call the tape\'s redaction makes a duplicate (another secret in it) is not given its twin\'s value: the model is told of the duplicate', async () => {
    const tape = join(dir, 'secrets.tape.jsonl');
    const session = await record({ tape });
    const guardrails = createGuardrails({ tape: session });
    const asked = (id: string, key: string) => call(id, 'check_key', { key });
    const check = (args: unknown) => `checked ${JSON.stringify(args)}`;
    const first = await guardrails.guard(asked('call_1', 'sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA0123456789abcd'), () => check('first'));
    expect(first).toMatchObject({ action: 'ran', value: 'checked "first"' });
    // Another key, the same call on the tape: a duplicate, as a replay and the analysis will find it, but not the first key's answer.
    const other = await guardrails.guard(asked('call_2', 'sk-proj-ZZZZZZZZZZZZZZZZZZZZZZZZ0123456789abcd'), () => check('other'));
    expect(other).toEqual({ action: 'block', message: expect.stringContaining('duplicate') });
    expect(guardrails.decisions.filter((d) => d.callId === 'call_2' && d.gate === 'replay_control').map((d) => d.verdict)).toEqual(['skip']);
    await session.finish();
    expect(await readFile(tape, 'utf8')).not.toContain('sk-proj');
  });

  /**
   * A conversation where the model answers without tools in between (step 1): the guardrails' own
   * count of steps with calls is behind the run's model calls, the tape's steps.
   */
  async function pausingRun(driver: 'steps' | 'guard only') {
    const model = await startMockLlm([
      { tool_calls: [{ id: 'c0', name: 'lookup', arguments: { q: 'x' } }] },
      { content: 'Let me think.' },
      { tool_calls: [{ id: 'c2', name: 'lookup', arguments: { q: 'x' } }] },
      { content: 'done' },
    ]);
    servers.push(model);
    const tape = join(dir, `${driver}.tape.jsonl`);
    const client = await recordOpenAI(new OpenAI({ baseURL: model.baseURL, apiKey: TEST_API_KEY, maxRetries: 0 }), { tape });
    const guardrails = createGuardrails({ tape: client });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'look it up' }];
    for (;;) {
      const message = (await client.chat.completions.create({ model: 'test-model', messages })).choices[0]!.message;
      messages.push(message);
      if (message.content === 'done') break;
      const calls = (message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : []));
      if (calls.length === 0) {
        messages.push({ role: 'user', content: 'go on' });
        continue;
      }
      if (driver === 'steps') guardrails.startStep(calls);
      for (const c of calls) {
        const done = await guardrails.guard(c, () => 'found');
        messages.push({ role: 'tool', tool_call_id: c.id, content: done.action === 'block' ? done.message : String(done.value) });
      }
      if (driver === 'steps') guardrails.endStep();
    }
    await client.finish();
    return { guardrails, events: await tapeEvents(tape) };
  }

  it('files each decision under the step of the model call that asked for its call, and startStep numbers its step so', async () => {
    const { guardrails, events } = await pausingRun('steps');
    const written = ofType(events, 'guardrail');
    expect(written.filter((e) => e.gate === 'repetition').map((e) => [e.step, e.verdict])).toEqual([[0, 'continue'], [2, 'continue']]);
    expect(written.filter((e) => e.callId !== undefined).map((e) => [e.step, e.callId])).toEqual([
      [0, 'c0'], [0, 'c0'], [0, 'c0'], [0, 'c0'], [2, 'c2'], [2, 'c2'], [2, 'c2'],
    ]);
    // The decisions as the loop saw them are the ones on the tape, steps included.
    expect(guardrails.decisions.map((d) => [d.step, d.callId, d.gate, d.verdict])).toEqual(written.map((e) => [e.step, e.callId, e.gate, e.verdict]));
  });

  it('files the decisions of a loop that only guards its calls under the model calls\' steps too', async () => {
    const { events } = await pausingRun('guard only');
    expect(ofType(events, 'guardrail').map((e) => [e.step, e.callId, e.verdict])).toEqual([
      [0, 'c0', 'allow'], [0, 'c0', 'allow'], [0, 'c0', 'allow'], [0, 'c0', 'continue'], [2, 'c2', 'allow'], [2, 'c2', 'allow'], [2, 'c2', 'skip'],
    ]);
  });

  it('a replay session writes nothing', async () => {
    const tape = join(dir, 'empty.tape.jsonl');
    await (await record({ tape })).finish();
    const before = await readFile(tape, 'utf8');
    const session = await replay({ tape });
    const guardrails = createGuardrails({ tape: session });
    expect(await guardrails.guard(call('a', 'lookup', {}), () => 1)).toMatchObject({ action: 'ran' });
    await session.finish();
    expect(await readFile(tape, 'utf8')).toBe(before);
  });

  it('refuses a finished session, and guard() after the session finished runs nothing: their decisions would be lost', async () => {
    const done = await record({ tape: join(dir, 'done.tape.jsonl') });
    await done.finish();
    expect(() => createGuardrails({ tape: done })).toThrow(/^createGuardrails: run \w+ is finished: its tape takes no more decisions$/);
    const session = await record({ tape: join(dir, 'late.tape.jsonl') });
    const guardrails = createGuardrails({ tape: session });
    expect(await guardrails.guard(call('a', 'lookup', {}), () => 1)).toMatchObject({ action: 'ran' });
    await session.finish();
    let runs = 0;
    await expect(guardrails.guard(call('b', 'send', {}), () => ++runs)).rejects.toThrow(InvalidOptionError);
    expect(runs).toBe(0);
  });

  it('refuses a session agentctl did not open (a copy of one): its decisions would not be recorded', async () => {
    const session = await record({ tape: join(dir, 'copy.tape.jsonl') });
    expect(() => createGuardrails({ tape: { ...session } })).toThrow(InvalidOptionError);
    await session.finish();
  });

  /** Guardrails recording onto a session whose tape refuses the guardrail events `refuses` picks, with `failure`. */
  async function refusingTape(refuses: (event: { type?: unknown; gate?: unknown }) => boolean) {
    const store = await TapeStore.open(join(dir, 'store'), { create: true });
    const base = createRedactor();
    const failure = new Error('the disk is full');
    const refusing: Redactor = Object.assign(
      <T>(value: T): T => {
        if (refuses(value as { type?: unknown; gate?: unknown })) throw failure;
        return base(value);
      },
      { text: base.text, spans: base.spans },
    );
    const recording = new RecordingSession({ store, ownsStore: false, redact: refusing, source: 'library' });
    const session = withInternals({ mode: 'record' } as Omit<TapeSession, 'fetch'>, { recording, redact: base });
    return { store, failure, recording, guardrails: createGuardrails({ tape: session }) };
  }

  it('a decision that could not be written stops guard() before the tool runs, and fails the session\'s finish()', async () => {
    // The tape refuses guardrail events only: everything else is written.
    const { store, failure, recording, guardrails } = await refusingTape((event) => event.type === 'guardrail');
    try {
      let runs = 0;
      await expect(guardrails.guard(call('a', 'lookup', {}), () => ++runs)).rejects.toBe(failure);
      expect(runs).toBe(0);
      // A decision made synchronously (beforeTool) that is lost too: finish() reports the first.
      guardrails.beforeTool(call('b', 'other', {}));
      await expect(recording.finish()).rejects.toBe(failure);
    } finally {
      await store.close();
    }
  });

  it('a decision about a call\'s outcome that could not be written fails guard() once the tool has run', async () => {
    // The tape refuses the failure watch's decisions only: the gates' before the run are written.
    const { store, failure, recording, guardrails } = await refusingTape((event) => event.type === 'guardrail' && event.gate === 'failures');
    try {
      let runs = 0;
      await expect(guardrails.guard(call('a', 'lookup', {}), () => ++runs)).rejects.toBe(failure);
      expect(runs).toBe(1);
      await expect(recording.finish()).rejects.toBe(failure);
    } finally {
      await store.close();
    }
  });
});
