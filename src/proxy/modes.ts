/**
 * What `agentctl proxy` does with a request, by mode — each one a `fetch` from the library
 * (src/library/record-replay.ts), so the proxy records and replays exactly as `record()` / `replay()` do:
 *
 * - `record`: a session in mode `record` (source proxy, the upstream's key taught to the redactor); one run.
 * - `replay`: a session in mode `replay`, no upstream; strict by default, so a request the
 *   tape has no match for gets the `agentctl_replay_mismatch` HTTP 400 (nearest recorded call, first
 *   differing field); `--no-strict` serves it by position and reports the divergence.
 * - `replay-or-record`: a session in mode `new-episodes`: what matches is served, anything else (no
 *   match, or past the tape) goes upstream, and the whole session is recorded as one new run (kind
 *   replay, its parent the tape's run).
 * - `passthrough`: to the upstream, nothing recorded.
 */
import type { RunMeta } from '../core/run-meta.js';
import { describeDivergence, type ReplayState } from '../replay/replay-engine.js';
import { isTapePath } from '../tape/tape-file.js';
import type { TapeSession } from '../library/tape-options.js';
import { openTapeSession } from '../library/tape-session.js';
import { mapPath } from './forward.js';
import type { ProxyHandler } from './server.js';

export const PROXY_MODES = ['record', 'replay', 'replay-or-record', 'passthrough'] as const;
export type ProxyModeName = (typeof PROXY_MODES)[number];

export interface ProxySetup {
  mode: ProxyModeName;
  /** The store directory. */
  store: string;
  /** record: the run's name. */
  name?: string;
  /** replay, replay-or-record: a run (id, prefix, name) in the store, or a tape file. */
  tape?: string;
  /** record, replay-or-record, passthrough. */
  upstream?: URL;
  /** The upstream's API key (from the environment); also taught to the redactor. */
  apiKey: string | undefined;
  /** replay: refuse what the tape has no match for (default) or serve it by position. */
  strict: boolean;
  /** The proxy's own base URL (`http://127.0.0.1:<port>/v1`). */
  self: URL;
  /** A line for the user (standard error). */
  note(line: string): void;
}

/** What the proxy did, for the last line. */
export interface ProxySummary {
  mode: ProxyModeName;
  /** The run recorded (record, replay-or-record). */
  runId: string | null;
  /** The run served (replay, replay-or-record). */
  tapeRunId: string | null;
  requests: number;
  /** Model calls recorded onto the run. */
  recorded: number | null;
  /** Model calls served from the tape. */
  served: number | null;
  /** Model calls sent upstream because the tape had no answer (replay-or-record). */
  upstream: number | null;
  /** Requests answered with an agentctl error (no match, tape exhausted). */
  refused: number | null;
  divergences: number | null;
  /** Recorded calls no request asked for. */
  unused: number | null;
}

export interface ProxyMode extends ProxyHandler {
  readonly mode: ProxyModeName;
  /** The run being recorded, if any. */
  readonly runId: string | null;
  /** The run being served, if any. */
  readonly tapeRun: RunMeta | undefined;
  /** End the run (COMPLETED, 'proxy stopped') and close what was opened. */
  finish(requests: number): Promise<ProxySummary>;
}

const STOPPED = { reason: 'proxy stopped' } as const;

export async function openMode(setup: ProxySetup): Promise<ProxyMode> {
  switch (setup.mode) {
    case 'record':
      return recordMode(setup);
    case 'replay':
    case 'replay-or-record':
      return replayMode(setup);
    case 'passthrough':
      return passthroughMode(setup);
  }
}

function recordMode(setup: ProxySetup): Promise<ProxyMode> {
  const upstream = setup.upstream as URL;
  const tape = { store: setup.store, ...(setup.name === undefined ? {} : { run: setup.name }) };
  return openTapeSession({ tape, mode: 'record' }, { defaultMode: 'record', source: 'proxy', apiKey: setup.apiKey ?? null, environment: false }).then((rec) => ({
    mode: 'record',
    runId: rec.runId ?? null,
    tapeRun: undefined,
    target: (path) => mapPath(upstream, path),
    fetch: rec.fetch,
    apiKey: setup.apiKey,
    finish: async (requests) => {
      const meta = (await rec.finish(STOPPED)) as RunMeta;
      return { ...empty('record', requests), runId: meta.id, recorded: meta.totals?.llmCalls ?? 0 };
    },
  }));
}

