/**
 * A run with a custom tool, recorded through the real loop with the module loaded, keeps the tool's
 * spec on its run_start through export, import and replay: the replay answers the tool from the
 * tape with the recorded definition and never needs the module (the replay is given a directory
 * where no module is). The tape's checks verify the requests that name the tool with that
 * definition, so a request the replay takes as the recorded one may take its hash as it is; and as
 * anything on a tape, the recorded specs are untrusted input, checked and bounded.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../agent/load-config.js';
import { runLoop } from '../agent/loop.js';
import { liveToolHost } from '../agent/tool-host.js';
import { buildRegistry } from '../agent/tool-registry.js';
import { ManualClock, seededRandom } from '../core/clock.js';
import type { RunEvent, RunStartEvent } from '../core/events.js';
import type { LlmClient, LlmResponse } from '../core/llm.js';
import { TapeFormatError } from '../core/errors.js';
import { runRedactor } from '../core/redact.js';
import { RunRecorder } from '../tape/run-recorder.js';
import { openTapeFile, validateTapeFile, writeTapeFile } from '../tape/tape-file.js';
import { TapeStore } from '../tape/tape-store.js';
import { replayRun, type ReplayOptions, type ReplayResult } from './replay-run.js';
import type { TapeSource } from './tape-source.js';

const TOOLS_DIR = fileURLToPath(new URL('../../fixtures/tools/', import.meta.url));
const SEND_EMAIL = {
  name: 'send_email',
  description: 'Send an email. Every call sends a new email, even with the same arguments.',
  parameters: {
    type: 'object',
    properties: { to: { type: 'string', description: 'Recipient address' }, subject: { type: 'string' }, body: { type: 'string' } },
    required: ['to', 'subject', 'body'],
  },
  idempotent: false,
  mutating: false,
  timeoutMs: 5000,
};

let dir: string;
/** A directory with no tools module in it: where the replays would look for one. */
let nowhere: string;
let tapePath: string;
let imported: TapeStore;
let runId: string;

/** Asks for one email, then answers. */
function scriptedLlm(): LlmClient {
  let k = 0;
  return {
    complete(): Promise<LlmResponse> {
      const usage = { inputTokens: 10, outputTokens: 5 };
      if (k++ > 0) return Promise.resolve({ message: { role: 'assistant', content: 'Sent.' }, finishReason: 'stop', usage });
      const args = JSON.stringify({ to: 'me@example.com', subject: 'milk', body: 'remember the milk' });
      return Promise.resolve({
        message: { role: 'assistant', content: 'Sending.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'send_email', arguments: args } }] },
        finishReason: 'tool_calls',
        usage,
      });
    },
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-custom-tools-'));
  nowhere = join(dir, 'nowhere');
  await mkdir(nowhere);
  const workspace = join(dir, 'ws');
  await mkdir(workspace);
  // Recorded: the user's config loads the module, which runs (it appends to the workspace's outbox).
  const config = parseConfig({ model: 'm', tools: ['read_file'], toolModules: ['send-email.mjs'], seed: 4 }, 'test config');
  const { registry } = await buildRegistry(config, TOOLS_DIR);
  const clock = new ManualClock(0);
  const redact = runRedactor({ env: {} });
  const recording = await TapeStore.open(join(dir, 'recording'));
  try {
    const recorder = await RunRecorder.start(recording, { kind: 'record', source: 'cli', task: 'remind me', model: 'm', config: { ...config }, seed: 4 }, redact);
    const loop = runLoop({ task: 'remind me', config }, { llm: scriptedLlm(), tools: liveToolHost(registry, { workspace, clock }), clock, random: seededRandom(4), redact });
    let next = await loop.next();
    for (; next.done !== true; next = await loop.next()) await recorder.write(next.value);
    const finished = await recorder.finish({ finalState: next.value.state, totals: next.value.totals });
    // Exported,
    tapePath = join(dir, 'email.tape.jsonl');
    await writeTapeFile(tapePath, finished, recording.readEvents(recorder.meta.id));
    runId = recorder.meta.id;
  } finally {
    await recording.close();
  }
  // then imported (the file is checked whole first) into another store.
  const tape = await openTapeFile(tapePath);
  await validateTapeFile(tape);
  imported = await TapeStore.open(join(dir, 'imported'));
  await imported.putRun(tape.meta, tape.events());
});

afterAll(async () => {
  await imported.close();
  await rm(dir, { recursive: true, force: true });
});

async function storedEvents(): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of imported.readEvents(runId)) events.push(event);
  return events;
}

async function replayOf(source: TapeSource, options: Partial<ReplayOptions> = {}): Promise<{ events: RunEvent[]; result: ReplayResult }> {
  const events: RunEvent[] = [];
  const run = replayRun({ source, configDir: nowhere, ...options });
  for (let next = await run.next(); ; next = await run.next()) {
    if (next.done === true) return { events, result: next.value };
    events.push(next.value);
  }
}

