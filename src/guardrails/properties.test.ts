import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../core/tools.js';
import { callKey } from './call-key.js';
import { canonicalJson } from './canonical-json.js';
import { LoopGuard } from './loop-guard.js';
import { LoopGuardrails } from './loop-guardrails.js';
import { ReplayControl } from './replay-control.js';
import { drain, toolCall } from './test-support/pipeline.js';
import { lookupSpec } from './test-support/tool-specs.js';
import { runToolCalls, type ExecutorResult } from './tool-call-pipeline.js';

/** JSON round trip: what a checkpoint goes through on its way to the tape and back. */
const viaJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** A copy of `value` whose objects list their keys in another order, at every depth. */
function reorder(value: unknown, choices: readonly number[], cursor = { i: 0 }): unknown {
  if (Array.isArray(value)) return value.map((item) => reorder(item, choices, cursor));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const shuffled: Array<[string, unknown]> = [];
  while (entries.length > 0) {
    const choice = choices.length === 0 ? 0 : (choices[cursor.i++ % choices.length] ?? 0);
    const [entry] = entries.splice(choice % entries.length, 1);
    if (entry !== undefined) shuffled.push([entry[0], reorder(entry[1], choices, cursor)]);
  }
  // fromEntries defines own properties, so a "__proto__" key stays a key.
  return Object.fromEntries(shuffled);
}

const choices = fc.array(fc.nat({ max: 1000 }), { maxLength: 20 });

describe('canonical keys (docs/guardrails.md §1)', () => {
  it('canonicalJson and callKey do not depend on key order at any depth', () => {
    fc.assert(
      fc.property(fc.jsonValue(), choices, fc.string(), (value, picks, tool) => {
        const other = reorder(value, picks);
        expect(canonicalJson(other)).toBe(canonicalJson(value));
        expect(callKey(tool, other)).toBe(callKey(tool, value));
      }),
    );
  });

  it('canonicalJson is JSON that parses back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(viaJson(value));
      }),
    );
  });

  it('different values give different keys', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        fc.pre(canonicalJson(a) !== canonicalJson(b));
        expect(callKey('t', a)).not.toBe(callKey('t', b));
      }),
    );
  });
});

const argsObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });

describe('LoopGuard properties (docs/guardrails.md §4)', () => {
  it('distinct arguments never block, however many calls', () => {
    fc.assert(
      fc.property(fc.uniqueArray(argsObject, { selector: canonicalJson, maxLength: 40 }), (argsList) => {
        const guard = new LoopGuard();
        for (const args of argsList) expect(guard.recordAttempt('read_file', args).kind).toBe('proceed');
      }),
    );
  });

  it('an attempt is blocked exactly when its identical count reaches the threshold', () => {
    const pool = [{ path: 'a' }, { path: 'b' }, { offset: 0, path: 'a' }];
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.record({ tool: fc.constantFrom('read_file', 'grep_files'), arg: fc.nat({ max: 2 }), change: fc.boolean() }), {
          maxLength: 60,
        }),
        (threshold, ops) => {
          const guard = new LoopGuard({ identicalCallBlock: threshold });
          const counts = new Map<string, number>();
          for (const op of ops) {
            if (op.change && op.arg === 0) {
              guard.noteStateChanged();
              counts.clear();
              continue;
            }
            const args = pool[op.arg];
            const key = `${op.tool}:${canonicalJson(args)}`;
            const n = (counts.get(key) ?? 0) + 1;
            counts.set(key, n);
            expect(guard.recordAttempt(op.tool, args).kind).toBe(n >= threshold ? 'block' : 'proceed');
          }
        },
      ),
    );
  });
});

/** Split a run of operations at `at`, checkpoint through JSON, restore, finish: same as never stopping. */
function checkRestore<G, O>(
  ops: readonly O[],
  at: number,
  create: () => G,
  apply: (g: G, op: O) => unknown,
  save: (g: G) => unknown,
  restore: (state: unknown) => G,
): void {
  const whole = create();
  const wholeOut = ops.map((op) => apply(whole, op));
  let part = create();
  const partOut: unknown[] = [];
  ops.forEach((op, i) => {
    if (i === at) part = restore(viaJson(save(part)));
    partOut.push(apply(part, op));
  });
  if (at >= ops.length) part = restore(viaJson(save(part)));
  expect(partOut).toEqual(wholeOut);
  expect(save(part)).toEqual(save(whole));
}

