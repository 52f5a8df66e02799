/**
 * The library's record modes on tape files, through the real `openai` SDK against a real server on
 * 127.0.0.1 (aimock) — every mode, `AGENTCTL_MODE` overriding them, replay-or-record recording once
 * and replaying after, new-episodes growing the tape, a tape file recorded as durably as a store
 * (SIGKILL mid-recording keeps every reply) and replaced whole on re-record, two processes recording
 * two files at once, one store shared by two sessions of a process, assertReproduced's messages,
 * withTape, and the conveniences returning the user's own OpenAI class.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { InvalidOptionError, ReplayDivergedError } from '../src/core/errors.js';
import type { RunEvent } from '../src/core/events.js';
import { recordOpenAI, replayOpenAI } from '../src/library/record-openai.js';
import { record, replay } from '../src/library/record-replay.js';
import { recordingDir } from '../src/library/file-target.js';
import { tapeName, withTape } from '../src/library/with-tape.js';
import { openTapeFile } from '../src/tape/tape-file.js';
import { TapeStore } from '../src/tape/tape-store.js';
import { startAimock, type Aimock } from './support/aimock.js';
import { runCli } from './support/cli.js';

const API_KEY = 'sk-modes-test-0123456789abcdef';
const FIXTURES = [
  { match: { userMessage: 'hello' }, response: { content: 'Hi there.' } },
  { match: { userMessage: 'weather' }, response: { content: 'Sunny.' } },
  { match: { userMessage: 'bye' }, response: { content: 'Goodbye.' } },
];

let mock: Aimock;
let dir: string;
let n = 0;
beforeAll(async () => {
  mock = await startAimock(FIXTURES);
  dir = await mkdtemp(join(tmpdir(), 'agentctl-modes-'));
});
afterAll(async () => {
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  delete process.env.AGENTCTL_MODE;
});

/** A new tape file path, not created. */
const newTape = (ext = '.tape.jsonl'): string => join(dir, `t${n++}`, `tape${ext}`);
const client = (fetch?: OpenAI['fetch']): OpenAI => new OpenAI({ apiKey: API_KEY, baseURL: mock.baseURL, maxRetries: 0, ...(fetch === undefined ? {} : { fetch }) });
const ask = async (c: OpenAI, question: string): Promise<string | null | undefined> =>
  (await c.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: question }] })).choices[0]?.message.content;

async function tapeEvents(file: string): Promise<RunEvent[]> {
  const tape = await openTapeFile(file);
  const events: RunEvent[] = [];
  for await (const event of tape.events()) events.push(event);
  return events;
}
const answers = (events: RunEvent[]): unknown[] => events.flatMap((e) => (e.type === 'llm_response' ? [e.response.message.content] : []));

/** What `fn` throws, or undefined. */
function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Record `questions` onto a new tape file; returns its path. */
async function recorded(questions: string[], ext?: string): Promise<string> {
  const tape = newTape(ext);
  const rec = await recordOpenAI(client(), { tape });
  for (const q of questions) await ask(rec, q);
  await rec.finish();
  return tape;
}

