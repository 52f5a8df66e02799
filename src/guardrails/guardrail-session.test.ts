import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../core/messages.js';
import { InvalidOptionError } from '../core/errors.js';
import { GuardrailSession, resolveGuardrailsConfig, type GuardrailDecision, type GuardrailsConfig } from './guardrail-session.js';

const call = (id: string, name: string, args: unknown): ToolCall => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });

/** One step of one call, run by the session as a framework adapter drives it (no startStep). */
function runStep(session: GuardrailSession, c: ToolCall, status: 'ok' | 'error' = 'ok') {
  const before = session.beforeTool(c);
  const after = before.action === 'allow' ? session.afterTool(c, { status, output: 'out' }) : null;
  return { before, after, end: session.endStep() };
}

describe('GuardrailSession', () => {
  it('the same idempotent call step after step: allowed, skipped as a duplicate, blocked at 3, stopped at the 4th identical step', () => {
    const seen: GuardrailDecision[] = [];
    const session = new GuardrailSession({}, { onDecision: (d) => seen.push(d) });
    const steps = [0, 1, 2, 3].map((i) => runStep(session, call(`c${i}`, 'lookup', { q: 'x' })));
    expect(steps.map((s) => s.before.action)).toEqual(['allow', 'skip', 'block', 'block']);
    expect(steps[1]!.before).toMatchObject({ action: 'skip', earlier: { callId: 'c0', step: 0 } });
    expect(steps.map((s) => s.end.action)).toEqual(['continue', 'continue', 'continue', 'stop']);
    expect(steps[3]!.end).toMatchObject({ rule: 'repetition' });
    expect(seen.filter((d) => d.verdict === 'block').map((d) => [d.step, d.callId, d.rule])).toEqual([
      [2, 'c2', 'identical_call_block'], [3, 'c3', 'identical_call_block'],
    ]);
    // After the stop, nothing more runs.
    expect(session.beforeTool(call('c9', 'other', {})).action).toBe('block');
    expect(session.stop?.rule).toBe('repetition');
  });

  it('startStep checks the repetition before the calls run, on the same counters', () => {
    const session = new GuardrailSession({ maxRepeatedToolSteps: 1, tools: { write: { idempotent: false, mutating: true } } });
    const c = call('a', 'write', { path: 'f' });
    expect(session.startStep([c]).action).toBe('continue');
    session.beforeTool(c);
    session.afterTool(c, { status: 'ok' });
    session.endStep();
    expect(session.startStep([call('b', 'write', { path: 'f' })])).toMatchObject({ action: 'stop', rule: 'repetition' });
  });

  it('named tools take their flags; a named tool without flags is never deduplicated', () => {
    const session = new GuardrailSession({ tools: { send: {} } });
    runStep(session, call('a', 'send', { to: 'x' }));
    expect(runStep(session, call('b', 'send', { to: 'x' })).before.action).toBe('allow');
  });

  it('failures warn, then halt at the end of the step; a halt nudge continues once with the message', () => {
    const session = new GuardrailSession({ failureWarn: 1, failureHalt: 2, haltNudges: 1 });
    const first = runStep(session, call('a', 't', { n: 1 }), 'error');
    expect(first.after).toMatchObject({ verdict: 'warn' });
    expect(first.after?.output).toMatch(/^out\n\nWarning: `t` has failed 1 consecutive times/);
    const second = runStep(session, call('b', 't', { n: 2 }), 'error');
    expect(second.after?.verdict).toBe('halt');
    expect(second.end).toMatchObject({ action: 'continue', nudge: expect.stringContaining('has failed 2 consecutive times') });
    runStep(session, call('c', 't', { n: 3 }), 'error');
    const last = runStep(session, call('d', 't', { n: 4 }), 'error');
    expect(last.end).toMatchObject({ action: 'stop', rule: 'consecutive_failures_halt' });
  });

  it('a timed-out call is a failure of its tool; with no output, the warning is all the model reads', () => {
    const session = new GuardrailSession({ failureWarn: 1, failureHalt: 3 });
    const a = call('a', 't', {});
    session.beforeTool(a);
    const settled = session.afterTool(a, { status: 'timeout' });
    expect(settled.verdict).toBe('warn');
    expect(settled.output).toMatch(/^Warning: `t` has failed 1 consecutive times/);
  });

  it('a named tool without a mutating flag is taken as mutating: its success makes earlier reads stale', () => {
    const session = new GuardrailSession({ tools: { read: { idempotent: true, mutating: false }, save: {} } });
    expect(runStep(session, call('a', 'read', { p: 'f' })).before.action).toBe('allow');
    expect(runStep(session, call('b', 'read', { p: 'f' })).before.action).toBe('skip');
    runStep(session, call('c', 'save', { p: 'f' }));
    expect(runStep(session, call('d', 'read', { p: 'f' })).before.action).toBe('allow');
  });

  it('the lookup option wins over config.tools for a tool both know', () => {
    const spec = { name: 'read', description: '', parameters: {}, idempotent: true, mutating: false, timeoutMs: 0 };
    const session = new GuardrailSession({ tools: { read: { idempotent: false } } }, { lookup: (name) => (name === 'read' ? spec : undefined) });
    runStep(session, call('a', 'read', { p: 'f' }));
    expect(runStep(session, call('b', 'read', { p: 'f' })).before.action).toBe('skip');
  });

  it('a call is settled once: settling it again, or after a new turn began, is refused', () => {
    const session = new GuardrailSession();
    const a = call('a', 'r', {});
    session.beforeTool(a);
    session.afterTool(a, { status: 'ok' });
    expect(() => session.afterTool(a, { status: 'ok' })).toThrow(/was not allowed by beforeTool \(or was settled already\)/);
    const b = call('b', 'r', { n: 1 });
    expect(session.beforeTool(b).action).toBe('allow');
    session.newTurn();
    expect(() => session.afterTool(b, { status: 'ok' })).toThrow(/was not allowed by beforeTool/);
  });

  it('two tools halting in one step: the stop names the first that halted', () => {
    const session = new GuardrailSession({ failureWarn: 1, failureHalt: 1 });
    const a = call('a', 'first', {});
    const b = call('b', 'second', {});
    // A driver that lets a step's calls run at once: both are allowed before either settles.
    session.beforeTool(a);
    session.beforeTool(b);
    expect(session.afterTool(a, { status: 'error' }).verdict).toBe('halt');
    expect(session.afterTool(b, { status: 'error' }).verdict).toBe('halt');
    const end = session.endStep();
    expect(end).toMatchObject({ action: 'stop', rule: 'consecutive_failures_halt' });
    expect(end.action === 'stop' ? end.reason : '').toMatch(/^tool_failures: `first` has failed/);
  });

  it('a step that asked for no calls ends with no decision; after the stop, a step ends in it again, with none either', () => {
    const seen: GuardrailDecision[] = [];
    const session = new GuardrailSession({ maxRepeatedToolSteps: 1 }, { onDecision: (d) => seen.push(d) });
    expect(session.endStep()).toEqual({ action: 'continue', decisions: [] });
    expect(seen).toEqual([]);
    runStep(session, call('a', 'r', {}));
    expect(runStep(session, call('b', 'r', {})).end).toMatchObject({ action: 'stop', rule: 'repetition' });
    const after = runStep(session, call('c', 'r', {}));
    expect(after.before).toMatchObject({ action: 'block', decisions: [{ rule: 'after_stop' }] });
    expect(after.end.decisions).toEqual([]);
    // Every step after the stop ends in it again, as startStep says too: a driver that asks is never told to go on.
    expect(after.end).toMatchObject({ action: 'stop', rule: 'repetition' });
    expect(session.endStep()).toMatchObject({ action: 'stop', rule: 'repetition', decisions: [] });
    expect(session.startStep([])).toMatchObject({ action: 'stop', rule: 'repetition' });
    expect(seen.filter((d) => d.gate === 'repetition').map((d) => d.verdict)).toEqual(['continue', 'stuck']);
  });

  it('after a halt, the rest of the step is refused (after_halt)', () => {
    const session = new GuardrailSession({ failureWarn: 1, failureHalt: 1 });
    const a = call('a', 't', {});
    session.beforeTool(a);
    expect(session.afterTool(a, { status: 'error' }).verdict).toBe('halt');
    expect(session.beforeTool(call('b', 'u', {}))).toMatchObject({ action: 'block', decisions: [{ rule: 'after_halt' }] });
  });

  it('a new turn forgets the per-turn gates, not the step counters', () => {
    const session = new GuardrailSession({ identicalCallBlock: 2 });
    runStep(session, call('a', 'r', {}));
    session.newTurn();
    expect(runStep(session, call('b', 'r', {})).before.action).toBe('allow');
    expect(session.step).toBe(2);
  });

  it('afterTool of a call beforeTool did not allow is refused', () => {
    const session = new GuardrailSession();
    expect(() => session.afterTool(call('x', 'r', {}), { status: 'ok' })).toThrow(/was not allowed by beforeTool/);
  });

  it('a bad setting is named by its guardrails.* key', () => {
    expect(() => resolveGuardrailsConfig({ identicalCallBlock: 0 })).toThrow(/guardrails\.identicalCallBlock/);
    expect(() => resolveGuardrailsConfig({ haltNudges: -1 })).toThrow(/guardrails\.haltNudges/);
    expect(() => resolveGuardrailsConfig({ haltNudges: 1.5 })).toThrow(/guardrails\.haltNudges must be a non-negative integer/);
    expect(resolveGuardrailsConfig({})).toMatchObject({ identicalCallBlock: 3, maxRepeatedToolSteps: 3, haltNudges: 0 });
  });

  it('a key that is no setting, and a tool flag that is not true or false, are refused by name: a typo would be the default unnoticed', () => {
    const bad = (config: unknown) => () => new GuardrailSession(config as GuardrailsConfig);
    expect(bad({ identicalCallBlok: 2 })).toThrow(/^guardrails\.identicalCallBlok is not a guardrails setting$/);
    expect(bad({ maxSteps: 3 })).toThrow(/guardrails\.maxSteps is not a guardrails setting/);
    // 'maybe' is truthy: it would have made the tool idempotent, its duplicates skipped.
    expect(bad({ tools: { send: { idempotent: 'maybe' } } })).toThrow(/^guardrails\.tools\.send\.idempotent must be true or false, got "maybe"$/);
    expect(bad({ tools: { send: { idempotant: false } } })).toThrow(/guardrails\.tools\.send\.idempotant is not a tool flag/);
    expect(bad({ tools: { send: null } })).toThrow(/guardrails\.tools\.send must be an object of flags/);
    expect(bad({ tools: 'send' })).toThrow(/guardrails\.tools must be an object/);
    for (const error of [bad({ tools: { send: null } }), bad({ foo: 1 })]) expect(error).toThrow(InvalidOptionError);
    expect(new GuardrailSession({ tools: { send: { idempotent: false, mutating: undefined } } }).config.identicalCallBlock).toBe(3);
  });
});
