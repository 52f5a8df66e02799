/**
 * One replay (docs/recording-and-replay.md): the recorded run's loop again, with the tape as its model, recorded (or
 * live) tools, the recorded seed and a clock that moves by the recorded durations. Yields the
 * replay's events — the loop's, renumbered, plus `divergence` events where it departs from the tape
 * — and returns the verdict.
 */
import { rm } from 'node:fs/promises';
import { seededRandom } from '../core/clock.js';
import { abandon, drive, isPromiseLike, nextOf, ready, run, wait, type Co } from '../core/coroutine.js';
import type { DivergenceEvent, RunEvent, RunStartEvent, RunTotals } from '../core/events.js';
import { InvalidOptionError, TapeFormatError } from '../core/errors.js';
import { recordedBy, replayHint } from '../core/run-meta.js';
import type { LlmClient, LlmRequest } from '../core/llm.js';
import type { AssistantMessage } from '../core/messages.js';
import { runRedactor } from '../core/redact.js';
import type { TerminalState } from '../core/states.js';
import type { AgentConfig, AgentConfigInput } from '../agent/config.js';
import { checkConfig } from '../agent/config-file.js';
import { overlayConfig } from '../agent/config-overlay.js';
import { agentLoop, type LoopDeps, type LoopResult } from '../agent/loop.js';
import { liveToolHost } from '../agent/tool-host.js';
import { TapeLlm } from './tape-llm.js';
import { createWorkspace, hiddenEntries } from '../tools/index.js';
import { ReplayComparator, type DivergenceInput } from './compare.js';
import { checkPatchReach } from './patch-reach.js';
import { ReplayClock } from './replay-clock.js';
import { replayToolHost } from './recorded-tools.js';
import { replayTools } from './replay-tools.js';
import type { LoopProgress } from './loop-progress.js';
import { StepCursor } from './step-cursor.js';
import { tapeInput } from './tape-input.js';
import { sourceBatches, type TapeSource } from './tape-source.js';

export interface ReplayOptions {
  source: TapeSource;
  patches?: ReadonlyMap<number, AssistantMessage>;
  fallback?: 'error' | 'live';
  /**
   * The live model for `--fallback live`, built for the replay's own config (the recorded one, or
   * `--config`, with `--set` applied: its time limits bound the live calls); built only if the tape runs out.
   */
  liveLlm?: (config: AgentConfig) => LlmClient;
  /** `tape`: outcomes from the tape only, nothing ever runs (a call without one ends the replay as exhausted). */
  tools?: 'recorded' | 'live' | 'tape';
  allowSideEffects?: boolean;
  /** `--set key=value` what-if overrides: divergences they cause are expected. */
  overrides?: readonly string[];
  /**
   * A replacement config (`--config --config-replace`): an unannounced change, so divergences are
   * unexpected. Its tool modules are loaded (from `configDir`): the only way custom tools run on replay.
   */
  config?: AgentConfig;
  /**
   * Config fields laid over the recorded config (`--config`; config-overlay.ts): the fields it sets
   * win, the rest are the recorded ones. The user's change, as `config` is; its tool modules, when
   * it names some, are loaded as `config`'s are, and otherwise the tape's recorded tools stand.
   */
  configOverlay?: AgentConfigInput;
  strict?: boolean;
  /** Extra redaction patterns (`replay --redact`): the recording's own are not on the tape. */
  redact?: readonly string[];
  /** Replay stream timing at this many times real speed; absent → instant. */
  speed?: number;
  /** How `speed` waits (real time by default; tests give their own). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  workspace?: string;
  /** A tape store's directory that no tool running live may reach, even when it lies in the workspace. */
  storeDir?: string;
  /** Where the `toolModules` of `config` or `configOverlay` (the user's own) are resolved; a tape's own modules are never loaded. */
  configDir?: string;
  signal?: AbortSignal;
}

/** The user's own config for a replay (`--config`): a replacement or fields laid over the recorded one, and where its modules are. */
export type UsersConfig = Pick<ReplayOptions, 'config' | 'configOverlay' | 'configDir'>;

export type Verdict = 'reproduced' | 'diverged' | 'exhausted';

export interface ReplayResult {
  verdict: Verdict;
  /** Final state of the replayed loop; null when a strict replay stopped it. */
  state: TerminalState | null;
  reason: string;
  totals: RunTotals | null;
  firstDivergence: DivergenceInput | null;
  /** The tape event the first divergence concerns (its seq) and the replayed event's type, when known. */
  firstDivergenceAt: { recordedSeq: number | null; replayedType: RunEvent['type'] | null } | null;
  /** True when the first divergence was not expected (no patch or override explains it). */
  unexpected: boolean;
  backInSyncAt: number | null;
  /** Guardrail decisions that came to another verdict or rule than on the tape (`decision` divergences). */
  decisionChanges: number;
  liveCalls: number;
  exhaustedAt: number | null;
  /** With tools from the tape only: the tool outcome the replay needed and the tape did not have. */
  missing: string | null;
  stoppedByStrict: boolean;
  exitCode: number;
}

