import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestHash } from '../agent/request-delta.js';
import type { RunEvent, RunEventInput } from '../core/events.js';
import type { ChatMessage, ToolCall } from '../core/messages.js';
import { firstDifference } from '../core/first-difference.js';
import { UNSEEN_DIFFERENCE } from './request-difference.js';
import { answerStep, base, diff, run, start } from './test-support/diff-runs.js';

// ---- Ids are labels: runs whose tool-call ids differ only in text -------------------------------

/** A run as a template: which calls each step makes and which results answer them; ids come from `idOf`. */
interface RunTemplate {
  task: string;
  temperature?: number;
  steps: StepTemplate[];
  answer: string;
}

interface StepTemplate {
  stream: boolean;
  calls: string[];
  /** In the order the results come: the call each answers, and its output or the earlier call it duplicates. */
  results: { call: number; output: string | { dup: [number, number] } }[];
}

type IdOf = (step: number, call: number) => string;
const plainIds: IdOf = (step, call) => `call_${step}_${call}`;

/** The events of `template` with the ids `idOf` gives: requests with real hashes, chunks, duplicates quoting earlier calls. */
function buildRun(template: RunTemplate, idOf: IdOf): RunEvent[] {
  const inputs: RunEventInput[] = [...start(template.task)];
  const conversation: ChatMessage[] = [];
  let pending: ChatMessage[] = [{ role: 'system', content: 'be brief' }, { role: 'user', content: template.task }];
  const request = (step: number): RunEventInput => {
    const prefix = conversation.length;
    conversation.push(...pending);
    const append = pending;
    pending = [];
    const hash = requestHash({ model: 'm', messages: conversation, stream: false, tools: [], temperature: template.temperature ?? 0 });
    return { type: 'llm_request', step, iteration: step, hash, prefix, append, model: 'm', stream: false, tools: ['read_file'] };
  };
  template.steps.forEach((t, step) => {
    inputs.push(request(step));
    const calls: ToolCall[] = t.calls.map((args, i) => ({ id: idOf(step, i), type: 'function', function: { name: 'read_file', arguments: args } }));
    if (t.stream) {
      inputs.push({
        type: 'llm_chunk', step, iteration: step, attempt: 0,
        chunk: { index: 0, offsetMs: 3, finished: false, toolCalls: calls.map((c, index) => ({ index, id: c.id, name: 'read_file', arguments: c.function.arguments })) },
      });
    }
    const message: ChatMessage = { role: 'assistant', content: null, tool_calls: calls };
    inputs.push(
      { type: 'llm_response', step, iteration: step, attempt: 0, durationMs: 5, response: { message, finishReason: 'tool_calls', usage: { inputTokens: 10, outputTokens: 2 } } },
      { type: 'state', step, from: 'RUNNING', to: 'WAITING_FOR_TOOL', reason: 'running tool calls' },
    );
    pending.push(message);
    for (const result of t.results) {
      const callId = idOf(step, result.call);
      const args = t.calls[result.call] ?? '{}';
      const dup = typeof result.output === 'string' || step === 0 ? null : resolveDup(template, step, result.output.dup);
      const quoted = dup === null ? '' : `at step ${dup[0]} (call ${idOf(dup[0], dup[1])})`;
      const output = typeof result.output === 'string' ? result.output : dup === null ? 'x' : `Not run (duplicate): \`read_file\` already succeeded ${quoted}.`;
      inputs.push(
        { type: 'tool_call', step, callId, tool: 'read_file', arguments: args, key: `k${args}` },
        {
          type: 'guardrail', step, callId, gate: 'replay_control', verdict: dup === null ? 'allow' : 'skip', rule: dup === null ? 'first_call' : 'duplicate_success',
          tool: 'read_file', counters: { before: {}, after: {} }, reason: dup === null ? 'new call' : `duplicate of the identical call that succeeded ${quoted}`,
        },
        { type: 'tool_result', step, callId, tool: 'read_file', status: dup === null ? 'ok' : 'denied', output, durationMs: 2 },
      );
      pending.push({ role: 'tool', tool_call_id: callId, content: output });
    }
    inputs.push({ type: 'state', step, from: 'WAITING_FOR_TOOL', to: 'RUNNING', reason: 'tool results returned to the model' });
  });
  inputs.push(...answerStep(template.steps.length, template.answer).map((input) => (input.type === 'llm_request' ? request(input.step) : input)));
  return run(inputs);
}