describe('record and replay a tape file', () => {
  it('record writes the file at finish (the hidden recording directory goes); replay serves it strictly and offline', async () => {
    const tape = newTape();
    const rec = await record({ tape });
    expect(rec.mode).toBe('record');
    expect(await ask(client(rec.fetch), 'hello')).toBe('Hi there.');
    expect(existsSync(recordingDir(tape))).toBe(true);
    expect(existsSync(tape)).toBe(false);
    const meta = await rec.finish();
    expect(meta).toMatchObject({ id: rec.runId, status: 'complete' });
    expect(existsSync(recordingDir(tape))).toBe(false);
    expect(answers(await tapeEvents(tape))).toEqual(['Hi there.']);
    expect(await readFile(tape, 'utf8')).not.toContain(API_KEY);

    const before = mock.requestCount();
    const rep = await replay({ tape });
    expect(rep.mode).toBe('replay');
    expect(await ask(new OpenAI({ apiKey: 'sk-other', baseURL: 'http://127.0.0.1:9/v1', fetch: rep.fetch, maxRetries: 0 }), 'hello')).toBe('Hi there.');
    expect(mock.requestCount()).toBe(before);
    rep.assertReproduced();
    expect(await rep.finish()).toBeUndefined();
  });

  it('a .gz tape is written gzipped and replayed', async () => {
    const tape = await recorded(['hello'], '.tape.jsonl.gz');
    expect((await readFile(tape)).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const rep = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { tape });
    expect(await ask(rep, 'hello')).toBe('Hi there.');
    rep.assertReproduced();
  });

  it('replay is strict by default: a changed request is refused, naming the first differing field', async () => {
    const tape = await recorded(['hello']);
    const rep = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { tape });
    const error = await ask(rep, 'weather').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('agentctl_replay_mismatch');
    expect(() => rep.assertReproduced()).toThrow(ReplayDivergedError);
  });

  it('passthrough: every call goes live, nothing is recorded or served', async () => {
    const tape = newTape();
    const before = mock.requestCount();
    const session = await replayOpenAI(client(), { tape, mode: 'passthrough' });
    expect(session.mode).toBe('passthrough');
    expect(await ask(session, 'hello')).toBe('Hi there.');
    expect(await session.finish()).toBeUndefined();
    expect(mock.requestCount()).toBe(before + 1);
    expect(existsSync(tape)).toBe(false);
    expect(existsSync(recordingDir(tape))).toBe(false);
  });

  it('replay-or-record records when the file is missing, and replays after', async () => {
    const tape = newTape();
    const first = await recordOpenAI(client(), { tape, mode: 'replay-or-record' });
    expect(first.mode).toBe('record');
    expect(await ask(first, 'hello')).toBe('Hi there.');
    await first.finish();
    const before = mock.requestCount();
    const second = await recordOpenAI(client(), { tape, mode: 'replay-or-record' });
    expect(second.mode).toBe('replay');
    expect(await ask(second, 'hello')).toBe('Hi there.');
    await second.finish();
    second.assertReproduced();
    expect(mock.requestCount()).toBe(before);
  });

  it('new-episodes serves what the tape has, sends the rest live, and the session replaces the file', async () => {
    const tape = await recorded(['hello']);
    const first = (await openTapeFile(tape)).meta;
    const before = mock.requestCount();
    const session = await recordOpenAI(client(), { tape, mode: 'new-episodes' });
    expect(session.mode).toBe('new-episodes');
    expect(await ask(session, 'hello')).toBe('Hi there.');
    expect(mock.requestCount()).toBe(before);
    expect(await ask(session, 'weather')).toBe('Sunny.');
    expect(mock.requestCount()).toBe(before + 1);
    expect(session.replay?.calls.map((c) => c.source)).toEqual(['tape', 'live']);
    const meta = await session.finish();
    expect(meta).toMatchObject({ kind: 'replay', parentId: first.id });
    expect(answers(await tapeEvents(tape))).toEqual(['Hi there.', 'Sunny.']);
    // The grown tape replays both, strictly.
    const rep = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { tape });
    expect([await ask(rep, 'hello'), await ask(rep, 'weather')]).toEqual(['Hi there.', 'Sunny.']);
    rep.assertReproduced();
  });

  it('new-episodes sends a changed request live (never served by position), keeps the tape\'s task, runs tools the tape has not, and finishes once', async () => {
    const tape = newTape();
    const rec = await recordOpenAI(client(), { tape, task: 'checkout flow' });
    await ask(rec, 'hello');
    await rec.finish();
    const before = mock.requestCount();
    const session = await record({ tape, mode: 'new-episodes' });
    expect(await ask(client(session.fetch), 'bye')).toBe('Goodbye.');
    expect(mock.requestCount()).toBe(before + 1);
    const ran: string[] = [];
    const charge = session.recordTool('charge', async (amount: number) => {
      ran.push(`charged ${amount}`);
      return { ok: true };
    });
    expect(await charge(5)).toEqual({ ok: true });
    expect(ran).toEqual(['charged 5']);
    const meta = await session.finish();
    expect(meta?.task).toBe('checkout flow');
    expect(await session.finish()).toBe(meta);
    expect(answers(await tapeEvents(tape))).toEqual(['Goodbye.']);
  });

  it('a replay that is not strict serves a changed request by position, and assertReproduced says so without calling it refused', async () => {
    const tape = await recorded(['hello']);
    const rep = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { tape, strict: false });
    expect(await ask(rep, 'weather')).toBe('Hi there.');
    const error = thrown(() => rep.assertReproduced());
    expect(error).toBeInstanceOf(ReplayDivergedError);
    expect((error as Error).message).toBe(`the replay of ${tape} diverged: request 0 differs from recorded call 0 at messages[0].content: recorded "hello", replayed "weather"`);
  });

  it('a credential the client sends is kept off the tape even where it does not look like a key', async () => {
    const opaque = 'opaque-credential-7f3a9c';
    const tape = newTape();
    const rec = await record({ tape });
    const c = new OpenAI({ apiKey: opaque, baseURL: mock.baseURL, maxRetries: 0, fetch: rec.fetch });
    await c.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: `hello, my key is ${opaque}` }] });
    await rec.finish();
    expect(await readFile(tape, 'utf8')).not.toContain(opaque);
  });

  it('re-recording replaces the file whole, only when the new recording finishes', async () => {
    const tape = await recorded(['hello']);
    const again = await recordOpenAI(client(), { tape });
    expect(await ask(again, 'weather')).toBe('Sunny.');
    // Until then the old tape is there, whole.
    expect(answers(await tapeEvents(tape))).toEqual(['Hi there.']);
    await again.finish();
    expect(answers(await tapeEvents(tape))).toEqual(['Sunny.']);
    expect(await readdir(join(tape, '..'))).toEqual(['tape.tape.jsonl']);
  });
});