/**
 * The config a replay runs with: the recorded one, or a replacement, with the overlay laid over it,
 * then what-if overrides. The config schema (zod) is loaded only for a config the quick check cannot
 * vouch for, or for overrides.
 */
export async function replayConfig(source: TapeSource, options: Pick<ReplayOptions, 'config' | 'configOverlay' | 'overrides'>): Promise<AgentConfig> {
  const base = options.config ?? (await recordedConfig(source.meta.config, source.label));
  const config = options.configOverlay === undefined ? base : await overlayConfig(base, options.configOverlay, 'config overlay');
  if (options.overrides === undefined || options.overrides.length === 0) return config;
  const { applyOverrides } = await import('../agent/load-config.js');
  return applyOverrides(config, options.overrides);
}

/** A recorded config as this version reads it (its defaults for settings added since); a bad one is bad tape data. */
async function recordedConfig(value: unknown, label: string): Promise<AgentConfig> {
  try {
    return await checkConfig(value, 'recorded config');
  } catch (error) {
    throw new TapeFormatError(`the recorded config is not valid: ${(error as Error).message}`, { file: label });
  }
}

/** Replay a run, yielding the replay's events (the loop's, renumbered, and divergences); returns the verdict. */
export async function* replayRun(options: ReplayOptions): AsyncGenerator<RunEvent, ReplayResult, void> {
  const held = new Held();
  try {
    return yield* run(replaying(options, held));
  } finally {
    await held.release();
  }
}

/**
 * `replayRun` with a callback per event instead of an async generator: the events reach `onEvent`
 * by a plain call (no promise each), which matters to a long replay. A promise `onEvent` returns is
 * awaited before the replay goes on.
 */
export async function replayEach(options: ReplayOptions, onEvent: (event: RunEvent) => void | Promise<void>): Promise<ReplayResult> {
  const held = new Held();
  try {
    return await drive(replaying(options, held), onEvent);
  } finally {
    await held.release();
  }
}

/**
 * What a replay holds until it ends, whichever way: its own temporary workspace (made when a tool
 * first runs live), removed; and its reading of the tape, stopped (a replay that leaves the tape
 * before its end closes the tape file then, not when the garbage collector finds it).
 */
class Held {
  private made: Promise<string> | undefined;
  reading: StepCursor | undefined;
  /** Stops the MCP servers the replay's tools started. */
  tools: (() => Promise<void>) | undefined;

  readonly workspace = (): Promise<string> => (this.made ??= createWorkspace());

