import { describe, expect, it } from 'vitest';
import { InvalidOptionError, TapeFormatError } from '../core/errors.js';
import { callKey } from './call-key.js';
import { LoopGuard } from './loop-guard.js';

const main = { path: 'src/main.ts' };

describe('LoopGuard.recordAttempt (docs/guardrails.md §4)', () => {
  it('blocks the third identical call, naming the tool and the count', () => {
    const guard = new LoopGuard();
    expect(guard.recordAttempt('read_file', main)).toEqual({ kind: 'proceed' });
    expect(guard.recordAttempt('read_file', main)).toEqual({ kind: 'proceed' });
    const third = guard.recordAttempt('read_file', main);
    expect(third.kind).toBe('block');
    if (third.kind !== 'block') return;
    expect(third.message).toContain('read_file');
    expect(third.message).toContain('you have requested `read_file` with exactly these arguments 3 times this turn, with no other call changing the workspace in between');
    expect(third.message).toMatch(/change the arguments or use a different tool/);
  });

  it('keeps blocking every later identical attempt, and keeps counting them', () => {
    const guard = new LoopGuard();
    for (let i = 0; i < 2; i++) guard.recordAttempt('read_file', main);
    for (let n = 3; n <= 6; n++) {
      const decision = guard.recordAttempt('read_file', main);
      expect(decision.kind).toBe('block');
      if (decision.kind === 'block') expect(decision.message).toContain(`you have requested \`read_file\` with exactly these arguments ${n} times this turn`);
    }
    expect(guard.attemptCount('read_file', main)).toBe(6);
  });

  it('never blocks paginated reads (different arguments)', () => {
    const guard = new LoopGuard();
    for (const offset of [0, 100, 200]) {
      expect(guard.recordAttempt('read_file', { path: 'src/main.ts', offset })).toEqual({ kind: 'proceed' });
    }
  });

  it('treats argument key order as the same call', () => {
    const guard = new LoopGuard();
    expect(guard.recordAttempt('read_file', { path: 'a', offset: 0 }).kind).toBe('proceed');
    expect(guard.recordAttempt('read_file', { offset: 0, path: 'a' }).kind).toBe('proceed');
    expect(guard.recordAttempt('read_file', { path: 'a', offset: 0 }).kind).toBe('block');
  });

  it('counts per tool: the same arguments to another tool are another call', () => {
    const guard = new LoopGuard();
    guard.recordAttempt('read_file', { path: 'a' });
    guard.recordAttempt('read_file', { path: 'a' });
    expect(guard.recordAttempt('list_dir', { path: 'a' }).kind).toBe('proceed');
  });

  it('records first attempt, near miss and block', () => {
    const guard = new LoopGuard();
    const key = callKey('read_file', main);
    const first = guard.evaluateAttempt('read_file', main).record;
    const second = guard.evaluateAttempt('read_file', main).record;
    const third = guard.evaluateAttempt('read_file', main).record;
    expect(first).toEqual({
      gate: 'loop_guard', verdict: 'allow', rule: 'first_attempt', tool: 'read_file', key,
      counters: { before: { attempts: 0 }, after: { attempts: 1 } }, threshold: 3,
      reason: 'first attempt with these arguments (blocks at 3)',
    });
    expect(second).toMatchObject({ verdict: 'allow', rule: 'identical_call', reason: 'identical call 2 of 3' });
    expect(third).toMatchObject({ verdict: 'block', rule: 'identical_call_block', reason: 'identical call 3 of 3: blocked' });
    expect(guard.evaluateAttempt('read_file', main).record.reason).toBe('identical call 4, over the limit of 3: blocked');
  });

  it('honours a configured threshold', () => {
    const guard = new LoopGuard({ identicalCallBlock: 5 });
    for (let i = 0; i < 4; i++) expect(guard.recordAttempt('t', {}).kind).toBe('proceed');
    expect(guard.recordAttempt('t', {}).kind).toBe('block');
    const strict = new LoopGuard({ identicalCallBlock: 1 });
    expect(strict.recordAttempt('t', {}).kind).toBe('block');
  });
});