describe('AGENTCTL_MODE', () => {
  it('overrides the mode a program asks for', async () => {
    const tape = await recorded(['hello']);
    process.env.AGENTCTL_MODE = 'record';
    const before = mock.requestCount();
    const session = await replayOpenAI(client(), { tape });
    expect(session.mode).toBe('record');
    expect(await ask(session, 'weather')).toBe('Sunny.');
    await session.finish();
    expect(mock.requestCount()).toBe(before + 1);
    expect(answers(await tapeEvents(tape))).toEqual(['Sunny.']);
    process.env.AGENTCTL_MODE = 'replay';
    await expect(record({ tape: newTape() })).rejects.toThrow(/no tape file|not found|does not exist/i);
  });

  it('a value that is no mode is an InvalidOptionError naming AGENTCTL_MODE', async () => {
    process.env.AGENTCTL_MODE = 'sometimes';
    const error = await record({ tape: newTape() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect((error as Error).message).toBe('AGENTCTL_MODE: "sometimes" is not a mode');
  });
});

describe('assertReproduced', () => {
  it('names the tape and the first differing field of a refused request', async () => {
    const tape = await recorded(['hello', 'weather']);
    const rep = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { tape });
    await ask(rep, 'hello');
    await ask(rep, 'bye').catch(() => undefined);
    const error = thrown(() => rep.assertReproduced());
    expect(error).toBeInstanceOf(ReplayDivergedError);
    expect((error as ReplayDivergedError).exitCode).toBe(7);
    expect((error as ReplayDivergedError).code).toBe('AGENTCTL_REPLAY_DIVERGED');
    expect((error as ReplayDivergedError).field).toBe('messages[0].content');
    expect((error as ReplayDivergedError).hint).toBe(`if the change is intended, re-record it: AGENTCTL_MODE=record, or delete ${tape}`);
    expect((error as Error).message).toBe(
      `the replay of ${tape} diverged: request 1 differs from recorded call 1 at messages[0].content: recorded "weather", replayed "bye" (the request was refused)`,
    );
  });

  it('names the recorded calls never asked for', async () => {
    const tape = await recorded(['hello', 'weather']);
    const rep = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { tape });
    await ask(rep, 'hello');
    expect(() => rep.assertReproduced()).toThrow(`the replay of ${tape} diverged: 1 recorded call never asked for (the agent made 1 of 2)`);
  });

  it('names a call past the end of the tape', async () => {
    const tape = await recorded(['hello']);
    const rep = await replayOpenAI(new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 }), { tape });
    await ask(rep, 'hello');
    await ask(rep, 'hello').catch(() => undefined);
    expect(() => rep.assertReproduced()).toThrow(`the replay of ${tape} diverged: request 1 is past the end of the tape (it has 1 call)`);
  });
});

