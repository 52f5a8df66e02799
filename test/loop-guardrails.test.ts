/**
 * The guardrails as the whole loop applies them (docs/guardrails.md §3–§6): dedup, identical-call blocking,
 * consecutive-failure warn/halt, resets after a mutation, repetition, max-tokens recovery. What
 * the model reads is checked in the request bodies the scripted server received.
 */
import { describe, expect, it } from 'vitest';
import { decisions, ofType, runEnd, statePath, toolMessages, useLoopHarness } from './support/loop-harness.js';

const harness = useLoopHarness();

describe('dedup and identical calls (docs/guardrails.md §3-§5)', () => {
  it('an identical idempotent read step after step: allowed → skipped (duplicate) → blocked', async () => {
    const run = await harness.run('duplicate-read');
    const { events } = run;
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });

    const results = ofType(events, 'tool_result');
    expect(results.map((r) => [r.step, r.callId, r.status])).toEqual([
      [0, 'call_0_0', 'ok'],
      [1, 'call_1_0', 'denied'],
      [2, 'call_2_0', 'denied'],
    ]);
    // Only the first one ran.
    expect(results[0]?.output).toContain('# calc');

    // Step 1: LoopGuard counts attempt 2 of 3 and lets it through; ReplayControl skips it, naming the first call.
    expect(decisions(events, 'loop_guard', 'call_1_0')).toEqual([expect.objectContaining({ verdict: 'allow', rule: 'identical_call' })]);
    const skip = decisions(events, 'replay_control', 'call_1_0');
    expect(skip).toEqual([expect.objectContaining({ verdict: 'skip', rule: 'duplicate_success' })]);
    expect(skip[0]?.reason).toBe('duplicate of the identical call that succeeded at step 0 (call call_0_0)');
    expect(results[1]?.output).toContain(
      'Not run (duplicate): `read_file` already succeeded with exactly these arguments at step 0 (call call_0_0)',
    );

    // Step 2: the third attempt is blocked by LoopGuard before the dedup gate is asked.
    expect(decisions(events, 'loop_guard', 'call_2_0')).toEqual([
      expect.objectContaining({ verdict: 'block', rule: 'identical_call_block', counters: { before: { attempts: 2 }, after: { attempts: 3 } } }),
    ]);
    expect(decisions(events, 'replay_control', 'call_2_0')).toEqual([]);
    expect(results[2]?.output).toContain('you have requested `read_file` with exactly these arguments 3 times this turn, with no other call changing the workspace in between');

    // The model read each denial as that call's tool message.
    expect(toolMessages(run.bodies[2]).get('call_1_0')).toBe(results[1]?.output);
    expect(toolMessages(run.bodies[3]).get('call_2_0')).toBe(results[2]?.output);
    run.server.assertConsumed();
  });

  it('edit, then re-run the same test command: allowed; hammering it unchanged: blocked', async () => {
    const run = await harness.run('fix-and-retest');
    const { events } = run;
    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });

    const results = ofType(events, 'tool_result');
    expect(results.map((r) => [r.step, r.tool, r.status])).toEqual([
      [0, 'exec_shell', 'error'], // the test fails
      [1, 'exec_shell', 'error'], // fails again: attempt 2 of 3
      [2, 'edit_file', 'ok'], // the fix: a mutating success resets the identical-call counts
      [3, 'exec_shell', 'ok'], // would be attempt 3 without the reset: allowed, and it passes
      [4, 'exec_shell', 'ok'], // attempt 2 since the edit (exec_shell is not idempotent: never skipped)
      [5, 'exec_shell', 'denied'], // attempt 3 with nothing changed in between: blocked
    ]);
    const attempts = decisions(events, 'loop_guard')
      .filter((d) => d.tool === 'exec_shell')
      .map((d) => [d.verdict, d.counters.after['attempts']]);
    expect(attempts).toEqual([['allow', 1], ['allow', 2], ['allow', 1], ['allow', 2], ['block', 3]]);
    expect(results[5]?.output).toContain('you have requested `exec_shell` with exactly these arguments 3 times this turn, with no other call changing the workspace in between');
    expect(results[3]?.output).toContain('ok: add(2, 3) is 5');
    run.server.assertConsumed();
  });
});