/** The earlier call a duplicate quotes: some call of some earlier step. */
function resolveDup(template: RunTemplate, step: number, [s, c]: [number, number]): [number, number] | null {
  const at = s % step;
  const count = template.steps[at]?.calls.length ?? 0;
  return count === 0 ? null : [at, c % count];
}

/** What a diff found, without the values: per step whether it differs and where. */
async function shape(a: RunEvent[], b: RunEvent[]): Promise<unknown[]> {
  const { steps } = await diff(a, b);
  return steps.map(({ step, same, firstDifference: d }) => [step, same, d && [d.index, d.typeA, d.typeB, d.path]]);
}

/** The diff without id labels: each step on its own, every field compared as written (a request hash that alone differs named by what it stands for). */
function oldShape(a: RunEvent[], b: RunEvent[]): unknown[] {
  const byStep = (events: RunEvent[]): Map<number, RunEvent[]> => {
    const steps = new Map<number, RunEvent[]>();
    for (const e of events) if (e.type !== 'divergence') steps.set(e.step, [...(steps.get(e.step) ?? []), e]);
    return steps;
  };
  const normalize = (event: RunEvent): Record<string, unknown> => {
    const { seq: _seq, t: _t, ...copy } = event as RunEvent & { durationMs?: number };
    delete (copy as { durationMs?: number }).durationMs;
    if (event.type === 'llm_chunk') (copy as Record<string, unknown>).chunk = { ...event.chunk, offsetMs: undefined };
    return copy;
  };
  // Each request's whole conversation, rebuilt from its delta: what a hash that alone differs stands for.
  const conversations = (events: RunEvent[]): Map<RunEvent, unknown[]> => {
    const found = new Map<RunEvent, unknown[]>();
    let messages: unknown[] = [];
    for (const e of events) {
      if (e.type !== 'llm_request') continue;
      messages = [...messages.slice(0, e.prefix), ...e.append];
      found.set(e, messages);
    }
    return found;
  };
  const [talkA, talkB] = [conversations(a), conversations(b)];
  const hashCause = (p: RunEvent, q: RunEvent): string => {
    const { hash: _x, ...x } = normalize(p);
    const { hash: _y, ...y } = normalize(q);
    const shown = firstDifference(x, y);
    if (shown !== null) return shown.path;
    const [m = [], n = []] = [talkA.get(p), talkB.get(q)];
    for (let i = 0; i < Math.max(m.length, n.length); i++) if (JSON.stringify(m[i]) !== JSON.stringify(n[i])) return `messages[${i}]`;
    return UNSEEN_DIFFERENCE;
  };
  const left = byStep(a);
  const right = byStep(b);
  const steps = [...new Set([...left.keys(), ...right.keys()])].sort((x, y) => x - y);
  return steps.map((step) => {
    const x = left.get(step) ?? null;
    const y = right.get(step) ?? null;
    let found: unknown[] | undefined;
    for (let i = 0; found === undefined && i < Math.max(x?.length ?? 0, y?.length ?? 0); i++) {
      const p = x?.[i];
      const q = y?.[i];
      if (p === undefined || q === undefined) found = [i, p?.type ?? null, q?.type ?? null, '(event)'];
      else if (p.type !== q.type) found = [i, p.type, q.type, 'type'];
      else {
        const d = firstDifference(normalize(p), normalize(q));
        if (d !== null) found = [i, p.type, q.type, d.path === 'hash' ? hashCause(p, q) : d.path];
      }
    }
    if (found === undefined && (x === null || y === null)) found = [0, null, null, '(event)'];
    return [step, found === undefined, found];
  });
}

const twoCalls = (): RunTemplate => ({
  task: 'read both',
  steps: [
    { stream: true, calls: ['{"path":"a"}', '{"path":"b"}'], results: [{ call: 0, output: 'A' }, { call: 1, output: 'B' }] },
    { stream: false, calls: ['{"path":"a"}'], results: [{ call: 0, output: { dup: [0, 0] } }] },
  ],
  answer: 'done',
});