describe('withTape', () => {
  it('records the first time, replays after, and returns what fn returns', async () => {
    const tapes = join(dir, `with-${n++}`);
    const run = (): Promise<string | null | undefined> => withTape('checkout/flow one', async ({ fetch }) => ask(client(fetch), 'hello'), { dir: tapes });
    expect(await run()).toBe('Hi there.');
    const file = join(tapes, 'checkout', 'flow-one-55724b.tape.jsonl');
    expect(answers(await tapeEvents(file))).toEqual(['Hi there.']);
    const before = mock.requestCount();
    expect(await run()).toBe('Hi there.');
    expect(mock.requestCount()).toBe(before);
  });

  it('never gives two names one tape: a clean name is the path, one with characters replaced gets a hash of itself', async () => {
    const tapes = join(dir, `with-${n++}`);
    const names = { 'a-b': 'hello', 'a b': 'weather', 'a:b': 'bye', 'x/y.z_1': 'hello' };
    for (const [name, question] of Object.entries(names)) await withTape(name, async ({ fetch }) => ask(client(fetch), question), { dir: tapes });
    expect((await readdir(tapes)).sort()).toEqual(['a-b-6783a3.tape.jsonl', 'a-b-c8687a.tape.jsonl', 'a-b.tape.jsonl', 'x']);
    expect(answers(await tapeEvents(join(tapes, 'a-b.tape.jsonl')))).toEqual(['Hi there.']);
    expect(answers(await tapeEvents(join(tapes, 'a-b-c8687a.tape.jsonl')))).toEqual(['Sunny.']);
    expect(answers(await tapeEvents(join(tapes, 'a-b-6783a3.tape.jsonl')))).toEqual(['Goodbye.']);
    expect(await readdir(join(tapes, 'x'))).toEqual(['y.z_1.tape.jsonl']);
    // Each replays its own tape.
    const before = mock.requestCount();
    for (const [name, question] of Object.entries(names)) await withTape(name, async ({ fetch }) => ask(client(fetch), question), { dir: tapes });
    expect(mock.requestCount()).toBe(before);
  });

  it('fails a replay that diverged with the divergence, the error fn threw as its cause', async () => {
    const tapes = join(dir, `with-${n++}`);
    await withTape('t', async ({ fetch }) => ask(client(fetch), 'hello'), { dir: tapes });
    const thrown = await withTape('t', async ({ fetch }) => ask(client(fetch), 'weather'), { dir: tapes }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ReplayDivergedError);
    expect((thrown as Error).message).toContain(`the replay of ${join(tapes, 't.tape.jsonl')} diverged: request 0 differs from recorded call 0 at messages[0].content`);
    expect((thrown as Error).cause).toBeInstanceOf(OpenAI.BadRequestError);
    // A replay that ran through but left calls unasked fails too.
    await expect(withTape('t', async () => undefined, { dir: tapes })).rejects.toThrow(/1 recorded call never asked for/);
  });

  it('gzip: the tape is <name>.tape.jsonl.gz, gzipped', async () => {
    const tapes = join(dir, `with-${n++}`);
    await withTape('zipped', async ({ fetch }) => ask(client(fetch), 'hello'), { dir: tapes, gzip: true });
    expect(await readdir(tapes)).toEqual(['zipped.tape.jsonl.gz']);
    expect((await readFile(join(tapes, 'zipped.tape.jsonl.gz'))).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });

  it('a test name is a path inside the tapes directory, never outside it', () => {
    expect(tapeName('checkout/flow one')).toBe(join('checkout', 'flow-one-55724b'));
    // Cleaned, so each gets its hash too: never the path of a cleaner name.
    expect(tapeName('../../etc/passwd')).toMatch(/^etc\/passwd-[0-9a-f]{6}$/);
    expect(tapeName('a/../../b')).toMatch(/^a\/b-[0-9a-f]{6}$/);
    expect(tapeName('/abs/./x')).toMatch(/^abs\/x-[0-9a-f]{6}$/);
    expect(() => tapeName('../..')).toThrow(InvalidOptionError);
  });

  it('writes the run of a recording fn threw in, ended ERROR with the message', async () => {
    const tapes = join(dir, `with-${n++}`);
    await expect(withTape('t', async ({ fetch }) => {
      await ask(client(fetch), 'hello');
      throw new Error('the agent gave up');
    }, { dir: tapes })).rejects.toThrow('the agent gave up');
    const tape = await openTapeFile(join(tapes, 't.tape.jsonl'));
    expect(tape.meta.finalState).toBe('ERROR');
    const events = await tapeEvents(join(tapes, 't.tape.jsonl'));
    expect(events.at(-1)).toMatchObject({ type: 'run_end', state: 'ERROR', reason: 'the agent gave up' });
  });
});

describe('the OpenAI conveniences', () => {
  it('return the user\'s own client class, whose errors are the user\'s', async () => {
    const tape = await recorded(['hello']);
    const mine = new OpenAI({ apiKey: 'sk-replay', maxRetries: 0 });
    const replayed = await replayOpenAI(mine, { tape });
    expect(replayed).toBeInstanceOf(OpenAI);
    expect(replayed).not.toBe(mine);
    const error = await ask(replayed, 'weather').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const rec = await recordOpenAI(client(), { tape: newTape() });
    expect(rec).toBeInstanceOf(OpenAI);
    await rec.finish();
  });
});

describe('one store, two sessions of a process', () => {
  it('replay-or-record on a store records a run it does not hold yet, and replays it after', async () => {
    const storeDir = join(dir, `store-${n++}`);
    const other = await recordOpenAI(client(), { tape: { store: storeDir, run: 'other' } });
    await ask(other, 'weather');
    await other.finish();
    const first = await record({ tape: { store: storeDir, run: 'new' }, mode: 'replay-or-record' });
    expect(first.mode).toBe('record');
    expect(await ask(client(first.fetch), 'hello')).toBe('Hi there.');
    await first.finish();
    const second = await record({ tape: { store: storeDir, run: 'new' }, mode: 'replay-or-record' });
    expect(second.mode).toBe('replay');
    const unnamed = await record({ tape: { store: storeDir }, mode: 'replay-or-record' });
    expect(unnamed.mode).toBe('record');
    await unnamed.finish();
  });

  it('a recording opens a store this process already holds (no lock error)', async () => {
    const storeDir = join(dir, `store-${n++}`);
    const held = await TapeStore.open(storeDir);
    try {
      const rec = await recordOpenAI(client(), { tape: { store: storeDir, run: 'shared' } });
      expect(await ask(rec, 'hello')).toBe('Hi there.');
      await rec.finish();
      // new-episodes holds the store until it finishes; a recording beside it shares it.
      const episodes = await recordOpenAI(client(), { tape: { store: storeDir, run: 'shared' }, mode: 'new-episodes' });
      const other = await recordOpenAI(client(), { tape: { store: storeDir, run: 'other' } });
      await ask(episodes, 'hello');
      await ask(other, 'weather');
      const [a, b] = [await episodes.finish(), await other.finish()];
      expect((await held.resolveRun('shared')).id).toBe(a?.id);
      expect((await held.resolveRun('other')).id).toBe(b?.id);
      // Named by its id, the tape still gives the new run its own name: the name finds the grown run.
      const byId = await recordOpenAI(client(), { tape: { store: storeDir, run: a?.id as string }, mode: 'new-episodes' });
      await ask(byId, 'hello');
      const grown = await byId.finish();
      expect(grown?.name).toBe('shared');
      expect((await held.resolveRun('shared')).id).toBe(grown?.id);
    } finally {
      await held.close();
    }
  });
});

/** What `fn` wrote on standard error (agentctl's warnings). */
async function stderrOf(fn: () => Promise<void>): Promise<string> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
    written.push(String(text));
    return true;
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return written.join('');
}