describe('consecutive tool failures (docs/guardrails.md §4, §5)', () => {
  it('the 3rd failure carries a warning the model reads; the 8th halts the run: ERROR tool_failures', async () => {
    const run = await harness.run('failing-reads');
    const { events } = run;

    const failures = decisions(events, 'failures');
    expect(failures.map((d) => d.verdict)).toEqual([
      'continue', 'continue', 'warn', 'continue', 'continue', 'continue', 'continue', 'halt',
    ]);
    const results = ofType(events, 'tool_result');
    expect(results).toHaveLength(9);
    expect(results.slice(0, 8).every((r) => r.status === 'error')).toBe(true);
    // The call after the halting one in the same step is not run.
    expect(results[8]).toMatchObject({ callId: 'call_1_5', status: 'denied' });
    expect(results[8]?.output).toBe('Not run: an earlier call in this step (`read_file`) stopped the run for repeated failures.');
    expect(decisions(events, 'policy', 'call_1_5')).toEqual([expect.objectContaining({ verdict: 'block', rule: 'after_halt' })]);
    const warned = results[2];
    expect(warned?.output).toBe(
      "'missing-3.txt' does not exist\n\nWarning: `read_file` has failed 3 consecutive times this turn. Read the errors before calling it again.",
    );
    expect(results[1]?.output).not.toContain('Warning');
    // The warning is in the tool message of the very next request.
    expect(toolMessages(run.bodies[1]).get('call_0_2')).toBe(warned?.output);

    expect(run.result.state).toBe('ERROR');
    expect(run.result.exitCode).toBe(3);
    expect(run.result.reason).toBe(
      'tool_failures: `read_file` has failed 8 consecutive times. Stop retrying it and choose a different approach.',
    );
    expect(runEnd(events)).toMatchObject({ state: 'ERROR', reason: run.result.reason });
    expect(statePath(events).slice(-3)).toEqual(['WAITING_FOR_TOOL', 'RUNNING', 'ERROR']);
    expect(run.bodies).toHaveLength(2);
    expect(run.server.remaining()).toBe(1);
  });

  it('with guardrails.haltNudges 1 the halt is injected as an internal user message and the run goes on', async () => {
    const run = await harness.run('failing-reads', { config: { guardrails: { haltNudges: 1 } } });
    const { events } = run;

    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    const halt = 'read_file` has failed 8 consecutive times. Stop retrying it and choose a different approach.';
    const nudges = ofType(events, 'user_message').filter((m) => m.internal !== undefined);
    expect(nudges).toEqual([expect.objectContaining({ internal: 'halt_nudge' })]);
    expect(nudges[0]?.content).toContain(halt);
    // It follows the halting step's last tool result and precedes the next request.
    const third = ofType(events, 'llm_request')[2];
    const lastResult = ofType(events, 'tool_result').at(-1);
    expect(lastResult?.callId).toBe('call_1_5');
    expect(nudges[0]?.seq).toBeGreaterThan(lastResult?.seq ?? Infinity);
    expect(nudges[0]?.seq).toBeLessThan(third?.seq ?? -1);
    // The model got it as a user message after the tool results, in the third request.
    const sent = run.bodies[2]?.messages ?? [];
    expect(sent.at(-1)).toEqual({ role: 'user', content: nudges[0]?.content });
    expect(sent.at(-2)).toMatchObject({ role: 'tool', tool_call_id: 'call_1_5' });
    expect(toolMessages(run.bodies[2]).get('call_1_4')).toBe('\'missing-8.txt\' does not exist');
    // The llm_request event keeps the tag; the provider sees a plain user message.
    expect(third?.append.at(-1)).toEqual({ role: 'user', content: nudges[0]?.content, internal: { reason: 'halt_nudge' } });
    // The nudge is counted in the session's checkpoint written before the next request (resetFailures
    // itself is covered by the LoopGuard tests; per-turn gate state is not checkpointed).
    const checkpoint = ofType(events, 'checkpoint').filter((c) => c.seq < (third?.seq ?? -1)).at(-1);
    expect(checkpoint?.guardrails).toMatchObject({ nudgesUsed: 1 });
    run.server.assertConsumed();
  });
});

