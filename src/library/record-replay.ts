/**
 * Record and replay any agent at the transport. `record()` gives a `fetch` that records and
 * `replay()` one that answers from a tape; hand either to any client that takes a `fetch` option:
 *
 *   const rec = await record({ store: '.agentctl', runName: 'triage' });
 *   const client = new OpenAI({ fetch: rec.fetch });          // a real OpenAI: every endpoint, every helper
 *   const lookup = rec.recordTool('lookup', lookupFn, { idempotent: true, mutating: false });
 *   …
 *   await rec.finish();
 *
 * Both also wrap tool functions (recordTool), so a replay never runs a side effect again.
 */
import { InvalidOptionError } from '../core/errors.js';
import { createRedactor, secretsFromEnv, type Redactor } from '../core/redact.js';
import type { Clock } from '../core/clock.js';
import type { RunMeta } from '../core/run-meta.js';
import { readCallTape, type CallTape, type TapeToolOutcome } from '../replay/call-tape.js';
import { patchesFromRecord, type PatchInput } from '../replay/patches.js';
import { ReplayEngine, type ReplayState } from '../replay/replay-engine.js';
import { CREDENTIAL_HEADERS } from '../llm/transport/http-reply.js';
import { openTapeFile } from '../tape/tape-file.js';
import { runOrDirectory } from '../tape/tape-path.js';
import { TapeStore } from '../tape/tape-store.js';
import { recordingTool, replayingTool, type ToolFunction, type ToolPolicy } from './recorded-tool.js';
import type { FetchLike } from './fetch-like.js';
import { recordingFetch } from './recording-fetch.js';
import { RecordingSession, type FinishOptions } from './recording-session.js';
import { replayingFetch } from './replaying-fetch.js';

export interface RecordOptions {
  /** The store to record into, or its directory (opened here, created if missing, closed by finish()). */
  store: TapeStore | string;
  /** A name for the run (`agentctl show <name>` finds it). */
  runName?: string;
  /** What the run is about, shown by `agentctl ls/show`. Default 'library run'. */
  task?: string;
  /** Extra redaction patterns (regular-expression source), on top of API keys, secret-named environment values and key-shaped strings. */
  redact?: string[];
  /** Where requests really go. Default: the global `fetch`. */
  fetch?: FetchLike;
  /** Measures event times and chunk offsets. Default: the system clock. */
  clock?: Clock;
}

export interface Recording {
  /** The recording `fetch`: pass it as a client's `fetch` option. */
  readonly fetch: FetchLike;
  /** The id of the run being recorded (created at the first call). */
  readonly runId: string;
  /** Wrap a tool function so its calls and outcomes are recorded (and served on replay). */
  recordTool<F extends ToolFunction>(name: string, fn: F, policy?: ToolPolicy): F;
  /** Write `run_end` with the totals, mark the run complete, and return its meta. Idempotent. */
  finish(options?: FinishOptions): Promise<RunMeta>;
}

