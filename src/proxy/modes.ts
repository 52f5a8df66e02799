/**
 * What the proxy (`agentctl proxy`, `agentctl run`) does with a request, by mode (the words of
 * core/tape-modes.ts) — each one a `fetch` from the library (src/library/record-replay.ts), so the
 * proxy records and replays exactly as `record()` / `replay()` do:
 *
 * - `record`: a session in mode record to the upstream; one run, named after the tape, or a tape
 *   file written when the session ends (the library records a file durably and replaces it whole).
 * - `replay`: a session in mode replay, no upstream; strict by default, so a request the tape has no
 *   match for gets the `agentctl_replay_mismatch` HTTP 400 (nearest recorded call, first differing
 *   field); `--no-strict` serves it by position and reports the divergence.
 * - `replay-or-record`: `replay` when the tape (a run in the store, or a file) exists, else `record`
 *   onto it — decided once, when the session starts.
 * - `new-episodes`: what matches is served, anything else (no match, or past the tape) goes
 *   upstream, and the whole session is recorded as one new run (kind replay, its parent the tape's
 *   run); a tape file is replaced by it.
 * - `passthrough`: to the upstream, nothing recorded.
 *
 * Where a request goes is one route table (routes.ts) in every mode, and what goes upstream goes
 * through one fetch, on node:http (llm/transport/http-fetch.ts).
 */
import { statSync } from 'node:fs';
import { NotFoundError } from '../core/errors.js';
import type { RunMeta } from '../core/run-meta.js';
import type { TapeMode } from '../core/tape-modes.js';
import { httpFetch } from '../llm/transport/http-fetch.js';
import { describeDivergence, type ReplayState } from '../replay/replay-engine.js';
import { isTapePath } from '../tape/tape-file.js';
import { directoryInstead } from '../tape/tape-path.js';
import { TapeStore } from '../tape/tape-store.js';
import { localLink, passthroughLink, type SessionLink } from '../library/mcp-link.js';
import type { TapeOptions, TapeSession } from '../library/tape-options.js';
import { openTapeSession } from '../library/tape-session.js';
import { route, type RouteTable, type Upstream } from './routes.js';
import type { ProxyHandler } from './server.js';

/** What a session did: `replay-or-record` is resolved to one of the two when it starts. */
export type ProxyModeName = Exclude<TapeMode, 'replay-or-record'>;

export interface ProxySetup {
  mode: TapeMode;
  /** The store directory. */
  store: string;
  /**
   * The tape. record: the run's name, or a tape file to write; replay, new-episodes: a run (id,
   * prefix, name) in the store, or a tape file; replay-or-record: either, by whether it exists.
   */
  tape?: string;
  /** Where OpenAI calls go (every mode but replay). */
  upstream?: URL;
  /** The OpenAI upstream's key (from the environment); also taught to the redactor. */
  apiKey: string | undefined;
  /** Anthropic's Messages API, routed apart from the rest (`agentctl run`); absent: those paths go where the rest go. */
  anthropic?: Upstream;
  /** replay: refuse what the tape has no match for (default) or serve it by position. */
  strict: boolean;
  /** The proxy's own base URL (`http://127.0.0.1:<port>/v1`). */
  self: URL;
  /** A line for the user (standard error), without a prefix: the command adds its own. */
  note(line: string): void;
}

/** What the proxy did, for the last line. */
export interface ProxySummary {
  mode: ProxyModeName;
  /** The run recorded (record, new-episodes). */
  runId: string | null;
  /** The run served (replay, new-episodes). */
  tapeRunId: string | null;
  /** The tape file written (record, new-episodes onto a file). */
  file: string | null;
  requests: number;
  /** Model calls recorded onto the run. */
  recorded: number | null;
  /** Model calls served from the tape. */
  served: number | null;
  /** Model calls sent upstream because the tape had no answer (new-episodes). */
  upstream: number | null;
  /** Requests answered with an agentctl error (no match, tape exhausted, no recording). */
  refused: number | null;
  /** Of those, requests past the end of the tape. */
  exhausted: number | null;
  divergences: number | null;
  /** The first divergence, in words (the first differing field). */
  firstDivergence: string | null;
  /** Recorded calls no request asked for. */
  unused: number | null;
}