describe('diffRuns: ids are compared by position, not text', () => {
  const random: IdOf = (step, call) => `call_${['Qx7', 'p0Z', 'mm2'][call]}${step}f`;

  it('finds two runs identical that differ only in the text of their tool-call ids (responses, chunks, results, requests, quotes)', async () => {
    const a = buildRun(twoCalls(), plainIds);
    const b = buildRun(twoCalls(), random);
    expect(a.find((e) => e.type === 'llm_request' && e.step === 1)).not.toEqual(b.find((e) => e.type === 'llm_request' && e.step === 1));
    const { steps, summary } = await diff(a, b);
    expect(summary).toEqual({ identical: true, firstDifferenceStep: null, stepsA: 3, stepsB: 3, differingSteps: 0, identicalSteps: 3 });
    // The summaries keep the ids as the tape has them.
    expect(steps[0]?.a?.tools.map((t) => t.callId)).toEqual(['call_0_0', 'call_0_1']);
    expect(steps[0]?.b?.tools.map((t) => t.callId)).toEqual(['call_Qx70f', 'call_p0Z0f']);
  });

  it('still reports a tool result that answers the other call, by the labels of the two calls', async () => {
    const swapped = twoCalls();
    swapped.steps[0]!.results = [{ call: 1, output: 'A' }, { call: 0, output: 'B' }];
    const { steps } = await diff(buildRun(twoCalls(), plainIds), buildRun(swapped, random));
    expect(steps[0]?.firstDifference).toEqual({ index: 6, typeA: 'tool_call', typeB: 'tool_call', path: 'arguments', a: '{"path":"a"}', b: '{"path":"b"}' });
    // Same arguments for both calls: then only the id says which call a result answers.
    const same = (t: RunTemplate): RunTemplate => ({ ...t, steps: t.steps.map((s) => ({ ...s, calls: s.calls.map(() => '{"path":"a"}') })) });
    const { steps: again } = await diff(buildRun(same(twoCalls()), plainIds), buildRun(same(swapped), random));
    expect(again[0]?.firstDifference).toEqual({ index: 6, typeA: 'tool_call', typeB: 'tool_call', path: 'callId', a: 'call#0.0', b: 'call#0.1' });
  });

  it('a duplicate quoting another earlier call differs', async () => {
    const other = twoCalls();
    other.steps[1]!.results = [{ call: 0, output: { dup: [0, 1] } }];
    const { steps } = await diff(buildRun(twoCalls(), plainIds), buildRun(other, random));
    expect(steps[1]?.firstDifference).toMatchObject({ typeA: 'guardrail', path: 'reason' });
    expect(steps[1]?.firstDifference?.a).toContain('(call call#0.0)');
    expect(steps[1]?.firstDifference?.b).toContain('(call call#0.1)');
  });

  it('compares request hashes when the conversations are the same text; ids alone do not excuse settings that differ', async () => {
    const warmer = { ...twoCalls(), temperature: 1 };
    // Same ids: every request's hash differs, because the settings do.
    const same = await diff(buildRun(twoCalls(), plainIds), buildRun(warmer, plainIds));
    expect(same.steps.map((s) => s.firstDifference?.path)).toEqual([UNSEEN_DIFFERENCE, UNSEEN_DIFFERENCE, UNSEEN_DIFFERENCE]);
    // Other ids too: step 0 (no ids yet) shows the settings differ, so the later hashes are not excused.
    const renamed = await diff(buildRun(twoCalls(), plainIds), buildRun(warmer, random));
    expect(renamed.steps.map((s) => s.firstDifference?.path)).toEqual([UNSEEN_DIFFERENCE, UNSEEN_DIFFERENCE, UNSEEN_DIFFERENCE]);
  });

  it('reports a request whose conversation differs beyond ids (an earlier step did) at the first message that differs', async () => {
    const other = twoCalls();
    other.steps[0]!.results[1] = { call: 1, output: 'B2' };
    const { steps } = await diff(buildRun(twoCalls(), plainIds), buildRun(other, random));
    // Message 4 is the second tool result of step 0 (after the system, user and assistant messages and the first result).
    expect(steps.map((s) => [s.same, s.firstDifference?.path])).toEqual([[false, 'output'], [false, 'append[2].content'], [false, 'messages[4]']]);
    const last = steps[2]?.firstDifference;
    expect(last?.a).toMatch(/^[0-9a-f]{64}$/);
    expect(last?.b).toMatch(/^[0-9a-f]{64}$/);
    expect(last?.a).not.toBe(last?.b);
  });

  it('names a field the tape shows that differs along with the hash (one that sorts after it), not the hash', async () => {
    const a = run(base());
    const b = run(base()).map((e) => (e.type === 'llm_request' && e.step === 1 ? { ...e, hash: 'other', params: { top_p: 0.5 } } : e));
    const { steps } = await diff(a, b);
    expect(steps[1]?.firstDifference).toEqual({ index: 0, typeA: 'llm_request', typeB: 'llm_request', path: 'params', a: undefined, b: { top_p: 0.5 } });
  });

  const template: fc.Arbitrary<RunTemplate> = fc.record({
    task: fc.constantFrom('read', 'write'),
    steps: fc.array(
      fc.integer({ min: 1, max: 3 }).chain((n) => fc.record({
        stream: fc.boolean(),
        calls: fc.array(fc.constantFrom('{"path":"a"}', '{"path":"b"}'), { minLength: n, maxLength: n }),
        results: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }).chain((order) => fc.tuple(
          ...order.map((call) => fc.record({
            call: fc.constant(call),
            output: fc.oneof(fc.constantFrom('x', 'y'), fc.record({ dup: fc.tuple(fc.nat(5), fc.nat(5)) })),
          })),
        )),
      })),
      { minLength: 1, maxLength: 3 },
    ),
    answer: fc.constantFrom('done', 'fine'),
  });

  /** One change somewhere (or none): an output, arguments, which call a result answers, the stream, the task, the answer. */
  const mutation = fc.record({ kind: fc.constantFrom('none', 'output', 'args', 'order', 'drop', 'stream', 'task', 'answer'), step: fc.nat(), at: fc.nat() });
  function mutate(t: RunTemplate, m: { kind: string; step: number; at: number }): RunTemplate {
    const copy: RunTemplate = structuredClone(t);
    const step = copy.steps[m.step % copy.steps.length]!;
    const result = step.results[m.at % step.results.length]!;
    if (m.kind === 'output') result.output = typeof result.output === 'string' ? `${result.output}!` : 'x';
    if (m.kind === 'args') step.calls[m.at % step.calls.length] = '{"path":"c"}';
    if (m.kind === 'order') step.results.reverse();
    if (m.kind === 'drop' && step.calls.length > 1) {
      step.calls.pop();
      step.results = step.results.filter((r) => r.call < step.calls.length);
    }
    if (m.kind === 'stream') step.stream = !step.stream;
    if (m.kind === 'task') copy.task = `${copy.task}?`;
    if (m.kind === 'answer') copy.answer = `${copy.answer}?`;
    return copy;
  }

  /** An injective renaming of one run's ids (distinct texts, as a provider makes them up). */
  const renaming: fc.Arbitrary<IdOf> = fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/), { minLength: 16, maxLength: 16 })
    .map((ids) => (step: number, call: number) => ids[step * 4 + call] ?? `overflow_${step}_${call}`);

  it('property: renaming either run\'s ids never changes what the diff finds, and with the same ids it finds what it always did', async () => {
    await fc.assert(
      fc.asyncProperty(template, mutation, renaming, renaming, async (t, m, idsA, idsB) => {
        const other = mutate(t, m);
        const plain = await shape(buildRun(t, plainIds), buildRun(other, plainIds));
        expect(plain).toEqual(oldShape(buildRun(t, plainIds), buildRun(other, plainIds)));
        expect(await shape(buildRun(t, idsA), buildRun(other, idsB))).toEqual(plain);
        if (m.kind === 'none') expect(plain.every((s) => (s as unknown[])[1] === true)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
