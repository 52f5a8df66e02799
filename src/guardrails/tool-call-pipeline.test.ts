import { describe, expect, it } from 'vitest';
import { callKey } from './call-key.js';
import { denyUnknownTools } from './call-policy.js';
import { LoopGuard } from './loop-guard.js';
import { ReplayControl } from './replay-control.js';
import { decisions, drain, scriptedExecutor, toolCall } from './test-support/pipeline.js';
import { lookupSpec, SPECS, toolSpec } from './test-support/tool-specs.js';
import { runToolCalls, type ToolCallPipelineOptions, type ToolExecutor } from './tool-call-pipeline.js';
import type { ToolCall } from '../core/messages.js';

/** A turn: one ReplayControl and one LoopGuard shared by its steps. */
function turn(execute: ToolExecutor = scriptedExecutor(), extra: Partial<ToolCallPipelineOptions> = {}) {
  const replay = new ReplayControl();
  const guard = new LoopGuard();
  let step = 0;
  return {
    replay,
    guard,
    step: (calls: ToolCall[], more: Partial<ToolCallPipelineOptions> = {}) =>
      drain(runToolCalls(calls, { lookup: lookupSpec, replay, guard, execute, step: ++step, ...extra, ...more })),
  };
}

describe('pipeline order (docs/guardrails.md §5)', () => {
  it('an allowed call: arguments, attempt, dedup, execute, outcome, result — in that order', async () => {
    const t = turn();
    const call = toolCall('read_file', { path: 'a' }, 'c1');
    const { items, outcome } = await t.step([call]);
    expect(items.map((i) => (i.kind === 'decision' ? `${i.record.gate}:${i.record.verdict}` : i.kind))).toEqual([
      'call', 'arguments:allow', 'loop_guard:allow', 'replay_control:allow', 'execute', 'failures:continue', 'result', 'end',
    ]);
    expect(items[0]).toEqual({ kind: 'call', callId: 'c1', tool: 'read_file', call, key: callKey('read_file', { path: 'a' }) });
    expect(decisions(items).map((r) => r.rule)).toEqual(['valid_arguments', 'first_attempt', 'first_call', 'failure_reset']);
    expect(outcome).toEqual({
      results: [{ callId: 'c1', tool: 'read_file', status: 'ok', output: 'read_file output' }], halt: null, stateChanged: false,
    });
    expect(items.at(-1)).toEqual({ kind: 'end', outcome });
  });

  it('every record of a call carries its tool, and the key where the gate has one', async () => {
    const { items } = await turn().step([toolCall('read_file', { path: 'a' })]);
    for (const record of decisions(items)) expect(record.tool).toBe('read_file');
    for (const record of decisions(items).slice(0, 3)) expect(record.key).toBe(callKey('read_file', { path: 'a' }));
  });

  it('yields each call before running it, so a UI can show it first', async () => {
    const ran: string[] = [];
    const gen = runToolCalls([toolCall('read_file', { path: 'a' }, 'c1')], {
      lookup: lookupSpec, replay: new ReplayControl(), guard: new LoopGuard(),
      execute: async (call) => {
        ran.push(call.id);
        return { status: 'ok', output: '' };
      },
    });
    for (;;) {
      const next = await gen.next();
      if (next.done === true) break;
      if (next.value.kind === 'execute') expect(ran).toEqual([]);
      if (next.value.kind === 'result') expect(ran).toEqual(['c1']);
    }
  });

  it('invalid JSON: a tool error, not executed, counted as a failure of that tool', async () => {
    const exec = scriptedExecutor();
    const t = turn(exec);
    const { items, outcome } = await t.step([toolCall('write_file', '{"path": "a", ', 'c1')]);
    expect(exec.ran).toEqual([]);
    expect(outcome.results[0]?.status).toBe('error');
    expect(outcome.results[0]?.output).toMatch(/^arguments are not valid JSON: /);
    expect(decisions(items).map((r) => `${r.gate}:${r.verdict}:${r.rule}`)).toEqual([
      'arguments:block:invalid_json', 'failures:continue:consecutive_failures',
    ]);
    expect(t.guard.failureCount('write_file')).toBe(1);
    expect(t.replay.historySize()).toBe(0);
  });

  it('LoopGuard block: denied with the block message; dedup not consulted; not executed', async () => {
    const exec = scriptedExecutor({ read_file: { status: 'error', output: 'EACCES' } });
    const t = turn(exec);
    const read = () => toolCall('read_file', { path: 'secret' });
    await t.step([read(), read()]);
    const { items, outcome } = await t.step([read()]);
    expect(exec.ran).toHaveLength(2);
    expect(outcome.results[0]?.status).toBe('denied');
    expect(outcome.results[0]?.output).toContain('you have requested `read_file` with exactly these arguments 3 times this turn, with no other call changing the workspace in between');
    expect(decisions(items).map((r) => r.gate)).toEqual(['arguments', 'loop_guard']);
  });

  it('dedup skip: denied as duplicate naming the earlier call; ReplayControl left as it is', async () => {
    const exec = scriptedExecutor();
    const t = turn(exec);
    await t.step([toolCall('read_file', { path: 'a' }, 'first')]);
    const before = JSON.stringify(t.replay);
    const { items, outcome } = await t.step([toolCall('read_file', { path: 'a' }, 'again')]);
    expect(exec.ran).toHaveLength(1);
    expect(JSON.stringify(t.replay)).toBe(before);
    expect(outcome.results[0]).toMatchObject({ status: 'denied' });
    expect(outcome.results[0]?.output).toContain('at step 1 (call first)');
    expect(decisions(items).at(-1)).toMatchObject({ gate: 'replay_control', verdict: 'skip', rule: 'duplicate_success' });
  });

  it('an identical idempotent call step after step: allowed → skipped (duplicate) → blocked (3rd attempt)', async () => {
    const exec = scriptedExecutor();
    const t = turn(exec);
    const verdicts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { items } = await t.step([toolCall('grep_files', { pattern: 'TODO', path: 'src' })]);
      const last = decisions(items).filter((r) => r.gate !== 'failures').at(-1);
      verdicts.push(`${last?.gate}:${last?.verdict}`);
    }
    expect(verdicts).toEqual(['replay_control:allow', 'replay_control:skip', 'loop_guard:block']);
    expect(exec.ran).toHaveLength(1);
  });

  it('outcomes are recorded: error → retry allowed, timeout → retry allowed, ok → duplicate', async () => {
    const exec = scriptedExecutor({
      web_search: [{ status: 'error', output: 'HTTP 502' }, { status: 'timeout', output: 'timed out after 5000 ms' }, { status: 'ok', output: 'Paris' }],
    });
    const t = turn(exec);
    const search = () => toolCall('web_search', { q: 'capital of France' });
    await t.step([search()]);
    expect(t.replay.lookup('web_search', { q: 'capital of France' })?.status).toBe('failure');
    t.guard.noteStateChanged(); // let the test reach a third attempt without a block
    const second = await t.step([search()]);
    expect(decisions(second.items).find((r) => r.gate === 'replay_control')?.rule).toBe('retry_after_failure');
    expect(t.replay.lookup('web_search', { q: 'capital of France' })?.status).toBe('timeout');
    const third = await t.step([search()]);
    expect(decisions(third.items).find((r) => r.gate === 'replay_control')?.rule).toBe('retry_after_timeout');
    expect(third.outcome.results[0]).toMatchObject({ status: 'ok', output: 'Paris' });
    expect(t.replay.lookup('web_search', { q: 'capital of France' })?.status).toBe('success');
    expect(exec.ran).toHaveLength(3);
  });

  it('a warn is appended to that tool result; the counters reset on success', async () => {
    const fail = { status: 'error' as const, output: 'no such file' };
    const exec = scriptedExecutor({ read_file: [fail, fail, fail, { status: 'ok', output: 'x' }] });
    const t = turn(exec);
    const { outcome, items } = await t.step([1, 2, 3, 4].map((n) => toolCall('read_file', { path: `f${n}` })));
    expect(outcome.results.map((r) => r.status)).toEqual(['error', 'error', 'error', 'ok']);
    expect(outcome.results[1]?.output).toBe('no such file');
    expect(outcome.results[2]?.output).toMatch(/^no such file\n\nWarning: `read_file` has failed 3 consecutive times/);
    expect(outcome.results[3]?.output).toBe('x');
    expect(decisions(items).filter((r) => r.gate === 'failures').map((r) => r.verdict)).toEqual(['continue', 'continue', 'warn', 'continue']);
    expect(outcome.halt).toBeNull();
  });

  it('a halt is reported; the rest of the step is denied, not executed, and recorded as denied', async () => {
    const exec = scriptedExecutor({ grep_files: { status: 'error', output: 'bad regex' } });
    const t = turn(exec);
    for (let i = 0; i < 7; i++) t.guard.recordOutcome('grep_files', false);
    const calls = [toolCall('grep_files', { pattern: '(' }, 'h'), toolCall('read_file', { path: 'a' }, 'r'), toolCall('list_dir', '{', 'l')];
    const { items, outcome } = await t.step(calls);
    expect(exec.ran.map((r) => r.tool)).toEqual(['grep_files']);
    expect(outcome.halt).toMatchObject({ callId: 'h', tool: 'grep_files', record: { verdict: 'halt', rule: 'consecutive_failures_halt' } });
    expect(outcome.halt?.message).toContain('failed 8 consecutive times');
    expect(outcome.results.map((r) => r.status)).toEqual(['error', 'denied', 'denied']);
    expect(outcome.results[0]?.output).toBe('bad regex');
    expect(outcome.results[1]?.output).toContain('grep_files');
    expect(decisions(items, 'r')).toEqual([expect.objectContaining({ gate: 'policy', verdict: 'block', rule: 'after_halt' })]);
    expect(t.replay.lookup('read_file', { path: 'a' })?.status).toBe('denied');
    expect(t.guard.attemptCount('read_file', { path: 'a' })).toBe(0);
  });

  it('a halt from invalid arguments is reported too', async () => {
    const t = turn();
    for (let i = 0; i < 7; i++) t.guard.recordOutcome('edit_file', false);
    const { outcome } = await t.step([toolCall('edit_file', 'nope', 'e')]);
    expect(outcome.halt?.callId).toBe('e');
  });
});