export interface ProxyMode extends ProxyHandler {
  readonly mode: ProxyModeName;
  /** The run being recorded, if any. */
  readonly runId: string | null;
  /** The run being served, if any. */
  readonly tapeRun: RunMeta | undefined;
  /** The session's MCP link: what `agentctl mcp` wrappers joining the run record onto it or are served from its tape. */
  readonly mcp: SessionLink;
  /** End the run (COMPLETED, 'proxy stopped'), write the tape file if there is one, and close what was opened. */
  finish(requests: number): Promise<ProxySummary>;
}

const STOPPED = { reason: 'proxy stopped' } as const;

export async function openMode(setup: ProxySetup): Promise<ProxyMode> {
  const mode = setup.mode === 'replay-or-record' ? ((await tapeExists(setup.tape as string, setup.store)) ? 'replay' : 'record') : setup.mode;
  switch (mode) {
    case 'record':
      return recordMode(setup);
    case 'replay':
    case 'new-episodes':
      return replayMode(setup, mode);
    case 'passthrough':
      return passthroughMode(setup);
  }
}

/** Whether `ref` names a tape there is: an existing file, or a run in the store. */
export async function tapeExists(ref: string, storeDir: string): Promise<boolean> {
  if (isTapePath(ref)) return statSync(ref, { throwIfNoEntry: false }) !== undefined;
  let store: TapeStore | undefined;
  try {
    store = await TapeStore.open(storeDir, { readOnly: true });
    await store.resolveRun(ref);
    return true;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    // A directory given as the tape: refused as replay refuses it, not recorded under its name.
    const refused = directoryInstead(ref, error);
    if (refused !== error) throw refused;
    return false;
  } finally {
    await store?.close();
  }
}

/** The routes of a session whose OpenAI calls go to `openai`. */
function routes(setup: ProxySetup, openai: URL): RouteTable {
  return { openai: { url: openai, apiKey: setup.apiKey }, ...(setup.anthropic === undefined ? {} : { anthropic: setup.anthropic }) };
}

function recordMode(setup: ProxySetup): Promise<ProxyMode> {
  const table = routes(setup, setup.upstream as URL);
  const tape = setup.tape as string;
  const file = isTapePath(tape) ? tape : undefined;
  return session(setup, { tape: file ?? { store: setup.store, run: tape }, mode: 'record', fetch: httpFetch }).then((rec) => ({
    mode: 'record',
    runId: rec.runId ?? null,
    tapeRun: undefined,
    mcp: localLink(rec),
    route: (path) => route(table, path),
    fetch: rec.fetch,
    finish: async (requests) => {
      const meta = (await rec.finish(STOPPED)) as RunMeta;
      return { ...empty('record', requests), runId: meta.id, file: file ?? null, recorded: meta.totals?.llmCalls ?? 0 };
    },
  }));
}

async function replayMode(setup: ProxySetup, mode: 'replay' | 'new-episodes'): Promise<ProxyMode> {
  const ref = setup.tape as string;
  const file = isTapePath(ref) ? ref : undefined;
  const tape = file ?? { store: setup.store, run: ref };
  const episodes = mode === 'new-episodes';
  const replayed = episodes
    // `url: ''`: what the tape has no match for goes as it is (already routed to its upstream here, with its key).
    ? await session(setup, { tape, mode: 'new-episodes', upstream: { url: '', fetch: httpFetch } })
    : await session(setup, { tape, mode: 'replay', strict: setup.strict });
  const state = replayed.replay as ReplayState;
  const run = state.run;
  const table = episodes ? routes(setup, setup.upstream as URL) : replayRoutes(setup, run);
  const refusals = { all: 0, exhausted: 0 };
  let seen = 0;
  return {
    mode,
    runId: replayed.runId ?? null,
    tapeRun: run,
    mcp: localLink(replayed),
    route: (path) => route(table, path),
    fetch: replayed.fetch,
    observe: async (request, response) => {
      seen = noteCalls(state, seen, setup.note);
      const error = await agentctlError(response);
      if (error === undefined) return;
      refusals.all++;
      if (error.code === 'agentctl_tape_exhausted') refusals.exhausted++;
      setup.note(`refused ${request.init.method} ${new URL(request.url).pathname}: ${error.message}`);
    },
    finish: async (requests) => {
      const meta = await replayed.finish(STOPPED);
      return {
        ...empty(mode, requests),
        runId: meta?.id ?? null,
        tapeRunId: run.id,
        file: meta === undefined ? null : (file ?? null),
        recorded: meta === undefined ? null : (meta.totals?.llmCalls ?? 0),
        ...replayCounts(state),
        ...(episodes ? {} : { upstream: null }),
        refused: refusals.all,
        exhausted: refusals.exhausted,
      };
    },
  };
}

