/**
 * Runs recorded through the real loop, then replayed from a tape file (checked on reading) or from
 * events as the store gives them (unchecked), under patches, what-if overrides and extra redaction
 * patterns: an unchanged replay reproduces its run, and every replay is the same every time. (That a
 * request which is the recorded one takes the recorded hash changes no hash: request-delta.test.ts.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../agent/load-config.js';
import { runLoop } from '../agent/loop.js';
import type { ToolHost } from '../agent/tool-host.js';
import { buildRegistry } from '../agent/tool-registry.js';
import { ManualClock, seededRandom } from '../core/clock.js';
import { EventRedactor } from '../core/event-redactor.js';
import type { RunEvent } from '../core/events.js';
import type { LlmClient, LlmResponse } from '../core/llm.js';
import type { AssistantMessage } from '../core/messages.js';
import { runRedactor } from '../core/redact.js';
import { TAPE_VERSION, type RunMeta } from '../core/run-meta.js';
import { openTapeFile, writeTapeFile } from '../tape/tape-file.js';
import { replayRun, type ReplayOptions } from './replay-run.js';
import type { TapeSource } from './tape-source.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-recorded-hashes-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** One model turn of a scripted run: tool calls (by path), or an answer. */
interface Turn {
  paths: string[];
  text: string;
}

const turn = fc.record({
  paths: fc.array(fc.constantFrom('a.ts', 'b.ts', 'c.ts'), { maxLength: 2 }),
  // Some text holds a secret a built-in rule redacts: the tape has it redacted, the loop hashed it so.
  text: fc.constantFrom('looking', 'key sk-abcdefghijklmnop1234', 'done'),
});

function scriptedLlm(turns: readonly Turn[]): LlmClient {
  let k = 0;
  return {
    async complete(request, options): Promise<LlmResponse> {
      const i = k++;
      const t = turns[i];
      const response: LlmResponse = t === undefined || t.paths.length === 0
        ? { message: { role: 'assistant', content: t?.text ?? 'finished' }, finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 3 } }
        : {
          message: {
            role: 'assistant',
            content: t.text,
            tool_calls: t.paths.map((path, n) => ({
              id: `call_${i}_${n}`, type: 'function' as const, function: { name: 'read_file', arguments: JSON.stringify({ path }) },
            })),
          },
          finishReason: 'tool_calls',
          usage: { inputTokens: 10, outputTokens: 5 },
        };
      if (request.stream) {
        // The text in two pieces, then each call whole, then the end of the stream.
        const text = response.message.content ?? '';
        const half = Math.floor(text.length / 2);
        let index = 0;
        for (const piece of [text.slice(0, half), text.slice(half)]) {
          options?.onChunk?.({ index: index++, offsetMs: index, content: piece, finished: false });
        }
        const calls = response.message.tool_calls ?? [];
        if (calls.length > 0) {
          const toolCalls = calls.map((c, n) => ({ index: n, id: c.id, name: c.function.name, arguments: c.function.arguments }));
          options?.onChunk?.({ index: index++, offsetMs: index, toolCalls, finished: false });
        }
        options?.onChunk?.({ index, offsetMs: index + 1, finishReason: response.finishReason, finished: true });
      }
      return response;
    },
  };
}

/** Record a run of the real loop onto a tape file, redacted as `agentctl record` redacts it. */
async function record(path: string, turns: readonly Turn[], stream = false): Promise<void> {
  const config = parseConfig({ model: 'm', tools: ['read_file'], seed: 3, stream, limits: { maxSteps: 12 } }, 'test config');
  const { registry } = await buildRegistry(config, dir);
  const tools: ToolHost = {
    lookup: (name) => registry.spec(name),
    definitions: () => registry.definitions(),
    execute: async (_call, args) => (args['path'] === 'c.ts'
      ? { status: 'error', output: 'ENOENT: c.ts', durationMs: 1 }
      : { status: 'ok', output: `contents of ${String(args['path'])}`, durationMs: 1 }),
    policies: [],
  };
  const redact = runRedactor({ env: {} });
  const loop = runLoop({ task: 'read the files', config }, { llm: scriptedLlm(turns), tools, clock: new ManualClock(0), random: seededRandom(3), redact });
  const redactor = new EventRedactor(redact);
  async function* events(): AsyncGenerator<RunEvent> {
    for await (const event of loop) yield* redactor.accept(event);
  }
  const meta: RunMeta = {
    id: '01M82A0000000000000000TEST', kind: 'record', createdAt: '2026-11-23T00:00:00.000Z', task: 'read the files', model: 'm',
    config: { ...config }, seed: 3, status: 'complete', tapeVersion: TAPE_VERSION, source: 'cli',
  };
  await writeTapeFile(path, meta, events());
}

/**
 * Record `turns` onto a tape file at `path`, then the tape as a replay reads it: from the file
 * (checked on reading), or as the store gives a run, its events unchecked.
 */
