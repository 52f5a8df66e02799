import { describe, expect, it } from 'vitest';
import { requestHash } from '../agent/request-delta.js';
import type { GuardrailEvent, RunEvent, RunEventInput } from '../core/events.js';
import type { ChatMessage, ToolCall } from '../core/messages.js';
import { ReplayComparator, type DivergenceInput } from './compare.js';
import type { LoopProgress } from './loop-progress.js';
import { StepCursor } from './step-cursor.js';

type Decision = Omit<GuardrailEvent, 'seq' | 't'>;

const request = (step: number, hash = `h${step}`): RunEventInput => ({
  type: 'llm_request', step, iteration: step, hash, prefix: step, append: [{ role: 'user', content: hash }], model: 'm', stream: false, tools: ['read_file'],
});

const toolCallResponse = (step: number): RunEventInput => ({
  type: 'llm_response', step, iteration: step, attempt: 0, durationMs: 5,
  response: {
    message: { role: 'assistant', content: null, tool_calls: [{ id: `call_${step}`, type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] },
    finishReason: 'tool_calls', usage: { inputTokens: 10, outputTokens: 2 },
  },
});

/** The loop_guard decision on the n-th identical read_file call (here, n = step + 1). */
function loopGuard(step: number, overrides: Partial<Decision> = {}): Decision {
  const attempts = step + 1;
  return {
    type: 'guardrail', step, callId: `call_${step}`, gate: 'loop_guard', verdict: 'allow', rule: attempts === 1 ? 'first_attempt' : 'identical_call',
    tool: 'read_file', key: 'k', counters: { before: { attempts: step }, after: { attempts } }, threshold: 3, reason: `identical call ${attempts} of 3`,
    ...overrides,
  };
}

/** The failures gate after the tool ran: counter reset on success. */
function failures(step: number, overrides: Partial<Decision> = {}): Decision {
  return {
    type: 'guardrail', step, callId: `call_${step}`, gate: 'failures', verdict: 'continue', rule: 'failure_reset', tool: 'read_file',
    counters: { before: { failures: 0 }, after: { failures: 0 } }, reason: 'succeeded', ...overrides,
  };
}

const toolResult = (step: number, output = 'contents'): RunEventInput => ({
  type: 'tool_result', step, callId: `call_${step}`, tool: 'read_file', status: 'ok', output, durationMs: 3,
});

interface StepChanges {
  /** The request's hash (another one: the conversation differs). */
  hash?: string;
  /** Changes to the loop_guard decision. */
  decision?: Partial<Decision>;
  output?: string;
  /** Changes to the failures decision after the result. */
  after?: Partial<Decision>;
}

/** A step where the model reads a file: request, response, the guardrails, the result. */
function toolStep(step: number, opts: StepChanges = {}): RunEventInput[] {
  return [
    request(step, opts.hash),
    toolCallResponse(step),
    { type: 'state', step, from: 'RUNNING', to: 'WAITING_FOR_TOOL', reason: 'running 1 tool call' },
    { type: 'tool_call', step, callId: `call_${step}`, tool: 'read_file', arguments: '{"path":"a"}', key: 'k' },
    loopGuard(step, opts.decision),
    toolResult(step, opts.output),
    failures(step, opts.after),
  ];
}

function answerStep(step: number, hash?: string): RunEventInput[] {
  return [
    request(step, hash),
    { type: 'llm_response', step, iteration: step, attempt: 0, durationMs: 5,
      response: { message: { role: 'assistant', content: 'done' }, finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 2 } } },
    { type: 'state', step, from: 'RUNNING', to: 'COMPLETED', reason: 'the model gave its final answer' },
    { type: 'run_end', step, state: 'COMPLETED', reason: 'the model gave its final answer',
      totals: { steps: step + 1, llmCalls: step + 1, toolCalls: step, inputTokens: 0, outputTokens: 0, cost: 0 } },
  ];
}

/** The recorded run most tests start from: two reads of the same file, then the answer. */
const tape = (): RunEventInput[] => [...toolStep(0), ...toolStep(1), ...answerStep(2)];

function numbered(inputs: readonly RunEventInput[]): RunEvent[] {
  return inputs.map((input, seq) => ({ ...input, seq, t: seq }) as RunEvent);
}

async function* stream(events: RunEvent[]): AsyncGenerator<RunEvent> {
  yield* events;
}

interface Setup {
  patched?: number[];
  whatIf?: boolean;
  configReplaced?: boolean;
  complete?: boolean;
  /** Called before each replayed event is observed: stands for the tape-backed model updating the state. */
  before?: (event: RunEvent, state: LoopProgress) => void;
}