/** A library session as the proxy opens it: its own --mode decides (not AGENTCTL_MODE), recorded as source proxy, the upstream's key taught to the redactor. */
function session(setup: ProxySetup, options: TapeOptions): Promise<TapeSession> {
  const mode = options.mode ?? 'replay';
  return openTapeSession(options, { defaultMode: mode, source: 'proxy', apiKey: setup.apiKey ?? null, environment: false });
}

function passthroughMode(setup: ProxySetup): Promise<ProxyMode> {
  const table = routes(setup, setup.upstream as URL);
  return Promise.resolve({
    mode: 'passthrough',
    runId: null,
    tapeRun: undefined,
    mcp: passthroughLink(),
    route: (path) => route(table, path),
    fetch: httpFetch,
    finish: (requests) => Promise.resolve(empty('passthrough', requests)),
  });
}

/**
 * Where replayed requests are taken to have gone: OpenAI calls to the upstream the run was recorded
 * against, so recorded exchanges (matched by path) are found again — the proxy's own `/v1` when the
 * run does not say (its first call was not a model call); Anthropic calls, when routed apart, to the
 * proxy's origin, the path kept whole as the client sent it. The keys still go with them: a secret
 * the recording redacted hashes the same.
 */
function replayRoutes(setup: ProxySetup, run: RunMeta): RouteTable {
  const table = routes(setup, replayBase(run, setup.self));
  return setup.anthropic === undefined ? table : { ...table, anthropic: { url: new URL(setup.self.origin), apiKey: setup.anthropic.apiKey } };
}

function replayBase(run: RunMeta, self: URL): URL {
  if (run.baseUrl === undefined) return self;
  try {
    const url = new URL(run.baseUrl);
    return url.pathname === '/' || url.pathname === '' ? self : url;
  } catch {
    return self;
  }
}

/** Note the calls served since `seen` that did not simply match the tape; returns the new count. */
function noteCalls(state: ReplayState, seen: number, note: (line: string) => void): number {
  for (const call of state.calls.slice(seen)) {
    // Only a call that did not match has a divergence of its own (a refused request may have left one under the same number).
    const divergence = call.matched === false ? state.divergences.findLast((d) => d.iteration === call.iteration) : undefined;
    if (call.source === 'live') {
      note(
        divergence === undefined
          ? `request ${call.iteration} is past the end of the tape; sent upstream`
          : `request ${call.iteration} is not on the tape (${describeDivergence(divergence)}); sent upstream`,
      );
    } else if (divergence !== undefined) {
      note(`divergence: ${describeDivergence(divergence)}; served recorded call ${divergence.recordedIteration}`);
    }
  }
  return state.calls.length;
}

/** The code and message of an error reply of agentctl's own (no match, tape exhausted, no recording). */
async function agentctlError(response: Response): Promise<{ code: string; message: string } | undefined> {
  if ((response.status !== 400 && response.status !== 404) || response.headers.get('x-should-retry') !== 'false') return undefined;
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown; message?: unknown } };
    const code = body.error?.code;
    return typeof code === 'string' && code.startsWith('agentctl_') ? { code, message: String(body.error?.message) } : undefined;
  } catch {
    return undefined;
  }
}

function replayCounts(state: ReplayState): Pick<ProxySummary, 'served' | 'upstream' | 'divergences' | 'firstDivergence' | 'unused'> {
  const first = state.divergences[0];
  return {
    served: state.calls.filter((c) => c.source !== 'live').length,
    upstream: state.liveCalls,
    divergences: state.divergences.length,
    firstDivergence: first === undefined ? null : describeDivergence(first),
    unused: state.remaining,
  };
}

function empty(mode: ProxyModeName, requests: number): ProxySummary {
  return {
    mode,
    runId: null,
    tapeRunId: null,
    file: null,
    requests,
    recorded: null,
    served: null,
    upstream: null,
    refused: null,
    exhausted: null,
    divergences: null,
    firstDivergence: null,
    unused: null,
  };
}