const toolName = fc.constantFrom('read_file', 'grep_files', 'write_file', 'send_email');
const smallArgs = fc.constantFrom<Record<string, unknown>>({ path: 'a' }, { path: 'b' }, { pattern: 'x', path: 'src' }, {});

describe('restore from a checkpoint continues exactly like the uninterrupted run (docs/guardrails.md §6)', () => {
  it('LoopGuardrails', () => {
    const step = fc.array(fc.record({ name: toolName, arguments: smallArgs }), { maxLength: 3 });
    const op = fc.oneof(
      fc.record({ kind: fc.constant('observe' as const), calls: step }),
      fc.record({ kind: fc.constant('observe' as const), calls: fc.constant([{ name: 'read_file', arguments: { path: 'a' } }]) }),
      fc.record({ kind: fc.constant('maxTokens' as const) }),
    );
    const config = fc.record({
      maxRepeatedToolSteps: fc.integer({ min: 1, max: 4 }),
      maxTokensRecoveries: fc.integer({ min: 0, max: 3 }),
    });
    fc.assert(
      fc.property(config, fc.array(op, { maxLength: 30 }), fc.nat({ max: 30 }), (cfg, ops, at) => {
        checkRestore(
          ops,
          at,
          () => new LoopGuardrails(cfg),
          (g, o) => (o.kind === 'observe' ? [g.observeToolCalls(o.calls), g.isStuck()] : [g.onMaxTokens(), g.maxTokensRecoveriesUsed]),
          (g) => g.toJSON(),
          (state) => LoopGuardrails.fromJSON(state, cfg),
        );
      }),
    );
  });

  it('LoopGuard', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('attempt' as const), tool: toolName, args: smallArgs }),
      fc.record({ kind: fc.constant('outcome' as const), tool: toolName, ok: fc.boolean() }),
      fc.record({ kind: fc.constant('resetFailures' as const) }),
      fc.record({ kind: fc.constant('stateChanged' as const), cause: fc.option(fc.record({ tool: toolName, args: smallArgs })) }),
    );
    const config = fc.record({
      identicalCallBlock: fc.integer({ min: 1, max: 4 }),
      failureWarn: fc.integer({ min: 1, max: 4 }),
      failureHalt: fc.integer({ min: 1, max: 6 }),
    });
    fc.assert(
      fc.property(config, fc.array(op, { maxLength: 40 }), fc.nat({ max: 40 }), (cfg, ops, at) => {
        checkRestore(
          ops,
          at,
          () => new LoopGuard(cfg),
          (g, o) => {
            switch (o.kind) {
              case 'attempt':
                return g.evaluateAttempt(o.tool, o.args);
              case 'outcome':
                return g.evaluateOutcome(o.tool, o.ok);
              case 'resetFailures':
                return g.resetFailures();
              case 'stateChanged':
                return g.noteStateChanged(o.cause === null ? undefined : callKey(o.cause.tool, o.cause.args));
            }
          },
          (g) => g.toJSON(),
          (state) => LoopGuard.fromJSON(state, cfg),
        );
      }),
    );
  });

  it('ReplayControl', () => {
    const specs: Record<string, ToolSpec | undefined> = { send_email: lookupSpec('send_email'), read_file: lookupSpec('read_file') };
    const op = fc.oneof(
      fc.record({ kind: fc.constant('evaluate' as const), tool: toolName, args: smallArgs }),
      fc.record({
        kind: fc.constantFrom('success' as const, 'failure' as const, 'timeout' as const, 'denied' as const),
        tool: toolName, args: smallArgs, step: fc.option(fc.nat({ max: 9 }), { nil: undefined }),
      }),
      fc.record({ kind: fc.constant('stateChanged' as const), cause: fc.option(fc.record({ tool: toolName, args: smallArgs })) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.nat({ max: 40 }), (ops, at) => {
        checkRestore(
          ops,
          at,
          () => new ReplayControl(),
          (rc, o) => {
            const context = o.kind !== 'evaluate' && o.kind !== 'stateChanged' && o.step !== undefined ? { step: o.step } : {};
            switch (o.kind) {
              case 'evaluate':
                return [rc.evaluate(o.tool, o.args, specs[o.tool]), rc.historySize()];
              case 'success':
                return rc.recordSuccess(o.tool, o.args, context);
              case 'failure':
                return rc.recordFailure(o.tool, o.args, context);
              case 'timeout':
                return rc.recordTimeout(o.tool, o.args, context);
              case 'denied':
                return rc.recordDenied(o.tool, o.args, context);
              case 'stateChanged':
                return rc.noteStateChanged(o.cause === null ? undefined : callKey(o.cause.tool, o.cause.args));
            }
          },
          (rc) => rc.toJSON(),
          (state) => ReplayControl.fromJSON(state),
        );
      }),
    );
  });
});