interface Compared {
  comparator: ReplayComparator;
  out: DivergenceInput[];
}

/** Feed `replayed` to a comparator reading `recorded`, then finish; every divergence in order. */
async function compare(recorded: RunEventInput[], replayed: RunEventInput[], setup: Setup = {}): Promise<Compared> {
  const state: LoopProgress = { step: 0, exhaustedAt: null, liveCalls: 0 };
  const cursor = new StepCursor(stream(numbered(recorded)));
  const comparator = new ReplayComparator({
    cursor,
    state,
    patched: new Set(setup.patched ?? []),
    whatIf: setup.whatIf ?? false,
    configReplaced: setup.configReplaced ?? false,
    fallback: 'error',
    complete: setup.complete ?? true,
  });
  const out: DivergenceInput[] = [];
  const events = numbered(replayed);
  for (const event of events) {
    state.step = event.step;
    setup.before?.(event, state);
    await cursor.load(event.step);
    out.push(...comparator.observe(event));
  }
  out.push(...comparator.finish(events.at(-1)?.step ?? 0));
  return { comparator, out };
}

const kinds = (out: readonly DivergenceInput[]): string[] => out.map((d) => `${d.step}:${d.kind}`);

/** Step 1's decision under a lower block threshold: blocked, and the tool denied. */
const blockedAt1: Partial<Decision> = { verdict: 'block', rule: 'identical_call_block', threshold: 2, reason: 'identical call 2 of 2: blocked' };