/** Start recording a run (see the module comment). */
export async function record(options: RecordOptions, internal: { source?: 'library' | 'proxy'; apiKey?: string | null } = {}): Promise<Recording> {
  const { store, owned } = await openStore(options.store, true);
  let redact: KeyRedactor;
  try {
    redact = keyRedactor(options.redact ?? [], internal.apiKey);
  } catch (error) {
    if (owned) await store.close();
    throw error;
  }
  const session = new RecordingSession({
    store,
    ownsStore: owned,
    redact,
    source: internal.source ?? 'library',
    ...(options.runName === undefined ? {} : { runName: options.runName }),
    ...(options.task === undefined ? {} : { task: options.task }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const recording = recordingFetch(session, redact, { ...(options.fetch === undefined ? {} : { fetch: options.fetch }) });
  return {
    fetch: (input, init) => {
      const request = new Request(input, init);
      redact.learn(request.headers);
      return recording(request);
    },
    runId: session.runId,
    recordTool: (name, fn, policy) => recordingTool(session, redact, name, fn, policy),
    finish: (end) => session.finish(end),
  };
}

/** When the tape has no answer: fail (default), or send the call on live. */
export type Fallback =
  | 'error'
  /** To the endpoint the run was recorded against, with the client's own credentials. */
  | 'live'
  /** To this base URL (and key), or through this fetch. */
  | { url?: string; apiKey?: string; fetch?: FetchLike };

export interface ReplayOptions {
  /** A tape file (`.tape.jsonl`, `.tape.jsonl.gz`), or a run (id, id prefix or name) in a store or store directory. */
  tape: string | { store: TapeStore | string; run: string };
  /** Replace the answer of call N (0-based): text, or an assistant message — the shapes of `agentctl replay --patch`. */
  patches?: Readonly<Record<number, PatchInput>>;
  /**
   * Refuse a request that matches no recorded one (an `agentctl_replay_mismatch` error) instead of
   * serving the next by position; with a live fallback, such a request goes live instead.
   */
  strict?: boolean;
  /** When the tape runs out. Default 'error' (an `agentctl_tape_exhausted` error). */
  fallback?: Fallback;
  /**
   * Where the replay is recorded as a run of its own (kind replay, linked to the tape's run): needed
   * with a live fallback, so the live calls are kept. Default: the tape's store, when the tape is a
   * run in a store and the fallback is live; otherwise not recorded.
   */
  save?: TapeStore | string;
  /** Run tools the tape has no outcome for even when they are mutating or not idempotent. */
  allowSideEffects?: boolean;
  /** Extra redaction patterns the recording used, so requests hash the same. */
  redact?: string[];
  /** A name for the replay's own run, when it is recorded. */
  runName?: string;
}

export interface Replay {
  /** The replaying `fetch`: pass it as a client's `fetch` option. */
  readonly fetch: FetchLike;
  /** What the replay has done so far (a live view). */
  readonly replay: ReplayState;
  /** The run the replay is recorded as, when it is (see `save`). */
  readonly runId: string | undefined;
  /** Wrap a tool function so its recorded outcomes are served (see ToolPolicy). */
  recordTool<F extends ToolFunction>(name: string, fn: F, policy?: ToolPolicy): F;
  /** End the replay's own run, if it is recorded, and close what was opened. Idempotent. */
  finish(options?: FinishOptions): Promise<RunMeta | undefined>;
}

/** Load a recorded run and return a replaying fetch for it (see the module comment). */
export async function replay(options: ReplayOptions, internal: { source?: 'library' | 'proxy' } = {}): Promise<Replay> {
  const patches = patchesFromRecord(options.patches ?? {});
  // The same redactor as the recorder's (env secrets too), so the same request hashes the same.
  const redact = keyRedactor(options.redact ?? []);
  const loaded = await loadTape(options.tape);
  const { run, tape } = loaded;
  const engine = new ReplayEngine(run, tape, { ...(options.strict === undefined ? {} : { strict: options.strict }), patches });
  const fallback = options.fallback ?? 'error';
  const saveTo = options.save ?? (fallback !== 'error' ? loaded.store : undefined);
  if (fallback !== 'error' && saveTo === undefined) {
    await loaded.close();
    throw new InvalidOptionError('replay: a live fallback needs `save` (a store or its directory) to record the live calls onto');
  }
  // The tape is in memory now: its store stays open only to record the replay into.
  if (saveTo !== loaded.store) await loaded.close();
  const live = fallback === 'error' ? undefined : liveFetch(fallback, run);
  let served = replayingFetch({ engine, tape, redact, ...(live === undefined ? {} : { live }) });
  let session: RecordingSession | undefined;
  if (saveTo !== undefined) {
    const sameStore = saveTo === loaded.store;
    const { store, owned } = sameStore ? { store: loaded.store as TapeStore, owned: false } : await openStore(saveTo, true);
    session = new RecordingSession({
      store,
      ownsStore: owned,
      redact,
      source: internal.source ?? 'library',
      parentId: run.id,
      task: run.task,
      ...(options.runName === undefined ? {} : { runName: options.runName }),
    });
    served = recordingFetch(session, redact, { fetch: served });
  }
  const used = new Set<TapeToolOutcome>();
  let finished: Promise<RunMeta | undefined> | undefined;
  return {
    fetch: (input, init) => {
      const request = new Request(input, init);
      redact.learn(request.headers);
      return served(request);
    },
    replay: engine.state,
    runId: session?.runId,
    recordTool: (name, fn, policy = {}) => {
      const replayed = replayingTool(tape.tools, used, redact, name, fn, policy, options.allowSideEffects === true);
      return session === undefined ? replayed : recordingTool(session, redact, name, replayed, policy);
    },
    finish: (end) => {
      finished ??= (async () => {
        try {
          return session === undefined ? undefined : await session.finish(end);
        } finally {
          if (saveTo === loaded.store) await loaded.close();
        }
      })();
      return finished;
    },
  };
}

/** Where a live call goes: the recorded endpoint (or the given one) for the same API path. */
function liveFetch(fallback: Exclude<Fallback, 'error'>, run: RunMeta): FetchLike {
  const options = fallback === 'live' ? {} : fallback;
  const upstream = options.fetch ?? globalThis.fetch;
  const base = options.url ?? run.baseUrl;
  return async (input, init) => {
    const request = new Request(input, init);
    const headers = new Headers(request.headers);
    if (options.apiKey !== undefined) headers.set('authorization', `Bearer ${options.apiKey}`);
    if (base === undefined || base === '') return upstream(new Request(request, { headers }));
    const url = new URL(request.url);
    const target = new URL(base.replace(/\/?$/, '/') + apiPath(url.pathname) + url.search);
    const body = request.body === null ? null : await request.text();
    return upstream(new Request(target, { method: request.method, headers, body, signal: request.signal }));
  };
}

/**
 * The API part of a path: from a known endpoint on (`/openai/v1/chat/completions` →
 * `chat/completions`), else the path without its version prefix (`/v1/audio/speech` → `audio/speech`).
 */
function apiPath(pathname: string): string {
  const match = /\/(chat\/completions|responses|embeddings|models|completions|files|moderations)(\/.*)?$/.exec(pathname);
  return match === null ? pathname.replace(/^\/(v\d+\/)?/, '') : match[0].replace(/^\//, '');
}

interface LoadedTape {
  run: RunMeta;
  tape: CallTape;
  store: TapeStore | undefined;
  close(): Promise<void>;
}

async function loadTape(source: ReplayOptions['tape']): Promise<LoadedTape> {
  if (typeof source === 'string') {
    const file = await openTapeFile(source);
    return { run: file.meta, tape: await readCallTape(file.events()), store: undefined, close: async () => {} };
  }
  const { store, owned } = await runOrDirectory(source.run, openStore(source.store, false));
  try {
    const run = await store.resolveRun(source.run);
    return { run, tape: await readCallTape(store.readEvents(run.id)), store, close: async () => (owned ? store.close() : undefined) };
  } catch (error) {
    if (owned) await store.close();
    throw error;
  }
}

async function openStore(store: TapeStore | string, create: boolean): Promise<{ store: TapeStore; owned: boolean }> {
  return typeof store === 'string' ? { store: await TapeStore.open(store, { create }), owned: true } : { store, owned: false };
}

/** A redactor that also learns the credentials clients send (their API keys), so none is ever written. */
interface KeyRedactor extends Redactor {
  learn(headers: Headers): void;
}

function keyRedactor(patterns: readonly string[], apiKey?: string | null): KeyRedactor {
  const keys = new Set<string>(apiKey === undefined || apiKey === null ? [] : [apiKey]);
  const build = (): Redactor => {
    try {
      return createRedactor({ secrets: [...keys, ...secretsFromEnv(process.env)], patterns });
    } catch (error) {
      throw new InvalidOptionError((error as Error).message);
    }
  };
  let current = build();
  const redactor = (<T>(value: T): T => current(value)) as KeyRedactor;
  redactor.text = (input) => current.text(input);
  redactor.spans = (input) => current.spans(input);
  redactor.learn = (headers) => {
    for (const name of CREDENTIAL_HEADERS) {
      const value = headers.get(name)?.replace(/^(Bearer|Basic)\s+/i, '').trim();
      if (value === undefined || value.length < 8 || keys.has(value)) continue;
      keys.add(value);
      current = build();
    }
  };
  return redactor;
}