describe('tape file paths a recording cannot use', () => {
  it('a path under a file is refused when the session opens, before anything is recorded', async () => {
    const base = join(dir, `under-${n++}`);
    await mkdir(base);
    const file = join(base, 'agent.mjs');
    await writeFile(file, 'console.log(1);\n');
    const tape = join(file, 'x.tape.jsonl');
    const thrown = await record({ tape }).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(InvalidOptionError);
    expect((thrown as Error).message).toBe(`cannot write ${tape}: a part of the path is not a directory`);
    expect(await readdir(base)).toEqual(['agent.mjs']);
  });

  it('agentctl run --record onto a path under a file: one line, exit 2, the command never runs', async () => {
    const base = join(dir, `under-cli-${n++}`);
    await mkdir(base);
    const file = join(base, 'agent.mjs');
    await writeFile(file, 'console.log(1);\n');
    const result = await runCli(['run', '--record', join(file, 'x.tape.jsonl'), '--', process.execPath, '-e', 'console.log("ran")']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trim().split('\n')[0]).toBe(`agentctl: cannot write ${join(file, 'x.tape.jsonl')}: a part of the path is not a directory`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).not.toContain('ran');
  });

  it('a directory or a FIFO at the tape path is refused when the session opens, as replay refuses to read it', async () => {
    const base = join(dir, `kinds-${n++}`);
    await mkdir(join(base, 'dir.tape.jsonl'), { recursive: true });
    execFileSync('mkfifo', [join(base, 'fifo.tape.jsonl')]);
    for (const [name, kind] of [['dir.tape.jsonl', 'it is a directory'], ['fifo.tape.jsonl', 'it is a FIFO, not a regular file']] as const) {
      const tape = join(base, name);
      const thrown = await record({ tape }).catch((e: unknown) => e);
      expect(thrown, name).toBeInstanceOf(InvalidOptionError);
      expect((thrown as Error).message).toBe(`cannot write ${tape}: ${kind}`);
      // The modes that read the tape first refuse it as replay does.
      for (const mode of ['replay', 'new-episodes', 'replay-or-record'] as const) {
        await expect(record({ tape, mode }), `${name} ${mode}`).rejects.toBeInstanceOf(InvalidOptionError);
      }
      expect(existsSync(recordingDir(tape)), name).toBe(false);
    }
  });

  it('an export that fails at finish names the directory keeping the run and how to recover it; the next recording warns about it', async () => {
    const tape = newTape();
    const hidden = recordingDir(tape);
    const rec = await recordOpenAI(client(), { tape });
    await ask(rec, 'hello');
    await mkdir(tape);
    const thrown = await rec.finish().catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(InvalidOptionError);
    const runId = rec.runId as string;
    expect((thrown as Error).message).toBe(`cannot write ${tape}: it is a directory; the recording is kept in ${hidden}`);
    expect((thrown as InvalidOptionError).hint).toBe(`recover it with agentctl export --store ${hidden} ${runId} -o ${tape}, then remove the directory`);

    // The run left there is complete, and the next recording (the tape released by the failure) still warns about it.
    await rm(tape, { recursive: true });
    const warning = await stderrOf(async () => {
      const again = await recordOpenAI(client(), { tape });
      await ask(again, 'weather');
      await again.finish();
    });
    expect(warning).toContain(`agentctl: warning: ${hidden} holds a recording of ${tape} never written to it`);
    expect(answers(await tapeEvents(tape))).toEqual(['Sunny.']);
    const kept = await TapeStore.open(hidden);
    try {
      const runs: { id: string; status: string }[] = [];
      for await (const meta of kept.listRuns()) runs.push({ id: meta.id, status: meta.status });
      expect(runs).toEqual([{ id: runId, status: 'complete' }]);
    } finally {
      await kept.close();
    }
  });
});

