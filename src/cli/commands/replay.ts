/**
 * `agentctl replay <run | file.tape.jsonl>`: run the recorded loop again against its tape, print
 * every event (or NDJSON), report where and how it departs from the tape, and save it as a new run
 * linked to its parent (unless --no-save). Exit 0 reproduced / as expected, 7 strict divergence,
 * 8 tape exhausted with --fallback error.
 */
import type { AgentConfig } from '../../agent/config.js';
import type { LlmClient } from '../../core/llm.js';
import type { RunEvent } from '../../core/events.js';
import { UsageError } from '../../core/errors.js';
import { runRedactor } from '../../core/redact.js';
import { mcpConfigSecrets } from '../../mcp/server-config.js';
import { untrustedPatternError } from '../../core/untrusted-pattern.js';
import { loadPatches } from '../../replay/load-patches.js';
import { replayEach, type ReplayOptions, type ReplayResult } from '../../replay/replay-run.js';
import { openTapeSource } from '../../replay/tape-source.js';
import { checkedTapes } from '../tape-cache.js';
import type { RunRecorder } from '../../tape/run-recorder.js';
import { isTapePath } from '../../tape/tape-file.js';
import type { TapeStore } from '../../tape/tape-store.js';
import { displayKind, openDisplay, type Display } from '../display.js';
import type { GlobalOptions } from '../io.js';
import { modelEndpoint } from '../model-endpoint.js';
import { usersConfig } from '../users-config.js';
import { replayReport } from '../render/replay-report.js';
import { abortOnSigint } from '../signals.js';
import { openStore, storeDir } from '../store-dir.js';

export interface ReplayCommandOptions extends GlobalOptions {
  patch?: string[];
  fallback: 'error' | 'live';
  tools: 'recorded' | 'live';
  allowSideEffects?: boolean;
  set?: string[];
  config?: string;
  configReplace?: boolean;
  strict?: boolean;
  speed?: string;
  baseUrl?: string;
  model?: string;
  save: boolean;
  workspace?: string;
  redact?: string[];
}

export async function runReplay(ref: string, options: ReplayCommandOptions): Promise<void> {
  const kind = displayKind(options);
  for (const pattern of options.redact ?? []) {
    const error = untrustedPatternError(pattern);
    if (error !== undefined) throw new UsageError(`bad --redact pattern '${pattern}': ${error}`);
  }
  const patches = await loadPatches(options.patch ?? []);
  const speed = options.speed === undefined ? undefined : Number(options.speed);
  if (speed !== undefined && !(speed > 0)) throw new UsageError(`--speed must be a number above 0, got '${options.speed}'`);
  const ownConfig = await usersConfig(options);

  // The store (and LevelDB with it) is loaded only when it is used: a tape file replayed with
  // --no-save never opens it (test/startup-imports.test.ts checks that `level` is not even loaded).
  // With --no-save it is only read: a store this process may not write is read all the same.
  let store: TapeStore | undefined;
  const storeNow = async (): Promise<TapeStore> =>
    (store ??= await openStore(storeDir(options.store), options.save ? { create: isTapePath(ref) } : { readOnly: true }));
  const closeStore = async (): Promise<void> => {
    const open = store;
    store = undefined;
    await open?.close();
  };
  const sigint = abortOnSigint();
  try {
    const source = await openTapeSource(ref, storeNow, checkedTapes());
    let liveLlm: ((config: AgentConfig) => LlmClient) | undefined;
    if (options.fallback === 'live') {
      const endpoint = modelEndpoint(options.baseUrl ?? source.meta.baseUrl, process.env);
      // The SDK is loaded only now: a replay that stays on its tape never needs it.
      const { openAiLlmFor } = await import('../../llm/openai-llm.js');
      const client = (config: AgentConfig): LlmClient => openAiLlmFor(config, endpoint);
      liveLlm = options.model === undefined ? client : (config) => withModel(client(config), options.model as string);
    }
    const replayOptions: ReplayOptions = {
      source,
      patches,
      fallback: options.fallback,
      tools: options.tools,
      allowSideEffects: options.allowSideEffects ?? false,
      overrides: options.set ?? [],
      strict: options.strict ?? false,
      signal: sigint.signal,
      storeDir: storeDir(options.store),
      ...(liveLlm === undefined ? {} : { liveLlm }),
      ...ownConfig,
      ...(speed === undefined ? {} : { speed }),
      ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
      ...(options.redact === undefined ? {} : { redact: options.redact }),
    };

    // Saving: the first event tells us the effective config; the recorder starts lazily.
    // The user's own servers (--tools live) may say back what their config gives them.
    const servers = (ownConfig?.config ?? ownConfig?.configOverlay)?.mcpServers;
    const redact = runRedactor({ patterns: options.redact ?? [], secrets: mcpConfigSecrets(servers, process.env) });
    let recorder: RunRecorder | undefined;
    let result: ReplayResult | undefined;
    let display: Display | undefined;
    try {
      try {
        display = await openDisplay(kind, options, {
          session: {
            mode: (options.set?.length ?? 0) > 0 ? 'what-if' : 'replaying',
            runId: source.meta.id,
            ...(source.meta.name === undefined ? {} : { name: source.meta.name }),
            ...(source.label === source.meta.id ? {} : { source: source.label }),
            patched: [...patches.keys()],
          },
          redact,
          onCancel: sigint.cancel,
        });
        const shown = display;
        const saveAndShow = async (event: RunEvent): Promise<void> => {
          if (recorder === undefined && event.type === 'run_start') {
            const { RunRecorder } = await import('../../tape/run-recorder.js');
            recorder = await RunRecorder.start(
              await storeNow(),
              {
                kind: 'replay',
                source: 'cli',
                parentId: source.meta.id,
                task: event.task,
                model: event.model,
                config: event.config,
                seed: event.seed,
                ...(source.meta.baseUrl === undefined ? {} : { baseUrl: source.meta.baseUrl }),
              },
              redact,
            );
          }
          await recorder?.write(event);
          await shown.event(event);
        };
        // Each event is saved (when saving) before the replay goes on, then shown. Without saving an
        // event costs a promise only when the UI is due a turn to draw (display.ts).
        result = await replayEach(replayOptions, options.save ? saveAndShow : (event) => shown.event(event));
      } finally {
        await recorder?.finish(result?.state == null || result.totals === null ? null : { finalState: result.state, totals: result.totals });
      }
      // The run is saved: the store is released now, while the UI still shows the replay.
      await closeStore();
    } catch (error) {
      await display?.dispose();
      throw error;
    }

    const runId = recorder?.runId ?? null;
    // Stopped by the user (Ctrl-C): the exit code of a cancelled command, whatever the replay had found so far.
    const exitCode = sigint.signal.aborted ? 130 : result.exitCode;
    process.exitCode = exitCode;
    const summary = {
      runId,
      state: result.state ?? 'STOPPED',
      steps: result.totals?.steps ?? 0,
      exitCode,
      verdict: result.verdict,
      firstDivergence: result.firstDivergence === null ? null : { ...result.firstDivergence },
      liveCalls: result.liveCalls,
      backInSyncAt: result.backInSyncAt,
      parentId: source.meta.id,
    };
    await display.finish(summary, replayReport({ ...result, exitCode }, runId));
  } finally {
    sigint.dispose();
    await closeStore();
  }
}

/** A client that asks for another model than the recorded one (`--model` with `--fallback live`). */
function withModel(client: LlmClient, model: string): LlmClient {
  return { complete: (request, call) => client.complete({ ...request, model }, call) };
}