async function replayMode(setup: ProxySetup): Promise<ProxyMode> {
  const ref = setup.tape as string;
  const tape = isTapePath(ref) ? ref : { store: setup.store, run: ref };
  const orRecord = setup.mode === 'replay-or-record';
  const replayed = orRecord
    ? await openTapeSession({
      tape,
      // Served when it matches, else upstream; the session is recorded as a new run of the tape.
      mode: 'new-episodes',
      // `url: ''`: the request goes as it is (already mapped onto the upstream here), with the key.
      upstream: { url: '', ...(setup.apiKey === undefined ? {} : { apiKey: setup.apiKey }) },
    }, { defaultMode: 'new-episodes', source: 'proxy', environment: false })
    : await openTapeSession({ tape, mode: 'replay', strict: setup.strict }, { defaultMode: 'replay', environment: false });
  const state = replayed.replay as ReplayState;
  const run = state.run;
  const base = orRecord ? (setup.upstream as URL) : replayBase(run, setup.self);
  let refused = 0;
  let seen = 0;
  return {
    mode: setup.mode,
    runId: replayed.runId ?? null,
    tapeRun: run,
    target: (path) => mapPath(base, path),
    fetch: replayed.fetch,
    apiKey: setup.apiKey,
    observe: async (request, response) => {
      seen = noteCalls(state, seen, setup.note);
      const error = await agentctlError(response);
      if (error === undefined) return;
      refused++;
      setup.note(`agentctl proxy: refused ${request.init.method} ${new URL(request.url).pathname}: ${error}`);
    },
    finish: async (requests) => {
      const meta = await replayed.finish(STOPPED);
      return {
        ...empty(setup.mode, requests),
        runId: meta?.id ?? null,
        tapeRunId: run.id,
        recorded: meta === undefined ? null : (meta.totals?.llmCalls ?? 0),
        ...replayCounts(replayed),
        ...(orRecord ? {} : { upstream: null }),
        refused,
      };
    },
  };
}

function passthroughMode(setup: ProxySetup): Promise<ProxyMode> {
  const upstream = setup.upstream as URL;
  return Promise.resolve({
    mode: 'passthrough',
    runId: null,
    tapeRun: undefined,
    target: (path) => mapPath(upstream, path),
    fetch: (input, init) => globalThis.fetch(input, init),
    apiKey: setup.apiKey,
    finish: (requests) => Promise.resolve(empty('passthrough', requests)),
  });
}

/**
 * Where a replayed request is taken to have gone: the upstream the run was recorded against, so
 * recorded exchanges (matched by path) are found again; the proxy's own `/v1` when the run does not
 * say (its first call was not a model call).
 */
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
          ? `agentctl proxy: request ${call.iteration} is past the end of the tape; sent upstream`
          : `agentctl proxy: request ${call.iteration} is not on the tape (${describeDivergence(divergence)}); sent upstream`,
      );
    } else if (divergence !== undefined) {
      note(`agentctl proxy: divergence: ${describeDivergence(divergence)}; served recorded call ${divergence.recordedIteration}`);
    }
  }
  return state.calls.length;
}

/** The message of an error reply of agentctl's own (no match, tape exhausted, no recording). */
async function agentctlError(response: Response): Promise<string | undefined> {
  if ((response.status !== 400 && response.status !== 404) || response.headers.get('x-should-retry') !== 'false') return undefined;
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown; message?: unknown } };
    const code = body.error?.code;
    return typeof code === 'string' && code.startsWith('agentctl_') ? String(body.error?.message) : undefined;
  } catch {
    return undefined;
  }
}

function replayCounts(replayed: TapeSession): Pick<ProxySummary, 'served' | 'upstream' | 'divergences' | 'unused'> {
  const state = replayed.replay as ReplayState;
  return {
    served: state.calls.filter((c) => c.source !== 'live').length,
    upstream: state.liveCalls,
    divergences: state.divergences.length,
    unused: state.remaining,
  };
}

function empty(mode: ProxyModeName, requests: number): ProxySummary {
  return {
    mode,
    runId: null,
    tapeRunId: null,
    requests,
    recorded: null,
    served: null,
    upstream: null,
    refused: null,
    divergences: null,
    unused: null,
  };
}