describe('one tape file, two sessions of a process', () => {
  it('the second recording is refused while the first is open, and allowed once it finished', async () => {
    const tape = newTape();
    const first = await recordOpenAI(client(), { tape });
    for (const mode of ['record', 'new-episodes', 'replay-or-record'] as const) {
      const thrown = await record({ tape, mode }).catch((e: unknown) => e);
      expect(thrown, mode).toBeInstanceOf(InvalidOptionError);
      expect((thrown as Error).message).toBe(`tape: ${tape} is being recorded by another session of this process`);
    }
    await ask(first, 'hello');
    await first.finish();
    const second = await recordOpenAI(client(), { tape });
    await ask(second, 'weather');
    await second.finish();
    expect(answers(await tapeEvents(tape))).toEqual(['Sunny.']);
  });
});

/** `script` (an ES module using the built agentctl as `agentctl`) in a child process. */
function child(script: string): ChildProcessWithoutNullStreams {
  const index = JSON.stringify(pathToFileURL(join(process.cwd(), 'dist', 'index.js')).href);
  const openai = JSON.stringify(pathToFileURL(join(process.cwd(), 'node_modules', 'openai', 'index.mjs')).href);
  return spawn(process.execPath, ['--input-type=module', '-e', `const agentctl = await import(${index}); const { default: OpenAI } = await import(${openai});\n${script}`], {
    env: { ...process.env, AGENTCTL_MODE: '' },
  });
}

function lines(proc: ChildProcessWithoutNullStreams): { wait(line: string): Promise<void>; out(): string } {
  let out = '';
  const waiting: { line: string; resolve: () => void }[] = [];
  proc.stdout.setEncoding('utf8').on('data', (data: string) => {
    out += data;
    for (const w of [...waiting]) if (out.split('\n').includes(w.line)) w.resolve();
  });
  return {
    wait: (line) => new Promise((resolve) => (out.split('\n').includes(line) ? resolve() : waiting.push({ line, resolve }))),
    out: () => out,
  };
}