describe('LoopGuard.recordOutcome (docs/guardrails.md §4)', () => {
  it('warns at three consecutive failures and halts at eight', () => {
    const guard = new LoopGuard();
    expect(guard.recordOutcome('grep_files', false)).toEqual({ kind: 'continue' });
    expect(guard.recordOutcome('grep_files', false)).toEqual({ kind: 'continue' });
    const warn = guard.recordOutcome('grep_files', false);
    expect(warn.kind).toBe('warn');
    if (warn.kind === 'warn') expect(warn.message).toContain('failed 3 consecutive times');
    for (let i = 4; i < 8; i++) expect(guard.recordOutcome('grep_files', false)).toEqual({ kind: 'continue' });
    const halt = guard.recordOutcome('grep_files', false);
    expect(halt.kind).toBe('halt');
    if (halt.kind !== 'halt') return;
    expect(halt.message).toContain('failed 8 consecutive times');
    expect(halt.message).toContain('choose a different approach');
    expect(halt.message).toContain('grep_files');
  });

  it('halts on every failure after the eighth', () => {
    const guard = new LoopGuard();
    for (let i = 0; i < 8; i++) guard.recordOutcome('grep_files', false);
    const ninth = guard.recordOutcome('grep_files', false);
    expect(ninth.kind).toBe('halt');
    if (ninth.kind === 'halt') expect(ninth.message).toContain('failed 9 consecutive times');
  });

  it('a success resets the failure count', () => {
    const guard = new LoopGuard();
    expect(guard.recordOutcome('grep_files', false)).toEqual({ kind: 'continue' });
    expect(guard.recordOutcome('grep_files', false)).toEqual({ kind: 'continue' });
    expect(guard.recordOutcome('grep_files', true)).toEqual({ kind: 'continue' });
    expect(guard.recordOutcome('grep_files', false)).toEqual({ kind: 'continue' });
    expect(guard.failureCount('grep_files')).toBe(1);
  });

  it('counts failures per tool name', () => {
    const guard = new LoopGuard();
    guard.recordOutcome('a', false);
    guard.recordOutcome('a', false);
    guard.recordOutcome('b', false);
    expect(guard.recordOutcome('a', false).kind).toBe('warn');
    expect(guard.failureCount('b')).toBe(1);
  });

  it('records every outcome with counters and the next threshold', () => {
    const guard = new LoopGuard();
    expect(guard.evaluateOutcome('t', false).record).toEqual({
      gate: 'failures', verdict: 'continue', rule: 'consecutive_failures', tool: 't',
      counters: { before: { failures: 0 }, after: { failures: 1 } }, threshold: 3,
      reason: 'failure 1 in a row (warns at 3, halts at 8)',
    });
    guard.evaluateOutcome('t', false);
    expect(guard.evaluateOutcome('t', false).record).toMatchObject({ verdict: 'warn', rule: 'consecutive_failures_warn', threshold: 3 });
    expect(guard.evaluateOutcome('t', false).record).toMatchObject({ verdict: 'continue', rule: 'consecutive_failures', threshold: 8 });
    expect(guard.evaluateOutcome('t', true).record).toMatchObject({
      verdict: 'continue', rule: 'failure_reset', counters: { before: { failures: 4 }, after: { failures: 0 } },
    });
    for (let i = 0; i < 7; i++) guard.evaluateOutcome('t', false);
    expect(guard.evaluateOutcome('t', false).record).toMatchObject({
      verdict: 'halt', rule: 'consecutive_failures_halt', threshold: 8, reason: 'failed 8 consecutive times (halts at 8)',
    });
  });

  it('honours configured thresholds', () => {
    const guard = new LoopGuard({ failureWarn: 1, failureHalt: 2 });
    expect(guard.recordOutcome('t', false).kind).toBe('warn');
    expect(guard.recordOutcome('t', false).kind).toBe('halt');
  });
});