describe('ReplayComparator', () => {
  it('finds nothing when the replay produces the tape again (timing and numbering aside)', async () => {
    const { comparator, out } = await compare(tape(), tape());
    expect(out).toEqual([]);
    expect(comparator.first).toBeNull();
    expect(comparator.backInSyncAt).toBeNull();
    expect(comparator.decisionChanges).toBe(0);
  });

  it('reports changed tool output as tool_output, unexpected, with the path that differs', async () => {
    const replayed = [...toolStep(0, { output: 'other' }), ...toolStep(1), ...answerStep(2)];
    const { comparator, out } = await compare(tape(), replayed);
    expect(out[0]).toEqual({
      type: 'divergence', step: 0, kind: 'tool_output', iteration: 0, expected: false,
      message: 'tool_result differs at output', detail: { path: 'output', recorded: 'contents', replayed: 'other' },
    });
    expect(comparator.first).toBe(out[0]);
  });

  it('reports a decision with another verdict as a decision change: which one, before → after', async () => {
    const replayed = [...toolStep(0), ...toolStep(1, { decision: blockedAt1 }), ...answerStep(2)];
    const { comparator, out } = await compare(tape(), replayed);
    expect(out[0]).toEqual({
      type: 'divergence', step: 1, kind: 'decision', iteration: 1, expected: false,
      message: 'read_file loop_guard decision changed: recorded allow (2 of 3) → now block (2 of 2)',
      detail: {
        path: 'verdict',
        recorded: { verdict: 'allow', rule: 'identical_call', counters: { attempts: 2 }, threshold: 3 },
        replayed: { verdict: 'block', rule: 'identical_call_block', counters: { attempts: 2 }, threshold: 2 },
      },
    });
    expect(comparator.first).toBe(out[0]);
    expect(comparator.decisionChanges).toBe(1);
  });

  it('reports a guardrail that differs only in counters as a plain event difference', async () => {
    const recount: Partial<Decision> = { counters: { before: { attempts: 1 }, after: { attempts: 5 } } };
    const replayed = [...toolStep(0), ...toolStep(1, { decision: recount }), ...answerStep(2)];
    const { comparator, out } = await compare(tape(), replayed);
    expect(out[0]).toMatchObject({ kind: 'event', message: 'guardrail differs at counters.after.attempts' });
    expect(comparator.decisionChanges).toBe(0);
  });

  it('after leaving the tape, still reports every later decision whose verdict or rule changed; first stays the first', async () => {
    // Step 0: the tool fails, so the failures gate (after the result, out of sync) counts a failure.
    // Step 1: another request (so no resync), the loop_guard blocks, the failures gate is unchanged.
    const failed: Partial<Decision> = { verdict: 'continue', rule: 'consecutive_failures', counters: { before: { failures: 0 }, after: { failures: 1 } }, threshold: 3 };
    const replayed = [
      ...toolStep(0, { output: 'no such file', after: failed }),
      ...toolStep(1, { hash: 'other', decision: blockedAt1 }),
      ...answerStep(2, 'other-2'),
    ];
    const { comparator, out } = await compare(tape(), replayed);
    expect(kinds(out)).toEqual(['0:tool_output', '0:decision', '1:decision']);
    expect(out[1]?.message).toBe('read_file failures decision changed: recorded continue → now continue (1 of 3)');
    expect(out[2]?.message).toBe('read_file loop_guard decision changed: recorded allow (2 of 3) → now block (2 of 2)');
    expect(comparator.first).toBe(out[0]);
    expect(comparator.decisionChanges).toBe(2);
    expect(comparator.backInSyncAt).toBeNull();
  });

  it('pairs the n-th decision of a kind with the n-th recorded one, counting those made before the replay left the tape', async () => {
    // Two identical decisions in a step; the tool output between them takes the replay off the tape.
    const recorded = [request(0), loopGuard(0), toolResult(0), loopGuard(0, blockedAt1), ...answerStep(1)];
    const replayed = [request(0), loopGuard(0), toolResult(0, 'other'), loopGuard(0), ...answerStep(1)];
    const { out } = await compare(recorded, replayed);
    expect(kinds(out)).toEqual(['0:tool_output', '0:decision', '1:resync']);
    expect(out[1]?.message).toBe('read_file loop_guard decision changed: recorded block (1 of 2) → now allow (1 of 3)');
  });

  it('a divergence is expected under a what-if, or at or after a patched step, and unexpected before it', async () => {
    const replayed = [...toolStep(0, { output: 'other' }), ...toolStep(1, { hash: 'other', decision: blockedAt1 }), ...answerStep(2, 'other-2')];
    const expectedOf = async (setup: Setup): Promise<boolean[]> => (await compare(tape(), replayed, setup)).out.map((d) => d.expected);
    expect(await expectedOf({})).toEqual([false, false]);
    expect(await expectedOf({ patched: [1] })).toEqual([false, true]);
    expect(await expectedOf({ patched: [0] })).toEqual([true, true]);
    expect(await expectedOf({ whatIf: true })).toEqual([true, true]);
  });

  it('under a what-if, a decision with the same verdict and rule but another threshold and reason is no change', async () => {
    const looser: Partial<Decision> = { threshold: 5, reason: 'identical call 2 of 5' };
    const replayed = [...toolStep(0), ...toolStep(1, { decision: looser }), ...answerStep(2)];
    expect((await compare(tape(), replayed, { whatIf: true })).out).toEqual([]);
    // Without the what-if, the threshold is part of the behaviour: a difference, but no decision change.
    expect(kinds((await compare(tape(), replayed)).out)).toEqual(['1:event', '2:resync']);
    // Out of sync as well: only a changed verdict or rule counts.
    const desynced = [...toolStep(0, { output: 'other' }), ...toolStep(1, { hash: 'other', decision: looser }), ...answerStep(2, 'other-2')];
    const { comparator, out } = await compare(tape(), desynced, { whatIf: true });
    expect(kinds(out)).toEqual(['0:tool_output']);
    expect(comparator.decisionChanges).toBe(0);
  });

  it('with a config of the user\'s, its run_start and thresholds are not news; what it does to the run is, unexpected', async () => {
    const start = (model: string, seed: number, config: Record<string, unknown>): RunEventInput => ({ type: 'run_start', step: 0, task: 'read a', model, seed, config });
    const recorded = [start('m', 1, { seed: 1 }), ...tape()];
    const looser: Partial<Decision> = { threshold: 5, reason: 'identical call 2 of 5' };
    const replayed = [start('n', 2, { seed: 2, model: 'n' }), ...toolStep(0), ...toolStep(1, { decision: looser }), ...answerStep(2)];
    expect((await compare(recorded, replayed, { configReplaced: true })).out).toEqual([]);
    // Each of those is a difference without the user's config (the requests that follow match again).
    expect(kinds((await compare(recorded, [start('m', 2, { seed: 1 }), ...tape()])).out)).toEqual(['0:event', '0:resync']);
    expect(kinds((await compare(recorded, [start('n', 1, { seed: 1 }), ...tape()])).out)).toEqual(['0:event', '0:resync']);
    expect(kinds((await compare(recorded, [start('m', 1, { seed: 2 }), ...tape()])).out)).toEqual(['0:event', '0:resync']);
    // A decision that changed its verdict is behaviour, and unexpected: the user did not say it would change.
    const blocked = [start('n', 2, { seed: 2 }), ...toolStep(0), ...toolStep(1, { decision: blockedAt1 })];
    const { out } = await compare(recorded, blocked, { configReplaced: true });
    expect(out[0]).toMatchObject({ kind: 'decision', step: 1, expected: false });
  });

  it('is back in sync when a later request is the recorded one again, and compares event by event from there', async () => {
    const replayed = [...toolStep(0, { output: 'other' }), ...toolStep(1, { hash: 'other' }), ...toolStep(2), ...answerStep(3)];
    const recorded = [...toolStep(0), ...toolStep(1), ...toolStep(2, { output: 'changed' }), ...answerStep(3)];
    const { comparator, out } = await compare(recorded, replayed);
    // Step 2's output differs again (found only because events are compared again), then step 3 resyncs.
    expect(kinds(out)).toEqual(['0:tool_output', '2:resync', '2:tool_output', '3:resync']);
    expect(out[1]).toMatchObject({ expected: true, message: 'back in sync at step 2: the request matches the tape again' });
    expect(comparator.backInSyncAt).toBe(2);
    expect(comparator.first).toBe(out[0]);
  });

  it('reports a replay that ends while the tape goes on', async () => {
    const { comparator, out } = await compare(tape(), [...toolStep(0), ...toolStep(1)]);
    expect(out).toEqual([
      { type: 'divergence', step: 1, kind: 'event', iteration: 1, expected: false, message: 'the replay ended at step 1 but the tape goes on' },
    ]);
    expect(comparator.first).toBe(out[0]);
  });

  it('an unfinished tape just stops: the replay going on is no divergence, only the exhaustion is reported', async () => {
    const cut = [...toolStep(0), ...toolStep(1).slice(0, 3)];
    const replayed = [...toolStep(0), ...toolStep(1), ...answerStep(2)];
    // The model finds no answer on the tape once asked, i.e. after the request event was seen.
    const exhaust: Setup['before'] = (event, state) => {
      if (event.type !== 'llm_request' && event.step === 2) state.exhaustedAt = 2;
    };
    const { comparator, out } = await compare(cut, replayed, { complete: false, before: exhaust });
    expect(out).toEqual([{ type: 'divergence', step: 2, kind: 'exhausted', iteration: 2, expected: true, message: 'tape exhausted at iteration 2' }]);
    expect(comparator.first).toBeNull();
    // A finished tape that stops there has been departed from.
    const finished = await compare(cut, replayed, { before: exhaust });
    expect(finished.out[0]).toMatchObject({ step: 1, kind: 'event', message: 'the replay has tool call read_file where the tape has nothing more at step 1' });
  });

  it('reports no decision changes at or after the step where the tape ran out', async () => {
    const replayed = [...toolStep(0, { output: 'other' }), ...toolStep(1, { hash: 'other', decision: blockedAt1 }), ...answerStep(2, 'other-2')];
    const exhaust: Setup['before'] = (event, state) => {
      if (event.type !== 'llm_request' && event.step === 1) state.exhaustedAt = 1;
    };
    const { comparator, out } = await compare(tape(), replayed, { before: exhaust });
    expect(kinds(out)).toEqual(['0:tool_output', '1:exhausted']);
    expect(comparator.decisionChanges).toBe(0);
  });

  it('reports what the tape has at the end of a step that the replay never produced', async () => {
    const replayed = [...toolStep(0).slice(0, -1), ...toolStep(1), ...answerStep(2)];
    const { comparator, out } = await compare(tape(), replayed);
    expect(out[0]).toEqual({
      type: 'divergence', step: 0, kind: 'event', iteration: 0, expected: false,
      message: 'the tape has guardrail continue (failures/failure_reset) at step 0 that the replay never produced',
    });
    expect(comparator.first).toBe(out[0]);
    // Off the tape from there, until the next request is the recorded one again.
    expect(kinds(out)).toEqual(['0:event', '1:resync']);
  });
});