describe('tape files across processes', () => {
  it('a recording killed with SIGKILL leaves its hidden store with every reply; the next one warns and keeps it', async () => {
    const tape = newTape();
    const proc = child(`
      const rec = await agentctl.record({ tape: ${JSON.stringify(tape)} });
      const client = new OpenAI({ apiKey: ${JSON.stringify(API_KEY)}, baseURL: ${JSON.stringify(mock.baseURL)}, fetch: rec.fetch, maxRetries: 0 });
      for (const q of ['hello', 'weather', 'bye']) await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: q }] });
      process.kill(process.pid, 'SIGKILL');
    `);
    let stderr = '';
    proc.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const signal = await new Promise((resolve) => proc.once('close', (_code, s) => resolve(s)));
    expect(signal, stderr).toBe('SIGKILL');
    expect(existsSync(tape)).toBe(false);
    const hidden = recordingDir(tape);
    const store = await TapeStore.open(hidden);
    let runId = '';
    try {
      for await (const meta of store.listRuns()) runId = meta.id;
      expect((await store.getRun(runId)).status).toBe('incomplete');
      const events: RunEvent[] = [];
      for await (const event of store.readEvents(runId)) events.push(event);
      expect(answers(events)).toEqual(['Hi there.', 'Sunny.', 'Goodbye.']);
    } finally {
      await store.close();
    }

    const warnings: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      warnings.push(String(text));
      return true;
    });
    try {
      const rec = await recordOpenAI(client(), { tape });
      await ask(rec, 'hello');
      await rec.finish();
    } finally {
      spy.mockRestore();
    }
    const warning = warnings.join('');
    expect(warning).toContain(`agentctl: warning: ${hidden} holds a recording of ${tape} never written to it (its process died, or writing the file failed): kept there`);
    expect(answers(await tapeEvents(tape))).toEqual(['Hi there.']);
    // The command the warning gives recovers the dead recording.
    const recover = /recover one with agentctl (export --store \S+ <run> -o \S+),/.exec(warning)?.[1];
    expect(recover).toBe(`export --store ${hidden} <run> -o ${tape}`);
    const recovered = join(dir, `recovered-${n++}.tape.jsonl`);
    const exported = await runCli(['export', '--store', hidden, runId, '-o', recovered]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(answers(await tapeEvents(recovered))).toEqual(['Hi there.', 'Sunny.', 'Goodbye.']);
    // The dead recording is still there, and only it.
    const kept = await TapeStore.open(hidden);
    try {
      const ids: string[] = [];
      for await (const meta of kept.listRuns()) ids.push(meta.id);
      expect(ids).toEqual([runId]);
    } finally {
      await kept.close();
    }
  });

  it('two processes record two tape files in the same directory at once', async () => {
    const base = join(dir, `parallel-${n++}`);
    const files = [join(base, 'a.tape.jsonl'), join(base, 'b.tape.jsonl')];
    const procs = files.map((file, i) => child(`
      const rec = await agentctl.record({ tape: ${JSON.stringify(file)} });
      const client = new OpenAI({ apiKey: ${JSON.stringify(API_KEY)}, baseURL: ${JSON.stringify(mock.baseURL)}, fetch: rec.fetch, maxRetries: 0 });
      await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: ${JSON.stringify(i === 0 ? 'hello' : 'weather')} }] });
      console.log('recording');
      process.stdin.setEncoding('utf8');
      for await (const chunk of process.stdin) if (chunk.includes('go')) break;
      await rec.finish();
      console.log('done');
    `));
    const outs = procs.map(lines);
    // Both are recording (each holds its own store) before either finishes.
    await Promise.all(outs.map((o) => o.wait('recording')));
    for (const proc of procs) proc.stdin.end('go\n');
    const codes = await Promise.all(procs.map((proc) => new Promise((resolve) => proc.once('close', resolve))));
    expect(codes).toEqual([0, 0]);
    expect(answers(await tapeEvents(files[0] as string))).toEqual(['Hi there.']);
    expect(answers(await tapeEvents(files[1] as string))).toEqual(['Sunny.']);
    expect((await readdir(base)).sort()).toEqual(['a.tape.jsonl', 'b.tape.jsonl']);
  });
});