describe('LoopGuard resets (docs/guardrails.md §4)', () => {
  it('resetFailures clears a halt so a granted continuation does not halt again at once', () => {
    const guard = new LoopGuard();
    for (let i = 0; i < 7; i++) guard.recordOutcome('apply_patch', false);
    expect(guard.recordOutcome('apply_patch', false).kind).toBe('halt');
    guard.resetFailures();
    expect(guard.recordOutcome('apply_patch', false)).toEqual({ kind: 'continue' });
  });

  it('resetFailures leaves identical-call blocking intact', () => {
    const guard = new LoopGuard();
    guard.recordAttempt('read_file', main);
    guard.recordAttempt('read_file', main);
    guard.resetFailures();
    expect(guard.recordAttempt('read_file', main).kind).toBe('block');
  });

  it('noteStateChanged unblocks an identical call after an edit, and hammering still blocks', () => {
    const guard = new LoopGuard();
    const cmd = { command: 'npm test -- config' };
    expect(guard.recordAttempt('exec_shell', cmd).kind).toBe('proceed');
    expect(guard.recordAttempt('exec_shell', cmd).kind).toBe('proceed');
    guard.noteStateChanged();
    expect(guard.recordAttempt('exec_shell', cmd).kind).toBe('proceed');
    expect(guard.recordAttempt('exec_shell', cmd).kind).toBe('proceed');
    expect(guard.recordAttempt('exec_shell', cmd).kind).toBe('block');
  });

  it('noteStateChanged leaves failure counts alone', () => {
    const guard = new LoopGuard();
    guard.recordOutcome('t', false);
    guard.recordOutcome('t', false);
    guard.noteStateChanged();
    expect(guard.recordOutcome('t', false).kind).toBe('warn');
  });

  it('noteStateChanged(causeKey) keeps the count of the mutating call itself', () => {
    const guard = new LoopGuard();
    const cmd = { command: 'make' };
    const read = { path: 'a' };
    guard.recordAttempt('exec_shell', cmd);
    guard.recordAttempt('read_file', read);
    guard.recordAttempt('read_file', read);
    guard.noteStateChanged(callKey('exec_shell', cmd));
    expect(guard.attemptCount('read_file', read)).toBe(0);
    expect(guard.attemptCount('exec_shell', cmd)).toBe(1);
    guard.recordAttempt('exec_shell', cmd);
    guard.noteStateChanged(callKey('exec_shell', cmd));
    expect(guard.recordAttempt('exec_shell', cmd).kind).toBe('block');
  });
});

describe('LoopGuard config and state', () => {
  it('refuses bad thresholds with a usage error naming the config key', () => {
    expect(() => new LoopGuard({ identicalCallBlock: 0 })).toThrow(InvalidOptionError);
    expect(() => new LoopGuard({ failureHalt: 2.5 })).toThrow(/guardrails\.failureHalt must be a positive integer, got 2\.5/);
    expect(new LoopGuard({ failureWarn: undefined }).config).toEqual({ identicalCallBlock: 3, failureWarn: 3, failureHalt: 8 });
    // The loop hands over its whole guardrails section; keys for other gates are not kept.
    const section = { identicalCallBlock: 4, maxRepeatedToolSteps: 9, haltNudges: 1 };
    expect(new LoopGuard(section).config).toEqual({ identicalCallBlock: 4, failureWarn: 3, failureHalt: 8 });
  });

  it('round-trips through JSON, keeping both counters', () => {
    const guard = new LoopGuard();
    guard.recordAttempt('read_file', main);
    guard.recordAttempt('read_file', main);
    guard.recordOutcome('grep_files', false);
    guard.recordOutcome('grep_files', false);
    const restored = LoopGuard.fromJSON(JSON.parse(JSON.stringify(guard)));
    expect(restored.toJSON()).toEqual(guard.toJSON());
    expect(restored.recordAttempt('read_file', main).kind).toBe('block');
    expect(restored.recordOutcome('grep_files', false).kind).toBe('warn');
  });

  it('refuses malformed state', () => {
    expect(() => LoopGuard.fromJSON({ version: 1, attempts: {}, failures: [] })).toThrow(TapeFormatError);
    expect(() => LoopGuard.fromJSON({ version: 1, attempts: [['k', 1.5]], failures: [] })).toThrow(/attempts\[0\]\[1\]/);
    expect(() => LoopGuard.fromJSON({ attempts: [], failures: [] })).toThrow(/version/);
  });
});
