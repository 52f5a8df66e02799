import { describe, expect, it } from 'vitest';
import { TapeFormatError } from '../core/errors.js';
import { callKey } from './call-key.js';
import { ReplayControl } from './replay-control.js';
import { SPECS } from './test-support/tool-specs.js';

const q = { q: 'capital of France' };

describe('ReplayControl decision table (docs/guardrails.md §3)', () => {
  it('non-idempotent tool: allow, always, even after a success', () => {
    const rc = new ReplayControl();
    const mail = { to: 'a@example.com', body: 'hi' };
    for (let i = 0; i < 3; i++) {
      const evaluation = rc.evaluate('send_email', mail, SPECS.send_email);
      expect(evaluation.skip).toBe(false);
      expect(evaluation.record).toMatchObject({ gate: 'replay_control', verdict: 'allow', rule: 'non_idempotent', tool: 'send_email' });
      rc.recordSuccess('send_email', mail);
    }
    expect(rc.shouldSkip('send_email', mail, SPECS.send_email)).toEqual({ skip: false });
  });

  it('idempotent, first call with this key: allow', () => {
    const rc = new ReplayControl();
    expect(rc.shouldSkip('read_file', { path: 'a' }, SPECS.read_file)).toEqual({ skip: false });
    expect(rc.evaluate('read_file', { path: 'a' }, SPECS.read_file).record.rule).toBe('first_call');
  });

  it('idempotent, prior call succeeded: skip as duplicate, naming the earlier call', () => {
    const rc = new ReplayControl();
    rc.recordSuccess('read_file', { path: 'a' }, { step: 2, callId: 'call_7' });
    const decision = rc.shouldSkip('read_file', { path: 'a' }, SPECS.read_file);
    expect(decision.skip).toBe(true);
    expect(decision.reason).toContain('duplicate');
    expect(decision.reason).toContain('read_file');
    expect(decision.reason).toContain('at step 2');
    expect(decision.reason).toContain('call_7');
    const { record } = rc.evaluate('read_file', { path: 'a' }, SPECS.read_file);
    expect(record).toMatchObject({ verdict: 'skip', rule: 'duplicate_success', key: callKey('read_file', { path: 'a' }) });
    expect(record.reason).toBe('duplicate of the identical call that succeeded at step 2 (call call_7)');
  });

  it('without a context, the reason names the earlier call by its position in the turn', () => {
    const rc = new ReplayControl();
    rc.recordFailure('grep_files', { pattern: 'x' });
    rc.recordSuccess('read_file', { path: 'a' });
    expect(rc.shouldSkip('read_file', { path: 'a' }).reason).toContain('(outcome 2 this turn)');
  });

  it('idempotent, prior call failed: allow (retry)', () => {
    const rc = new ReplayControl();
    rc.recordFailure('read_file', { path: 'a' });
    expect(rc.shouldSkip('read_file', { path: 'a' }, SPECS.read_file)).toEqual({ skip: false });
    expect(rc.evaluate('read_file', { path: 'a' }, SPECS.read_file).record.rule).toBe('retry_after_failure');
  });

  it('idempotent, prior call timed out: allow (retry)', () => {
    const rc = new ReplayControl();
    rc.recordTimeout('web_search', q);
    expect(rc.shouldSkip('web_search', q, SPECS.web_search)).toEqual({ skip: false });
    expect(rc.evaluate('web_search', q, SPECS.web_search).record.rule).toBe('retry_after_timeout');
  });

  it('idempotent, prior call was denied: allow (a denial is not a prior success)', () => {
    const rc = new ReplayControl();
    rc.recordDenied('read_file', { path: 'a' });
    expect(rc.shouldSkip('read_file', { path: 'a' }, SPECS.read_file)).toEqual({ skip: false });
    expect(rc.evaluate('read_file', { path: 'a' }, SPECS.read_file).record.rule).toBe('retry_after_denial');
  });

  it('a denial after a success does not erase the success', () => {
    const rc = new ReplayControl();
    rc.recordSuccess('read_file', { path: 'a' });
    rc.recordDenied('read_file', { path: 'a' });
    expect(rc.shouldSkip('read_file', { path: 'a' }).skip).toBe(true);
  });

  it('a later failure replaces an earlier success (the latest outcome counts)', () => {
    const rc = new ReplayControl();
    rc.recordSuccess('read_file', { path: 'a' });
    rc.recordFailure('read_file', { path: 'a' });
    expect(rc.shouldSkip('read_file', { path: 'a' }).skip).toBe(false);
  });

  it('registry miss: treated as idempotent, so a repeated success is skipped', () => {
    const rc = new ReplayControl();
    rc.recordSuccess('mystery', { x: 1 });
    expect(rc.shouldSkip('mystery', { x: 1 }).skip).toBe(true);
    expect(rc.shouldSkip('mystery', { x: 2 }).skip).toBe(false);
  });

  it('shouldSkip changes nothing, and key order does not matter', () => {
    const rc = new ReplayControl();
    rc.recordSuccess('read_file', { path: 'a', offset: 0 });
    const before = JSON.stringify(rc);
    expect(rc.shouldSkip('read_file', { offset: 0, path: 'a' }).skip).toBe(true);
    expect(JSON.stringify(rc)).toBe(before);
  });

  it('historySize counts distinct keys with a recorded outcome', () => {
    const rc = new ReplayControl();
    expect(rc.historySize()).toBe(0);
    rc.shouldSkip('read_file', { path: 'a' });
    expect(rc.historySize()).toBe(0);
    rc.recordFailure('read_file', { path: 'a' });
    rc.recordSuccess('read_file', { path: 'a' });
    rc.recordSuccess('read_file', { path: 'b' });
    rc.recordDenied('send_email', { to: 'x' });
    expect(rc.historySize()).toBe(3);
    rc.noteStateChanged();
    expect(rc.historySize()).toBe(3);
  });
});

