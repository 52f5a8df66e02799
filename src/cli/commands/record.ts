/**
 * `agentctl record`: run the agent live against a model, print one line per event (or NDJSON with
 * `--json`), and write the whole run to the store. Exits with the final state's code.
 */
import { relative, resolve } from 'node:path';
import type { AgentConfig } from '../../agent/config.js';
import { configDirOf, loadConfigFile } from '../../agent/config-file.js';
import { applyOverrides } from '../../agent/load-config.js';
import { prepareRun, type PreparedRun } from '../../library/run-agent.js';
import { runLoop, type LoopResult } from '../../agent/loop.js';
import { UsageError } from '../../core/errors.js';
import { runRedactor } from '../../core/redact.js';
import { mcpConfigSecrets } from '../../mcp/server-config.js';
import { printableLine } from '../../core/terminal-text.js';
import { RunRecorder } from '../../tape/run-recorder.js';
import { displayKind, openDisplay, type Display } from '../display.js';
import { lowerHelperThreads } from '../helper-threads.js';
import { note, type GlobalOptions } from '../io.js';
import { modelEndpoint } from '../model-endpoint.js';
import { abortOnSigint } from '../signals.js';
import { terminalInput } from '../terminal-input.js';
import { storeDir } from '../store-dir.js';
import { withStore } from '../with-store.js';

export interface RecordOptions extends GlobalOptions {
  task: string;
  config: string;
  model?: string;
  baseUrl?: string;
  workspace?: string;
  stream?: boolean;
  name?: string;
  seed?: string;
  redact?: string[];
  interactive?: boolean;
  set?: string[];
}

export async function runRecord(options: RecordOptions, configWasGiven: boolean): Promise<void> {
  const config = await effectiveConfig(options, configWasGiven);
  const kind = displayKind(options, { interactive: config.interactive });
  const endpoint = modelEndpoint(options.baseUrl, process.env);
  // The config's patterns are valid regular expressions (checked with the config).
  // What the config gives its MCP servers is secret too: a server may say it back in a tool's answer.
  const redact = runRedactor({ apiKey: endpoint.apiKey, patterns: config.redact, secrets: mcpConfigSecrets(config.mcpServers, process.env) });
  const sigint = abortOnSigint();
  const input = config.interactive ? terminalInput() : undefined;
  let prepared: PreparedRun | undefined;
  try {
    prepared = await prepareRun({
      task: options.task,
      config,
      configDir: process.cwd(),
      baseURL: endpoint.baseURL,
      apiKey: endpoint.apiKey,
      signal: sigint.signal,
      storeDir: storeDir(options.store),
      ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
      ...(input === undefined ? {} : { input }),
    });
    // The hash is taken over the redacted request: the tape (and so any replay) only has redacted text.
    prepared.deps.redact = redact;
    const { toolsLeftOut, config: runConfig, deps, workspace } = prepared;
    // Its reason can quote the sandbox's own output (bwrap's message): one line, no control characters.
    for (const tool of toolsLeftOut) note(printableLine(`agentctl: running without ${tool.name}: ${tool.reason}`));
    // The display is opened once the run has an id, and outlives the store: the store is closed as
    // soon as the run is written, while the UI still shows it, so other commands can use it.
    let display: Display | undefined;
    let recorded: { runId: string; result: LoopResult; display: Display };
    try {
      recorded = await withStore(options, { create: true }, async (store) => {
        // The loop's thread first: a synced model reply is waited on as soon as the disk is done.
        lowerHelperThreads();
        const recorder = await RunRecorder.start(
          store,
          {
            kind: 'record',
            source: 'cli',
            task: options.task,
            model: config.model,
            baseUrl: endpoint.recordable,
            config: { ...runConfig },
            seed: config.seed,
            ...(options.name === undefined ? {} : { name: options.name }),
          },
          redact,
        );
        if (kind === 'text' && !options.quiet) note(`recording run ${recorder.runId} (workspace ${workspace})`);
        let result: LoopResult | undefined;
        try {
          const shown = (display = await openDisplay(kind, options, {
            session: { mode: 'recording', runId: recorder.runId, ...(options.name === undefined ? {} : { name: options.name }) },
            redact,
            onCancel: sigint.cancel,
          }));
          const loop = runLoop({ task: options.task, config: runConfig, toolsLeftOut }, deps);
          try {
            for (let next = await loop.next(); ; next = await loop.next()) {
              if (next.done) {
                result = next.value;
                break;
              }
              // Written (durably, for responses) before the loop is resumed to act on the event.
              await recorder.write(next.value);
              const turn = shown.event(next.value);
              if (turn !== undefined) await turn;
            }
          } finally {
            // A write or the display failed: the loop is ended too (its model call in flight aborted, its deadline timer cleared).
            if (result === undefined) await loop.return(undefined as never);
          }
          return { runId: recorder.runId, result, display: shown };
        } finally {
          await recorder.finish(result === undefined ? null : { finalState: result.state, totals: result.totals });
        }
      });
    } catch (error) {
      await display?.dispose();
      throw error;
    }
    const { runId, result } = recorded;
    process.exitCode = result.exitCode;
    await recorded.display.finish({ runId, state: result.state, steps: result.totals.steps, exitCode: result.exitCode });
  } finally {
    // The run's MCP servers stop with it: at its end, on an error, on Ctrl-C.
    await prepared?.close();
    sigint.dispose();
    input?.close();
  }
}

async function effectiveConfig(options: RecordOptions, configWasGiven: boolean): Promise<AgentConfig> {
  let config = await loadConfigFile(resolve(options.config), configWasGiven);
  const overrides = [...(options.set ?? [])];
  if (options.model !== undefined) overrides.push(`model=${JSON.stringify(options.model)}`);
  if (options.stream) overrides.push('stream=true');
  if (options.interactive) overrides.push('interactive=true');
  if (options.seed !== undefined) {
    if (!/^-?\d+$/.test(options.seed)) throw new UsageError(`--seed must be an integer, got '${options.seed}'`);
    overrides.push(`seed=${options.seed}`);
  }
  if (options.redact !== undefined) overrides.push(`redact=${JSON.stringify([...config.redact, ...options.redact])}`);
  if (overrides.length > 0) config = applyOverrides(config, overrides);
  // Recorded relative to where agentctl runs (not to the config file), as the project's paths are
  // written: for the reader of the tape (`show`), never for loading — a replay uses the tools'
  // recorded definitions (run_start's customTools), and loads modules only from the user's --config.
  const configDir = configDirOf(options.config);
  const fromHere = (path: string): string => relative(process.cwd(), resolve(configDir, path)) || '.';
  const recorded: AgentConfig = { ...config, toolModules: config.toolModules.map(fromHere) };
  // A stdio server runs in the config file's directory, or in its `cwd` read from there: said so
  // from where agentctl runs, as toolModules are. A `${VAR}` in it is expanded only when it starts.
  if (config.mcpServers !== undefined) {
    recorded.mcpServers = Object.fromEntries(
      Object.entries(config.mcpServers).map(([name, server]) => [
        name,
        server.command === undefined || server.cwd?.includes('${') === true ? server : { ...server, cwd: fromHere(server.cwd ?? '.') },
      ]),
    );
  }
  return recorded;
}