async function recordedSource(path: string, turns: readonly Turn[], fromFile: boolean, stream = false): Promise<() => TapeSource> {
  await record(path, turns, stream);
  const tape = await openTapeFile(path);
  const all: RunEvent[] = [];
  for await (const event of tape.events()) all.push(event);
  return () => (fromFile
    ? { meta: tape.meta, label: path, events: () => tape.events(), batches: () => tape.batches() }
    : { meta: tape.meta, label: tape.meta.id, events: () => each(all) });
}

/** A replay's events and result; an error as its message. */
async function replayOf(options: ReplayOptions): Promise<unknown> {
  const events: RunEvent[] = [];
  try {
    const run = replayRun(options);
    for (let next = await run.next(); ; next = await run.next()) {
      if (next.done) return { events, result: next.value };
      events.push(next.value);
    }
  } catch (error) {
    return { events, error: (error as Error).message };
  }
}

const replayChoices = fc.record({
  patch: fc.option(fc.record({ at: fc.nat({ max: 4 }), text: fc.constantFrom('patched answer', 'key sk-zyxwvutsrqponmlk9876') }), { nil: null }),
  overrides: fc.constantFrom([], ['guardrails.identicalCallBlock=2'], ['maxTokens=50']),
  redact: fc.constantFrom([], ['zzz']),
  fromFile: fc.boolean(),
  // A secret in the replaying environment that the recording's did not have, found in a tool's
  // output: the replay hashes that message redacted, unlike the recording.
  envSecret: fc.boolean(),
});

/** The choice's patch, if any, as a replay takes patches. */
function patchesOf(choice: { patch: { at: number; text: string } | null }): Map<number, AssistantMessage> {
  return new Map(choice.patch === null ? [] : [[choice.patch.at, { role: 'assistant', content: choice.patch.text }]]);
}

/** A secret-named variable of the replaying process (its value is redacted wherever it appears). */
const SECRET_VAR = 'AGENTCTL_TEST_REPLAY_TOKEN';

describe('replay of runs recorded through the real loop', () => {
  it('property: reproduces the run from a tape file or the store, streamed or not, and replays the same way every time', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 6 }), replayChoices, fc.boolean(), fc.constantFrom('tape' as const, 'recorded' as const), async (turns, choice, stream, tools) => {
        const source = await recordedSource(join(dir, `run${n++}.tape.jsonl`), turns, choice.fromFile, stream);
        const plain = await replayOf({ source: source(), tools });
        expect((plain as { result?: { verdict: string } }).result?.verdict).toBe('reproduced');
        // As the user may replay it: a patch, a what-if, a pattern of their own, a secret of their environment.
        const options = (): ReplayOptions => ({
          source: source(), tools, patches: patchesOf(choice), overrides: choice.overrides, redact: choice.redact,
        });
        if (choice.envSecret) process.env[SECRET_VAR] = 'contents of b.ts';
        try {
          const once = await replayOf(options());
          expect(await replayOf(options())).toEqual(once);
          if (choice.patch === null && choice.overrides.length === 0 && !choice.envSecret) {
            expect((once as { result?: { verdict: string } }).result?.verdict).toBe('reproduced');
          }
        } finally {
          delete process.env[SECRET_VAR];
        }
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('a request that is the recorded one takes the hash the tape gives (the store is trusted: it holds what agentctl wrote)', async () => {
    const path = join(dir, 'trusted.tape.jsonl');
    await record(path, [{ paths: ['a.ts'], text: 'looking' }, { paths: ['b.ts'], text: 'looking' }, { paths: [], text: 'done' }]);
    const tape = await openTapeFile(path);
    const all: RunEvent[] = [];
    for await (const event of tape.events()) all.push(event);
    const requests = all.filter((e) => e.type === 'llm_request');
    expect(requests.length).toBe(3);
    // The second request's hash, changed in the "store" (whose events are not checked): taken as it is, it matches.
    const changed = all.map((e) => (e === requests[1] ? { ...e, hash: 'f'.repeat(64) } : e));
    const store = (): TapeSource => ({ meta: tape.meta, label: tape.meta.id, events: () => each(changed) });
    const taken = (await replayOf({ source: store(), tools: 'tape' })) as { result: { verdict: string } };
    expect(taken.result.verdict).toBe('reproduced');
    // A pattern of the user's might match within a digest: then every request is hashed, and the change is found.
    const hashed = (await replayOf({ source: store(), tools: 'tape', redact: ['zzz'] })) as { result: { verdict: string; firstDivergence: { step: number } } };
    expect(hashed.result.verdict).toBe('diverged');
    expect(hashed.result.firstDivergence.step).toBe(1);
    // The first request is always hashed: nothing earlier vouches for the settings.
    const first = all.map((e) => (e === requests[0] ? { ...e, hash: 'f'.repeat(64) } : e));
    const firstChanged = (await replayOf({ source: { meta: tape.meta, label: tape.meta.id, events: () => each(first) }, tools: 'tape' })) as { result: { verdict: string } };
    expect(firstChanged.result.verdict).toBe('diverged');
  });
});

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}