describe('ReplayControl.noteStateChanged (docs/guardrails.md §3)', () => {
  it('read_file a → write_file a → read_file a: the second read runs', () => {
    const rc = new ReplayControl();
    rc.recordSuccess('read_file', { path: 'a' }, { step: 1 });
    expect(rc.shouldSkip('write_file', { path: 'a', content: 'x' }, SPECS.write_file).skip).toBe(false);
    rc.recordSuccess('write_file', { path: 'a', content: 'x' }, { step: 2 });
    rc.noteStateChanged(callKey('write_file', { path: 'a', content: 'x' }));
    const again = rc.evaluate('read_file', { path: 'a' }, SPECS.read_file);
    expect(again.skip).toBe(false);
    expect(again.record.rule).toBe('success_before_state_change');
    expect(again.record.reason).toContain('at step 1');
  });

  it('keeps the success of the mutating call that caused the change', () => {
    const rc = new ReplayControl();
    const write = { path: 'a', content: 'x' };
    rc.recordSuccess('write_file', write);
    rc.noteStateChanged(callKey('write_file', write));
    expect(rc.shouldSkip('write_file', write, SPECS.write_file).skip).toBe(true);
    // A different write changes the state again; the first write is then worth repeating.
    rc.recordSuccess('write_file', { path: 'a', content: 'y' });
    rc.noteStateChanged(callKey('write_file', { path: 'a', content: 'y' }));
    expect(rc.shouldSkip('write_file', write, SPECS.write_file).skip).toBe(false);
  });

  it('without a cause, forgets every success; failures stay retryable', () => {
    const rc = new ReplayControl();
    rc.recordSuccess('read_file', { path: 'a' });
    rc.recordFailure('read_file', { path: 'b' });
    rc.noteStateChanged();
    expect(rc.shouldSkip('read_file', { path: 'a' }).skip).toBe(false);
    expect(rc.evaluate('read_file', { path: 'b' }).record.rule).toBe('retry_after_failure');
    rc.recordSuccess('read_file', { path: 'a' });
    expect(rc.shouldSkip('read_file', { path: 'a' }).skip).toBe(true);
  });
});

describe('an example turn: reads, a failure, a mutation, a retry', () => {
  it('fails, retries, skips the duplicate, allows new arguments', () => {
    const rc = new ReplayControl();
    const capital = { q: 'capital of France' };
    // Step 1: first call, times out.
    expect(rc.shouldSkip('web_search', capital, SPECS.web_search).skip).toBe(false);
    rc.recordFailure('web_search', capital, { step: 1 });
    // Step 2: the retry is allowed because the earlier call failed, and succeeds.
    expect(rc.shouldSkip('web_search', capital, SPECS.web_search).skip).toBe(false);
    rc.recordSuccess('web_search', capital, { step: 2 });
    // Step 3: the same call again is a duplicate of step 2.
    const third = rc.shouldSkip('web_search', capital, SPECS.web_search);
    expect(third.skip).toBe(true);
    expect(third.reason).toContain('at step 2');
    // Step 4: different arguments, different key.
    expect(rc.shouldSkip('web_search', { q: 'population of France' }, SPECS.web_search).skip).toBe(false);
    rc.recordSuccess('web_search', { q: 'population of France' }, { step: 4 });
    expect(rc.historySize()).toBe(2);
  });
});

describe('ReplayControl state', () => {
  it('round-trips through JSON and continues identically', () => {
    const rc = new ReplayControl();
    rc.recordSuccess('read_file', { path: 'a' }, { step: 1, callId: 'c1' });
    rc.recordFailure('grep_files', { pattern: 'x' });
    rc.noteStateChanged();
    rc.recordSuccess('read_file', { path: 'b' });
    const restored = ReplayControl.fromJSON(JSON.parse(JSON.stringify(rc)));
    expect(restored.toJSON()).toEqual(rc.toJSON());
    for (const target of [rc, restored]) target.noteStateChanged();
    expect(restored.shouldSkip('read_file', { path: 'b' })).toEqual(rc.shouldSkip('read_file', { path: 'b' }));
    expect(restored.toJSON()).toEqual(rc.toJSON());
  });

  it('refuses malformed state as bad tape data', () => {
    expect(() => ReplayControl.fromJSON(null)).toThrow(TapeFormatError);
    expect(() => ReplayControl.fromJSON({ version: 2, outcomes: 0, history: [] })).toThrow(/version/);
    expect(() => ReplayControl.fromJSON({ version: 1, outcomes: -1, history: [] })).toThrow(/outcomes/);
    expect(() =>
      ReplayControl.fromJSON({ version: 1, outcomes: 1, history: [['k', { tool: 't', status: 'great', ordinal: 1 }]] }),
    ).toThrow(/status/);
    expect(() =>
      ReplayControl.fromJSON({
        version: 1, outcomes: 2,
        history: [['k', { tool: 't', status: 'success', ordinal: 1 }], ['k', { tool: 't', status: 'failure', ordinal: 2 }]],
      }),
    ).toThrow(/repeats/);
  });
});
