import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventInput } from '../core/events.js';
import { TapeFormatError } from '../core/errors.js';
import type { ChatMessage } from '../core/messages.js';
import { diffRuns, type StepDiff } from './run-diff.js';
import { summarizeStep } from './run-diff-summary.js';
import { UNSEEN_DIFFERENCE } from './request-difference.js';
import { answerStep, base, diff, run, start, toolStep } from './test-support/diff-runs.js';

describe('diffRuns', () => {
  it('finds two equal runs identical, step by step', async () => {
    const { steps, summary } = await diff(run(base()), run(base()));
    expect(steps.map((s) => [s.step, s.same])).toEqual([[0, true], [1, true], [2, true]]);
    expect(steps.every((s) => s.firstDifference === undefined)).toBe(true);
    expect(summary).toEqual({ identical: true, firstDifferenceStep: null, stepsA: 3, stepsB: 3, differingSteps: 0, identicalSteps: 3 });
  });

  it('ignores timing (t, durationMs, chunk offsets), seq, and the divergence notes of a replay', async () => {
    const a = run(base());
    const withNote: RunEventInput[] = base();
    withNote.splice(4, 0, { type: 'divergence', step: 0, iteration: 0, kind: 'resync', expected: true, message: 'back in sync' });
    const b = run(withNote, (seq) => seq * 1000).map((e) => ('durationMs' in e ? { ...e, durationMs: 999 } : e));
    const chunk = (offsetMs: number, seq: number): RunEvent =>
      ({ type: 'llm_chunk', seq, step: 2, t: offsetMs, iteration: 2, attempt: 0, chunk: { index: 0, offsetMs, content: 'done', finished: true } });
    a.splice(-3, 0, chunk(4, 100));
    b.splice(-3, 0, chunk(400, 200));
    const { summary } = await diff(a, b);
    expect(summary.identical).toBe(true);
    expect(summary.stepsB).toBe(3);
  });

  it('points at the first differing tool result, field by field, and marks later steps too', async () => {
    const b = [...start(), ...toolStep(0), ...toolStep(1, { output: '# other' }), ...answerStep(2, 'something else')];
    const { steps, summary } = await diff(run(base()), run(b));
    expect(steps.map((s) => s.same)).toEqual([true, false, false]);
    expect(steps[1]?.firstDifference).toEqual({ index: 5, typeA: 'tool_result', typeB: 'tool_result', path: 'output', a: '# demo', b: '# other' });
    expect(steps[1]?.a?.tools).toEqual([{ callId: 'call_1', tool: 'read_file', arguments: '{"path":"README.md"}', status: 'ok', output: '# demo' }]);
    expect(steps[1]?.b?.tools[0]?.output).toBe('# other');
    expect(steps[2]?.firstDifference).toMatchObject({ index: 1, typeA: 'llm_response', path: 'response.message.content', a: 'done', b: 'something else' });
    expect(summary).toMatchObject({ identical: false, firstDifferenceStep: 1, differingSteps: 2, identicalSteps: 1 });
  });

  it('reports a differing guardrail decision with its verdict and rule on each side', async () => {
    const b = [...start(), ...toolStep(0, { verdict: 'block' }), ...toolStep(1), ...answerStep(2)];
    const { steps, summary } = await diff(run(base()), run(b));
    const first = steps[0];
    expect(first?.same).toBe(false);
    expect(first?.firstDifference).toMatchObject({ index: 6, typeA: 'guardrail', typeB: 'guardrail', path: 'rule', a: 'identical_call', b: 'identical_call_block' });
    expect(first?.a?.decisions).toEqual([{ gate: 'loop_guard', verdict: 'allow', rule: 'identical_call', tool: 'read_file', reason: 'identical call 2 of 3' }]);
    expect(first?.b?.decisions[0]?.verdict).toBe('block');
    expect(first?.b?.tools[0]?.status).toBe('denied');
    expect(summary.firstDifferenceStep).toBe(0);
  });

  it('shows the steps only one side has, and counts each side', async () => {
    const a = [...start(), ...toolStep(0), ...answerStep(1)];
    const { steps, summary } = await diff(run(a), run(base()));
    expect(steps.map((s) => [s.step, s.same, s.a === null, s.b === null])).toEqual([
      [0, true, false, false],
      [1, false, false, false],
      [2, false, true, false],
    ]);
    expect(steps[1]?.firstDifference).toMatchObject({ index: 1, path: 'response.finishReason', a: 'stop', b: 'tool_calls' });
    expect(steps[2]?.firstDifference).toMatchObject({ index: 0, typeA: null, typeB: 'llm_request', path: '(event)' });
    expect(steps[2]?.b?.end).toEqual({ state: 'COMPLETED', reason: 'the model gave its final answer' });
    expect(summary).toEqual({ identical: false, firstDifferenceStep: 1, stepsA: 2, stepsB: 3, differingSteps: 2, identicalSteps: 1 });
  });

  it('counts the steps a run\'s totals count: where the loop ends, at the step after its last, is no step of its own', async () => {
    // As the loop writes it: the final answer at step 1, a checkpoint, then the end at step 2.
    const endsAfter = (answered: number): RunEventInput[] => answerStep(answered).flatMap((e) =>
      e.type === 'state' || e.type === 'run_end' ? [{ ...e, step: answered + 1 }] : e.type === 'llm_response' ? [e, { type: 'checkpoint', step: answered, guardrails: {} } as RunEventInput] : [e]);
    const loop = [...start(), ...toolStep(0), ...endsAfter(1)];
    const same = await diff(run(loop), run(loop));
    expect(same.steps.map((s) => s.step)).toEqual([0, 1]);
    expect(same.summary).toMatchObject({ identical: true, stepsA: 2, stepsB: 2 });
    expect(same.steps[1]?.a?.end).toEqual({ state: 'COMPLETED', reason: 'the model gave its final answer' });
    // Against a run that goes on at step 2, the end is part of A's step 1: that is where they part.
    const longer = await diff(run(loop), run([...start(), ...toolStep(0), ...toolStep(1), ...endsAfter(2)]));
    expect(longer.summary).toEqual({ identical: false, firstDifferenceStep: 1, stepsA: 2, stepsB: 3, differingSteps: 2, identicalSteps: 1 });
  });

  it('joins a step of closing events alone to the step before it, wherever it is', async () => {
    const closing: RunEventInput[] = [{ type: 'checkpoint', step: 1, guardrails: {} }, { type: 'state', step: 1, from: 'RUNNING', to: 'RUNNING', reason: 'resumed' }];
    const a = [...start(), ...toolStep(0), ...closing, ...answerStep(2)];
    const { steps, summary } = await diff(run(a), run(a));
    expect(steps.map((s) => [s.step, s.a?.events])).toEqual([[0, 2 + 7 + 2], [2, 4]]);
    expect(summary).toMatchObject({ identical: true, stepsA: 2, stepsB: 2 });
  });

  it('names what a request\'s hash alone differs in from the conversation that request had, not a later one', async () => {
    const request = (prefix: number, append: ChatMessage[], hash: string): RunEventInput =>
      ({ type: 'llm_request', step: 0, iteration: 0, hash, prefix, append, model: 'm', stream: false, tools: [] });
    const side = (hash: string, extra: string): RunEvent[] => run([
      ...start(),
      request(0, [{ role: 'user', content: 'hi' }], hash),
      { type: 'llm_error', step: 0, iteration: 0, attempt: 0, kind: 'recoverable', message: 'busy' },
      request(1, [{ role: 'user', content: extra }], 'same'),
    ]);
    const { steps } = await diff(side('h-a', 'more from A'), side('h-b', 'more from B'));
    expect(steps[0]?.firstDifference).toMatchObject({ index: 2, typeA: 'llm_request', path: UNSEEN_DIFFERENCE, a: 'h-a', b: 'h-b' });
  });

  it('reports an extra event and a different event type at their position', async () => {
    const a = run(base());
    const extra = base();
    extra.splice(2 + 7 - 1, 0, { type: 'warning', step: 0, message: 'stream closed without a finish reason' });
    const { steps } = await diff(a, run(extra));
    expect(steps[0]?.firstDifference).toMatchObject({ index: 8, typeA: 'state', typeB: 'warning', path: 'type' });
    expect(steps[0]?.b?.warnings).toEqual(['stream closed without a finish reason']);
  });

  it('refuses a run whose steps go backwards (bad tape)', async () => {
    const bad = run([...start(), ...toolStep(1), ...toolStep(0)]);
    await expect(diff(run(base()), bad)).rejects.toBeInstanceOf(TapeFormatError);
  });

  it('takes a step that comes back in a run recorded at the transport (overlapping calls) with the step under way', async () => {
    const overlapping = run([...start(), ...toolStep(1), ...toolStep(0)]);
    const { summary } = await diff(overlapping, overlapping, [true, true]);
    expect(summary).toMatchObject({ identical: true, stepsA: 2, stepsB: 2 });
    // Only the transport-recorded side is let off.
    await expect(diff(overlapping, overlapping, [true, false])).rejects.toBeInstanceOf(TapeFormatError);
  });

  it('streams: a caller can stop early, and endless runs are read one step at a time', async () => {
    let read = 0;
    let closed = 0;
    async function* endless(): AsyncGenerator<RunEvent> {
      try {
        for (let step = 0; ; step++) {
          for (const event of run(toolStep(step))) {
            read++;
            yield event;
          }
        }
      } finally {
        closed++;
      }
    }
    const steps: StepDiff[] = [];
    for await (const step of diffRuns(endless(), endless())) {
      steps.push(step);
      if (steps.length === 3) break;
    }
    expect(steps.map((s) => s.same)).toEqual([true, true, true]);
    // Three steps and the first event of the fourth, per side.
    expect(read).toBe(2 * (3 * 7 + 1));
    expect(closed).toBe(2);
  });
});

describe('summarizeStep', () => {
  it('clips long text to one line and pairs each tool call with its outcome', () => {
    const events = run([...start('x'), ...toolStep(0, { output: `line one\n${'y'.repeat(500)}` })]);
    const summary = summarizeStep(events);
    expect(summary.user).toEqual([]);
    expect(summary.model).toEqual({ text: null, toolCalls: [{ name: 'read_file', arguments: '{"path":"README.md"}' }], finishReason: 'tool_calls' });
    expect(summary.tools[0]?.output).toHaveLength(200);
    expect(summary.tools[0]?.output?.startsWith('line one y')).toBe(true);
    expect(summary.states).toEqual([
      { from: null, to: 'RUNNING' }, { from: 'RUNNING', to: 'WAITING_FOR_TOOL' }, { from: 'WAITING_FOR_TOOL', to: 'RUNNING' },
    ]);
    expect(summary.events).toBe(9);
  });
});