describe('pipeline properties (docs/guardrails.md §5)', () => {
  const callArb = fc.record({
    tool: fc.constantFrom('read_file', 'write_file', 'grep_files', 'send_email', 'unknown_tool'),
    args: fc.oneof(smallArgs, fc.constant('{not json')),
    status: fc.constantFrom<ExecutorResult['status']>('ok', 'ok', 'error', 'timeout'),
  });
  const stepsArb = fc.array(fc.array(callArb, { maxLength: 4 }), { maxLength: 8 });

  type ScriptedCall = { tool: string; args: Record<string, unknown> | string; status: ExecutorResult['status'] };

  async function runTurn(steps: ScriptedCall[][], checkpointAt?: number) {
    let replay = new ReplayControl();
    let guard = new LoopGuard({ failureHalt: 4 });
    const items: unknown[] = [];
    let executed = 0;
    for (const [index, calls] of steps.entries()) {
      if (index === checkpointAt) {
        replay = ReplayControl.fromJSON(viaJson(replay));
        guard = LoopGuard.fromJSON(viaJson(guard), guard.config);
      }
      const byId = new Map(calls.map((c, i) => [`s${index}c${i}`, c]));
      const { items: stepItems, outcome } = await drain(
        runToolCalls(
          calls.map((c, i) => toolCall(c.tool, c.args, `s${index}c${i}`)),
          {
            lookup: lookupSpec, replay, guard, step: index,
            execute: async (call) => {
              executed += 1;
              const status = byId.get(call.id)?.status ?? 'ok';
              return { status, output: `${call.function.name}: ${status}` };
            },
          },
        ),
      );
      items.push(...stepItems);
      if (outcome.halt !== null) guard.resetFailures();
    }
    return { items, executed, state: [replay.toJSON(), guard.toJSON()] };
  }

  it('the executor runs exactly the calls that passed every gate, never a denied one', async () => {
    await fc.assert(
      fc.asyncProperty(stepsArb, async (steps) => {
        const { items, executed } = await runTurn(steps);
        const typed = items as Array<{ kind: string; status?: string; callId?: string }>;
        const executeItems = typed.filter((i) => i.kind === 'execute');
        expect(executed).toBe(executeItems.length);
        const executedIds = new Set(executeItems.map((i) => i.callId));
        for (const item of typed) {
          if (item.kind === 'result' && item.status === 'denied') expect(executedIds.has(item.callId)).toBe(false);
        }
        expect(typed.filter((i) => i.kind === 'result')).toHaveLength(steps.flat().length);
      }),
    );
  });

  it('a turn restored from a checkpoint between steps decides exactly as the uninterrupted turn', async () => {
    await fc.assert(
      fc.asyncProperty(stepsArb, fc.nat({ max: 8 }), async (steps, at) => {
        const whole = await runTurn(steps);
        const resumed = await runTurn(steps, at);
        expect(resumed.items).toEqual(whole.items);
        expect(resumed.state).toEqual(whole.state);
      }),
    );
  });
});