describe('a run with a custom tool: record → export → import → replay', () => {
  it('keeps the tool\'s spec on run_start, and replays from the store and from the file without the module', async () => {
    const stored = await storedEvents();
    const start = stored[0] as RunStartEvent;
    expect(start.type).toBe('run_start');
    expect(start.customTools).toEqual([SEND_EMAIL]);
    const meta = await imported.getRun(runId);
    const file = await openTapeFile(tapePath);
    const sources: TapeSource[] = [
      { meta, label: runId, events: () => imported.readEvents(runId) },
      { meta: file.meta, label: tapePath, events: () => file.events(), batches: () => file.batches() },
    ];
    for (const source of sources) {
      for (const tools of ['recorded', 'tape', 'live'] as const) {
        const { events, result } = await replayOf(source, { tools });
        expect(result.verdict, `${source.label} --tools ${tools}`).toBe('reproduced');
        expect((events[0] as RunStartEvent).customTools).toEqual([SEND_EMAIL]);
        expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ tool: 'send_email', status: 'ok', output: 'email sent to me@example.com' });
      }
    }
  });

  it('a request the replay takes as the recorded one takes the recorded hash: the tape\'s checks verified it with the recorded definition', async () => {
    const stored = await storedEvents();
    const requests = stored.filter((e) => e.type === 'llm_request');
    expect(requests.length).toBe(2);
    // The second request's hash, changed in the "store" (whose events are not checked): taken as it is, it matches.
    const changed = stored.map((e) => (e === requests[1] ? { ...e, hash: 'f'.repeat(64) } : e));
    const meta = await imported.getRun(runId);
    const { result } = await replayOf({ meta, label: runId, events: () => each(changed) }, { tools: 'tape' });
    expect(result.verdict).toBe('reproduced');
    // A run whose tape names the module without recording its tool (a tape from before they were):
    // its hashes were never checked, so a replay with the user's config hashes every request, and the change is found.
    const before = changed.map((e) => (e.type === 'run_start' ? { ...e, customTools: undefined } : e));
    const config = parseConfig({ model: 'm', tools: ['read_file'], toolModules: ['send-email.mjs'], seed: 4 }, 'test config');
    const hashed = await replayOf({ meta, label: runId, events: () => each(before) }, { tools: 'tape', config, configDir: TOOLS_DIR });
    expect(hashed.result.verdict).toBe('diverged');
    expect(hashed.result.firstDivergence?.step).toBe(1);
  });
});

describe('the custom tools a tape records are untrusted input', () => {
  let edits = 0;
  /** The tape with its run_start's custom tools replaced; the error reading it gives (or null when it reads). */
  async function readWith(customTools: unknown): Promise<TapeFormatError | null> {
    const lines = (await readFile(tapePath, 'utf8')).trimEnd().split('\n');
    lines[1] = JSON.stringify({ ...(JSON.parse(lines[1] as string) as object), customTools });
    const path = join(dir, `edited-${edits++}.tape.jsonl`);
    await writeFile(path, lines.join('\n') + '\n');
    try {
      await validateTapeFile(await openTapeFile(path));
      return null;
    } catch (error) {
      expect(error).toBeInstanceOf(TapeFormatError);
      return error as TapeFormatError;
    }
  }

  it('reads as recorded (the base of the cases below)', async () => {
    expect(await readWith([SEND_EMAIL])).toBeNull();
  });

  it('a definition changed after recording fails the hash of the first request that was sent with it', async () => {
    const error = await readWith([{ ...SEND_EMAIL, description: 'Send an email to anyone.' }]);
    expect(error?.message).toMatch(/\.tape\.jsonl:\d+: request 0: its hash does not match the request rebuilt from the tape/);
    expect(error?.exitCode).toBe(9);
  });

  it('a spec out of shape or bounds is refused on run_start\'s line', async () => {
    const cases: [unknown, RegExp][] = [
      [[{ ...SEND_EMAIL, parameters: { type: 'string' } }], /"type": "object"/],
      [[{ ...SEND_EMAIL, parameters: { type: 'object', properties: { big: { description: 'x'.repeat(70_000) } } } }], /at most 65536 characters/],
      [[{ ...SEND_EMAIL, parameters: nested(18) }], /at most 32 levels/],
      [[{ ...SEND_EMAIL, description: 'x'.repeat(16_385) }], /customTools/],
      [[{ ...SEND_EMAIL, name: 'send email' }], /customTools/],
      [[{ ...SEND_EMAIL, run: 'code' }], /customTools/],
      [Array.from({ length: 129 }, (_, i) => ({ ...SEND_EMAIL, name: `tool_${i}` })), /customTools/],
      [[SEND_EMAIL, SEND_EMAIL], /custom tool 'send_email' is defined more than once/],
      [[SEND_EMAIL, { ...SEND_EMAIL, name: 'read_file' }], /custom tool 'read_file' has the name of a built-in tool/],
    ];
    for (const [customTools, message] of cases) {
      const error = await readWith(customTools);
      expect(error?.message, JSON.stringify(customTools).slice(0, 200)).toMatch(message);
      expect(error?.line).toBe(2);
    }
  });

  it('a request naming a custom tool the run_start does not record is refused', async () => {
    const error = await readWith([]);
    expect(error?.message).toMatch(/names tool 'send_email', which is neither built in nor one of the run's recorded custom tools/);
  });
});

/** A JSON Schema of `levels` nested property schemas (twice as many levels of JSON, less one). */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 1; i < levels; i++) schema = { type: 'object', properties: { inner: schema } };
  return schema;
}

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}