describe('repetition (docs/guardrails.md §6)', () => {
  it('the 4th identical tool step ends the run in ERROR repetition, and its calls are not executed', async () => {
    const run = await harness.run('repeated-step');
    const { events } = run;

    expect(run.result.state).toBe('ERROR');
    expect(run.result.exitCode).toBe(3);
    expect(run.result.reason).toMatch(/^repetition: the same tool calls 4 steps in a row \(stops at 3 repeats\): /);
    expect(run.result.reason).toContain('list_dir');
    expect(run.result.reason).toContain('grep_files');

    const repetition = decisions(events, 'repetition');
    expect(repetition.map((d) => [d.step, d.verdict, d.rule, d.counters.after['repeated']])).toEqual([
      [0, 'continue', 'new_tool_step', 0],
      [1, 'continue', 'repeated_tool_step', 1],
      [2, 'continue', 'repeated_tool_step', 2],
      [3, 'stuck', 'repetition', 3],
    ]);
    // Step 3's calls: no tool_call, no gate decision, no tool_result; the run stops right after the verdict.
    const step3 = events.filter((e) => e.step === 3);
    expect(step3.filter((e) => e.type === 'tool_call' || e.type === 'tool_result')).toEqual([]);
    expect(ofType(events, 'tool_result').map((r) => r.step)).toEqual([0, 0, 1, 1, 2, 2]);
    expect(events.slice(-3).map((e) => e.type)).toEqual(['guardrail', 'state', 'run_end']);
    expect(statePath(events).slice(-2)).toEqual(['RUNNING', 'ERROR']);
    expect(run.result.totals.toolCalls).toBe(6);
    expect(run.server.remaining()).toBe(1);
  });
});

describe('max-tokens recovery (docs/guardrails.md §6)', () => {
  it('finish_reason length: two recoveries (internal user messages in the next requests), then end of turn', async () => {
    const run = await harness.run('length-recoveries');
    const { events } = run;

    expect(run.result).toMatchObject({ state: 'COMPLETED', exitCode: 0, reason: 'the model gave its final answer' });
    expect(decisions(events, 'max_tokens').map((d) => [d.verdict, d.rule])).toEqual([
      ['recover', 'max_tokens_recovery'],
      ['recover', 'max_tokens_recovery'],
      ['continue', 'max_tokens_exhausted'],
    ]);
    const followups = ofType(events, 'user_message').filter((m) => m.internal === 'max_tokens_recovery');
    expect(followups).toHaveLength(2);
    expect(followups[0]?.content).toContain('Continue from exactly where you left off');

    // Request 2 ends with [assistant part 1, recovery]; request 3 with [… part 2, recovery].
    expect(run.bodies).toHaveLength(3);
    const second = run.bodies[1]?.messages ?? [];
    expect(second.slice(-2)).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'Part one of a long answer' }),
      { role: 'user', content: followups[0]?.content },
    ]);
    const third = run.bodies[2]?.messages ?? [];
    expect(third.filter((m) => m.role === 'user' && m.content === followups[0]?.content)).toHaveLength(2);
    expect(third.at(-2)).toMatchObject({ role: 'assistant', content: 'part two of it' });
    // On the tape side (llm_request deltas) the recoveries keep their tag.
    for (const request of ofType(events, 'llm_request').slice(1)) {
      expect(request.append.at(-1)).toEqual({ role: 'user', content: followups[0]?.content, internal: { reason: 'max_tokens_recovery' } });
    }
    run.server.assertConsumed();
  });
});