  async release(): Promise<void> {
    await this.tools?.().catch(() => undefined);
    await this.reading?.close().catch(() => undefined);
    const dir = await this.made?.catch(() => undefined);
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}

/** The replay itself, as a coroutine (core/coroutine.ts): the loop driven directly, each event compared as it comes. */
function* replaying(options: ReplayOptions, held: Held): Co<RunEvent, ReplayResult> {
  const { source } = options;
  const by = recordedBy(source.meta);
  if (by !== 'cli') {
    // Its model calls came from an agent agentctl does not have; running the built-in loop on it would replay nothing of it.
    throw new InvalidOptionError(`run ${source.meta.name ?? source.meta.id} was recorded by ${by === 'proxy' ? 'agentctl proxy' : 'the library'}, not by agentctl record`, {
      hint: replayHint(source.meta, by),
    });
  }
  const config = yield* wait(replayConfig(source, options));
  // The user's own config, in whole or in part: what it changes is theirs, its modules theirs to load.
  const usersConfig = options.config !== undefined || options.configOverlay !== undefined;
  const usersModules = options.config !== undefined || options.configOverlay?.toolModules !== undefined;
  const usersServers = options.config !== undefined || options.configOverlay?.mcpServers !== undefined;
  const patches = options.patches ?? new Map<number, AssistantMessage>();
  const fallback = options.fallback ?? 'error';
  checkPatchReach({
    patched: patches.keys(),
    meta: source.meta,
    liveFallback: fallback === 'live' && options.liveLlm !== undefined,
    changed: (options.overrides?.length ?? 0) > 0 || usersConfig || options.tools === 'live',
  });
  if (options.speed !== undefined && !(options.speed > 0)) throw new InvalidOptionError(`speed must be a number above 0, got ${options.speed}`);

  const state: LoopProgress = { step: 0, exhaustedAt: null, liveCalls: 0 };
  const batches = sourceBatches(source);
  const cursor = new StepCursor({ batches: withCurrentDefaults(batches, source.label) });
  held.reading = cursor;
  // The tape's events of a step, for the tape's model, tools and input: each step is loaded (below)
  // as soon as the loop's first event of it arrives, before the loop goes on to use it.
  const recorded = (step: number): readonly RunEvent[] => cursor.group(step).events;
  const clock = new ReplayClock();
  const advance = (ms: number): void => clock.advance(ms);
  // A recording the user cancelled is cancelled again at the same point (see below).
  const cancel = new AbortController();
  let live: LlmClient | undefined;
  const llm = new TapeLlm({
    run: source.meta,
    recorded,
    patches,
    advance,
    onExhausted: (iteration) => {
      state.exhaustedAt ??= iteration;
    },
    onCancelled: () => cancel.abort(new Error('cancelled in the recording')),
    reach: (t) => clock.at(t),
    onLive: (iteration) => {
      state.exhaustedAt ??= iteration;
      state.liveCalls++;
    },
    ...(fallback === 'live' && options.liveLlm !== undefined
      ? { fallback: { complete: (request: LlmRequest, call) => (live ??= options.liveLlm!(config)).complete(request, call) } satisfies LlmClient }
      : {}),
    ...(options.speed === undefined
      ? {}
      : { pace: (ms: number, signal?: AbortSignal) => (options.sleep ?? sleepReal)(ms / (options.speed ?? 1), signal) }),
  });

  // A workspace the user named is checked now; our own temporary one is made only when a tool first
  // runs live — a replay served from its tape (every `ci` replay, most others) never needs one.
  let workspaceNow = held.workspace;
  if (options.workspace !== undefined) {
    yield* wait(hiddenEntries(options.workspace, options.storeDir)); // inside the store: refused before it is made there
    const named = Promise.resolve(yield* wait(createWorkspace(options.workspace)));
    workspaceNow = () => named;
  }
  // The tape's run_start (step 0, loaded now) says which custom tools the run had.
  const stepZero = cursor.load(0);
  const start = (isPromiseLike(stepZero) ? yield* wait(stepZero) : stepZero).events.find((event): event is RunStartEvent => event.type === 'run_start');
  const { registry, recordedOnly, definitionsKnown, close: closeTools } = yield* wait(replayTools({
    config, usersModules, usersServers, configDir: options.configDir ?? process.cwd(), start, label: source.label,
    toolsLive: options.tools === 'live', workspace: workspaceNow,
  }));
  held.tools = closeTools;
  const tools = replayToolHost({
    live: liveToolHost(registry, { workspace: workspaceNow, clock, storeDir: options.storeDir }),
    recorded,
    state,
    mode: options.tools ?? 'recorded',
    recordedOnly,
    allowSideEffects: options.allowSideEffects ?? false,
    advance,
    ...(source.meta.status === 'complete' ? {} : { recordingStoppedBy: (step: number) => cursor.endsBy(step) }),
  });
  // Requests are hashed as the recording hashed them: over their redacted form. The tape holds only
  // redacted text; the user's patterns (not stored on the tape) matter for what runs live.
  const redact = runRedactor({ patterns: [...config.redact, ...(options.redact ?? [])] });
  const deps: LoopDeps = {
    llm,
    tools,
    clock,
    random: seededRandom(config.seed),
    redact,
  };
  if (config.interactive) deps.input = tapeInput(recorded, state);
  deps.signal = options.signal === undefined ? cancel.signal : AbortSignal.any([cancel.signal, options.signal]);

  const whatIf = (options.overrides?.length ?? 0) > 0;
  const complete = source.meta.status === 'complete';
  const comparator = new ReplayComparator({
    cursor, state, patched: new Set(patches.keys()), whatIf, configReplaced: usersConfig, fallback, complete,
  });
  const task = source.meta.task;
  let seq = 0;
  // The loop's events are its own fresh objects: renumbered in place to make room for divergences.
  const stamp = (event: RunEvent): RunEvent => {
    event.seq = seq++;
    return event;
  };
  const divergenceEvent = (input: DivergenceInput, t: number): RunEvent =>
    Object.assign({ type: 'divergence' as const, seq: seq++, step: input.step, t }, input) as DivergenceEvent;

  let result: LoopResult | undefined;
  let stoppedByStrict = false;
  let lastStep = 0;
  let loaded = -1;
  /** The tape's next event, where the replay is: peeked after each event (below). */
  let upcoming: RunEvent | undefined;
  // A request the loop sends is the tape's own when it is the same delta after the same conversation
  // (RequestHasher.hash): it then has the recorded hash, which the tape file's checks verified (a
  // store holds what agentctl wrote), and is not hashed again — the tape's next event is always at
  // hand (the step is loaded), so a request that is the recorded one is always taken so. Only while
  // the replay has followed the tape to the letter (no divergence of any kind so far), and only for
  // a tape whose tool definitions are known (built in, or recorded on it), which a tape file's checks
  // verify each request's hash with.
  const tape = definitionsKnown
    ? {
      recordedRequest: (step: number) =>
        (upcoming?.type === 'llm_request' && upcoming.step === step && comparator.all.length === 0 ? upcoming : undefined),
    }
    : undefined;
  // The loop is driven here directly (a coroutine): its events reach the comparator without a
  // promise each, and only its real waits (the tape's model, tools, timers) go to the driver.
  // What the recording went without, as its run_start says: the replay's run_start says the same,
  // unless the replay's own config (--config, --set tools=…) has the tool back.
  const toolsLeftOut = (start?.toolsLeftOut ?? []).filter((tool) => !config.tools.includes(tool.name));
  const loop = agentLoop({ task, config, toolsLeftOut }, deps, tape);
  try {
    for (let resumed = loop.next(); ; resumed = loop.next()) {
      const next = ready(resumed) ? resumed : yield* nextOf(loop, resumed);
      if (next.done === true) {
        result = next.value;
        break;
      }
      const event = next.value;
      state.step = event.step;
      lastStep = event.step;
      yield stamp(event);
      // A step of the tape is loaded once, at the loop's first event of it: everything the replay
      // asks of the tape about that step is then at hand (a wait only when the step runs past the
      // batch of the tape in hand).
      if (event.step !== loaded) {
        const loading = cursor.load(event.step);
        if (isPromiseLike(loading)) yield* wait(loading);
        loaded = event.step;
      }
      for (const divergence of comparator.observe(event)) {
        yield divergenceEvent(divergence, event.t);
        if (options.strict && !divergence.expected && divergence.kind !== 'resync') stoppedByStrict = true;
      }
      if (stoppedByStrict) break;
      // Before the loop goes on: take the time the tape recorded for what comes next, and if the
      // user cancelled the recording there, cancel the replay there too.
      upcoming = comparator.peek();
      clock.following = upcoming !== undefined;
      if (upcoming !== undefined) {
        // Cancelled first: a cancel recorded past the time limit was still a cancel (the clock
        // reaching the limit fires the replay's deadline).
        if (upcoming.type === 'state' && upcoming.to === 'CANCELLED') cancel.abort(new Error('cancelled in the recording'));
        clock.follow(upcoming.t);
      }
    }
    if (!stoppedByStrict) for (const divergence of comparator.finish(lastStep)) yield divergenceEvent(divergence, clockT(clock));
  } finally {
    if (result === undefined) abandon(loop);
  }
  // A verdict is on the whole tape: the part the replay did not need is still read, so a tape file's
  // checks (tape-checks.ts) refuse a bad line there as import and view do. Not after a Ctrl-C.
  if (options.signal?.aborted !== true) yield* wait(cursor.drain());

  const first = comparator.first;
  const unexpected = first !== null && !first.expected;
  const exhausted = state.exhaustedAt !== null && fallback === 'error';
  const verdict: Verdict = exhausted ? 'exhausted' : first !== null ? 'diverged' : 'reproduced';
  const exitCode = exhausted ? 8 : stoppedByStrict || (options.strict === true && unexpected) ? 7 : 0;
  return {
    verdict,
    state: result?.state ?? null,
    reason: result?.reason ?? 'stopped at the first unexpected divergence (--strict)',
    totals: result?.totals ?? null,
    firstDivergence: first,
    firstDivergenceAt: comparator.firstAt,
    unexpected,
    backInSyncAt: comparator.backInSyncAt,
    decisionChanges: comparator.decisionChanges,
    liveCalls: state.liveCalls,
    exhaustedAt: state.exhaustedAt,
    missing: state.missing ?? null,
    stoppedByStrict,
    exitCode,
  };
}

/**
 * The tape's events, run_start's config read with this version's defaults: a setting added since the
 * tape was recorded (with a default that changes nothing) is not a divergence.
 */
async function* withCurrentDefaults(batches: AsyncIterable<readonly RunEvent[]>, label: string): AsyncGenerator<readonly RunEvent[]> {
  for await (const batch of batches) {
    if (!batch.some((event) => event.type === 'run_start')) {
      yield batch;
      continue;
    }
    const read: RunEvent[] = [];
    for (const event of batch) {
      read.push(event.type === 'run_start' ? { ...event, config: { ...(await recordedConfig(event.config, label)) } } : event);
    }
    yield read;
  }
}

function clockT(clock: ReplayClock): number {
  return Math.round(clock.now() * 100) / 100;
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function sleepReal(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted === true) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