describe('state changes (docs/guardrails.md §5)', () => {
  it('read_file a → write_file a → read_file a: the second read runs', async () => {
    const exec = scriptedExecutor();
    const t = turn(exec);
    const { items, outcome } = await t.step([
      toolCall('read_file', { path: 'a' }), toolCall('write_file', { path: 'a', content: 'new' }, 'w'), toolCall('read_file', { path: 'a' }),
    ]);
    expect(exec.ran.map((r) => r.tool)).toEqual(['read_file', 'write_file', 'read_file']);
    expect(outcome.stateChanged).toBe(true);
    expect(items.filter((i) => i.kind === 'state_changed')).toEqual([{ kind: 'state_changed', callId: 'w', tool: 'write_file' }]);
    expect(decisions(items).filter((r) => r.gate === 'replay_control').at(-1)?.rule).toBe('success_before_state_change');
  });

  it('edit then re-run the same test: allowed; re-running with no edit in between: blocked', async () => {
    const runTests = toolSpec('run_tests', { idempotent: false, mutating: false });
    const lookup = (name: string) => (name === 'run_tests' ? runTests : SPECS[name as keyof typeof SPECS]);
    const exec = scriptedExecutor();
    const t = turn(exec, { lookup });
    const test = () => toolCall('run_tests', { filter: 'config' });
    await t.step([test()]);
    await t.step([test()]);
    await t.step([toolCall('edit_file', { path: 'config.ts', find: 'a', replace: 'b' })]);
    await t.step([test()]);
    await t.step([test()]);
    expect(exec.ran).toHaveLength(5);
    const { outcome } = await t.step([test()]);
    expect(outcome.results[0]?.status).toBe('denied');
    expect(outcome.results[0]?.output).toContain('you have requested `run_tests` with exactly these arguments 3 times this turn, with no other call changing the workspace in between');
  });

  it('a mutating call hammered unchanged is still blocked at the 3rd attempt', async () => {
    const exec = scriptedExecutor();
    const t = turn(exec);
    const { outcome } = await t.step([1, 2, 3].map(() => toolCall('exec_shell', { command: 'ls' })));
    expect(outcome.results.map((r) => r.status)).toEqual(['ok', 'ok', 'denied']);
  });

  it('only mutating tools change the state (the seed\'s writes-state predicate, read from ToolSpec)', async () => {
    const t = turn();
    const { items } = await t.step([
      toolCall('write_file', { path: 'a', content: 'x' }, 'write_file'),
      toolCall('edit_file', { path: 'a', find: 'x', replace: 'y' }, 'edit_file'),
      toolCall('exec_shell', { command: 'mkdir -p out' }, 'exec_shell'),
      toolCall('read_file', { path: 'a' }, 'read_file'),
      toolCall('grep_files', { pattern: 'y' }, 'grep_files'),
      toolCall('list_dir', { path: '.' }, 'list_dir'),
    ]);
    expect(items.flatMap((i) => (i.kind === 'state_changed' ? [i.tool] : []))).toEqual(['write_file', 'edit_file', 'exec_shell']);
  });

  it('a failed mutating call resets nothing', async () => {
    const exec = scriptedExecutor({ write_file: { status: 'error', output: 'EROFS' } });
    const t = turn(exec);
    const { outcome } = await t.step([
      toolCall('read_file', { path: 'a' }), toolCall('write_file', { path: 'a', content: 'x' }), toolCall('read_file', { path: 'a' }),
    ]);
    expect(outcome.stateChanged).toBe(false);
    expect(outcome.results.map((r) => r.status)).toEqual(['ok', 'error', 'denied']);
  });

  it('non-idempotent tools are never deduplicated', async () => {
    const exec = scriptedExecutor();
    const t = turn(exec);
    const mail = { to: 'ops@example.com', body: 'deploy done' };
    const { outcome } = await t.step([toolCall('send_email', mail), toolCall('send_email', mail)]);
    expect(outcome.results.map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(exec.ran).toHaveLength(2);
  });
});

describe('other policies (docs/guardrails.md §5)', () => {
  it('denyUnknownTools denies through the policy gate and records the denial; retries stay possible', async () => {
    const exec = scriptedExecutor();
    const t = turn(exec, { policy: denyUnknownTools });
    const nope = () => toolCall('fly_to_moon', { speed: 'fast' });
    const first = await t.step([nope()]);
    expect(exec.ran).toEqual([]);
    expect(first.outcome.results[0]).toMatchObject({ status: 'denied' });
    expect(first.outcome.results[0]?.output).toContain('no tool named `fly_to_moon`');
    expect(decisions(first.items).at(-1)).toMatchObject({ gate: 'policy', verdict: 'block', rule: 'unknown_tool' });
    expect(t.replay.lookup('fly_to_moon', { speed: 'fast' })?.status).toBe('denied');
    const second = await t.step([nope()]);
    expect(decisions(second.items).find((r) => r.gate === 'replay_control')?.rule).toBe('retry_after_denial');
    const third = await t.step([nope()]);
    expect(decisions(third.items).at(-1)).toMatchObject({ gate: 'loop_guard', verdict: 'block' });
  });

  it('known tools pass denyUnknownTools without a record', async () => {
    const { items } = await turn(scriptedExecutor(), { policy: denyUnknownTools }).step([toolCall('read_file', { path: 'a' })]);
    expect(decisions(items).some((r) => r.gate === 'policy')).toBe(false);
  });

  it('policies run in order, may be async, and their allow decisions are recorded', async () => {
    const exec = scriptedExecutor();
    const t = turn(exec, {
      policy: [
        async () => ({ verdict: 'allow', reason: 'recorded on the tape' }),
        (call) => (call.function.name === 'exec_shell' ? { verdict: 'block', rule: 'side_effects', reason: 'side effects off', message: 'Not run: side effects are disabled in replay.' } : undefined),
      ],
    });
    const { items, outcome } = await t.step([toolCall('read_file', { path: 'a' }), toolCall('exec_shell', { command: 'rm -rf build' })]);
    expect(exec.ran.map((r) => r.tool)).toEqual(['read_file']);
    expect(decisions(items).filter((r) => r.gate === 'policy').map((r) => `${r.verdict}:${r.rule}`)).toEqual([
      'allow:policy_allow', 'allow:policy_allow', 'block:side_effects',
    ]);
    expect(outcome.results[1]).toMatchObject({ status: 'denied', output: 'Not run: side effects are disabled in replay.' });
    expect(t.replay.lookup('exec_shell', { command: 'rm -rf build' })?.status).toBe('denied');
  });
});

describe('pipeline edge cases', () => {
  it('an empty step yields only the end', async () => {
    const { items, outcome } = await turn().step([]);
    expect(outcome).toEqual({ results: [], halt: null, stateChanged: false });
    expect(items).toEqual([{ kind: 'end', outcome }]);
  });

  it('an executor that throws ends the pipeline with its error', async () => {
    const t = turn(async () => {
      throw new Error('executor bug');
    });
    await expect(t.step([toolCall('read_file', { path: 'a' })])).rejects.toThrow('executor bug');
  });

  it('an unknown tool without a policy goes to the executor with no spec, deduplicated as idempotent', async () => {
    const seen: unknown[] = [];
    const t = turn(async (_call, _args, spec) => {
      seen.push(spec);
      return { status: 'ok', output: 'done' };
    });
    await t.step([toolCall('mystery', { x: 1 })]);
    const { outcome } = await t.step([toolCall('mystery', { x: 1 })]);
    expect(seen).toEqual([undefined]);
    expect(outcome.results[0]?.status).toBe('denied');
  });

  it('without a step number, a duplicate names the earlier call by id', async () => {
    const replay = new ReplayControl();
    const guard = new LoopGuard();
    const run = (id: string) =>
      drain(runToolCalls([toolCall('read_file', { path: 'a' }, id)], { lookup: lookupSpec, replay, guard, execute: scriptedExecutor() }));
    await run('x1');
    const { outcome } = await run('x2');
    expect(outcome.results[0]?.output).toContain('(call x1)');
    expect(outcome.results[0]?.output).not.toContain('step');
  });
});