interface IdTapeOptions {
  /** The results answer the calls the other way round (same outputs, in the same order). */
  swap?: boolean;
  /** Changes to step 0's first loop_guard decision. */
  decision?: Partial<Decision>;
  temperature?: number;
}

/** Step 0 reads two files (tool-call ids `ids`), step 1 answers; the requests are hashed for real. */
function idTape(ids: [string, string], opts: IdTapeOptions = {}): RunEventInput[] {
  const hash = (messages: ChatMessage[]): string => requestHash({ model: 'm', messages, stream: false, tools: [], temperature: opts.temperature ?? 0 });
  const first: ChatMessage[] = [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'read a and b' }];
  const calls: ToolCall[] = ids.map((id, i) => ({ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: 'ab'[i] }) } }));
  const answers = opts.swap === true ? [ids[1], ids[0]] : ids;
  const results: ChatMessage[] = answers.map((id, i) => ({ role: 'tool', tool_call_id: id, content: 'AB'[i] ?? '' }));
  const second: ChatMessage[] = [{ role: 'assistant', content: null, tool_calls: calls }, ...results];
  const tools: RunEventInput[] = calls.flatMap((call, i): RunEventInput[] => [
    { type: 'tool_call', step: 0, callId: call.id, tool: 'read_file', arguments: call.function.arguments, key: `k${i}` },
    { ...loopGuard(0, i === 0 ? opts.decision : {}), callId: call.id, key: `k${i}` },
    { type: 'tool_result', step: 0, callId: answers[i] ?? '', tool: 'read_file', status: 'ok', output: 'AB'[i] ?? '', durationMs: 3 },
  ]);
  return [
    { type: 'llm_request', step: 0, iteration: 0, hash: hash(first), prefix: 0, append: first, model: 'm', stream: false, tools: ['read_file'] },
    { type: 'llm_response', step: 0, iteration: 0, attempt: 0, durationMs: 5,
      response: { message: { role: 'assistant', content: null, tool_calls: calls }, finishReason: 'tool_calls', usage: { inputTokens: 10, outputTokens: 2 } } },
    ...tools,
    { type: 'llm_request', step: 1, iteration: 1, hash: hash([...first, ...second]), prefix: 2, append: second, model: 'm', stream: false, tools: ['read_file'] },
    ...answerStep(1).slice(1),
  ];
}

describe('ReplayComparator: ids are compared by position, not text', () => {
  const tapeIds: [string, string] = ['call_a1', 'call_b2'];
  const newIds: [string, string] = ['call_Zq9', 'call_0xY'];

  it('finds nothing when the replay differs from the tape only in its tool-call ids', async () => {
    const { comparator, out } = await compare(idTape(tapeIds), idTape(newIds));
    expect(out).toEqual([]);
    expect(comparator.first).toBeNull();
  });

  it('a patched answer that is the recorded one with ids of its own is no divergence', async () => {
    expect((await compare(idTape(tapeIds), idTape(['patch_0_0', 'patch_0_1']), { patched: [0] })).out).toEqual([]);
  });

  it('still reports a tool result that answers the other call, naming the calls by the tape ids', async () => {
    const { comparator, out } = await compare(idTape(tapeIds), idTape(newIds, { swap: true }));
    expect(out[0]).toEqual({
      type: 'divergence', step: 0, kind: 'tool_output', iteration: 0, expected: false,
      message: 'tool_result differs at callId', detail: { path: 'callId', recorded: 'call_a1', replayed: 'call_b2' },
    });
    expect(comparator.first).toBe(out[0]);
    // The conversation then differs beyond ids: no way back onto the tape.
    expect(kinds(out)).toEqual(['0:tool_output']);
  });

  it('is back in sync when a request differs from the tape only in ids', async () => {
    const recount: Partial<Decision> = { counters: { before: { attempts: 0 }, after: { attempts: 5 } } };
    const { comparator, out } = await compare(idTape(tapeIds), idTape(newIds, { decision: recount }));
    expect(kinds(out)).toEqual(['0:event', '1:resync']);
    expect(comparator.backInSyncAt).toBe(1);
  });

  it('does not excuse a request hash that differs in what the tape does not show, ids or not', async () => {
    // Step 0 has no ids yet: its hash differs only because the temperature does.
    const { out } = await compare(idTape(tapeIds), idTape(newIds, { temperature: 1 }));
    expect(out[0]).toMatchObject({ step: 0, kind: 'request', message: 'request 0 differs at request' });
    // Step 1's conversation differs only in ids, but its settings were seen to differ: no resync.
    expect(kinds(out)).toEqual(['0:request']);
    // The limit: the settings are judged by the last requests with the tape's very conversation (step
    // 0 here), so a change after them, in a request that differs in ids too, is not seen. The loop's
    // settings are fixed for a run; a replay's differ from the tape's from its first request on.
    const warmAtOne = idTape(newIds, { temperature: 1 }).slice(-5);
    const { out: late } = await compare(idTape(tapeIds), [...idTape(newIds).slice(0, -5), ...warmAtOne]);
    expect(kinds(late)).toEqual([]);
  });
});
