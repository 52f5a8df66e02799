/**
 * Assembling a live run: configuration, tools in a workspace, the OpenAI-compatible client, the
 * system clock and a random source seeded from the config. `runAgent` is the library's entry to
 * the built-in agent; the CLI's `record` builds on `prepareRun`.
 */
import { seededRandom, systemClock, type Clock, type Random } from '../core/clock.js';
import type { LeftOutTool, RunEvent } from '../core/events.js';
import type { LlmClient } from '../core/llm.js';
import { openAiLlmFor } from '../llm/openai-llm.js';
import { createWorkspace, hiddenEntries } from '../tools/index.js';
import { buildRegistry } from '../agent/tool-registry.js';
import { usableTools } from '../agent/shell-check.js';
import type { AgentConfig, AgentConfigInput } from '../agent/config.js';
import { parseConfig } from '../agent/load-config.js';
import { runLoop, type LoopDeps, type LoopResult, type UserInput } from '../agent/loop.js';
import { liveToolHost } from '../agent/tool-host.js';

export interface RunAgentOptions {
  task: string;
  /** A validated config, or any subset of one (defaults fill the rest). */
  config?: AgentConfig | AgentConfigInput;
  /** Directory that `toolModules` paths are relative to (default: the current directory). */
  configDir?: string;
  /** OpenAI-compatible endpoint; default `$OPENAI_BASE_URL`, else OpenAI's. */
  baseURL?: string;
  /** Default `$OPENAI_API_KEY`. Never recorded. */
  apiKey?: string;
  /** Tools are confined here; default a fresh temp directory. */
  workspace?: string;
  /** A tape store's directory that no tool may reach, even when it lies in the workspace (the CLI passes its own). */
  storeDir?: string;
  /** Use this client instead of building one (a recorder, a tape). */
  llm?: LlmClient;
  clock?: Clock;
  random?: Random;
  signal?: AbortSignal;
  input?: UserInput;
}

export interface PreparedRun {
  /** The config the run uses: the one asked for, without the tools left out. */
  config: AgentConfig;
  /** Tools the asked-for config enabled that cannot run here (exec_shell without its sandbox), and why. */
  toolsLeftOut: LeftOutTool[];
  workspace: string;
  deps: LoopDeps;
  /** Stop what the run's tools hold open (its MCP servers): call it when the run ends, however it ends. Idempotent. */
  close(): Promise<void>;
}

/** Everything a live run needs, validated up front so bad input fails before any model call. */
export async function prepareRun(options: RunAgentOptions): Promise<PreparedRun> {
  const asked = parseConfig(options.config ?? {}, 'config');
  const clock = options.clock ?? systemClock;
  // A workspace inside the store is refused before it is made there.
  if (options.workspace !== undefined) await hiddenEntries(options.workspace, options.storeDir);
  const workspace = await createWorkspace(options.workspace);
  // An exec_shell that cannot run commands here (no sandbox, no bash) is left out, and the run says
  // so — better than a run refused, or a model paying for calls that all fail.
  const hidden = await hiddenEntries(workspace, options.storeDir);
  const { config, toolsLeftOut } = await usableTools(asked, { workspace, hidden });
  // The MCP servers start here, in parallel, before the first model call.
  const { registry, close } = await buildRegistry(config, options.configDir ?? process.cwd(), { workspace });
  let llm: LlmClient;
  try {
    llm =
      options.llm ??
      openAiLlmFor(
        config,
        {
          baseURL: options.baseURL ?? process.env['OPENAI_BASE_URL'] ?? 'https://api.openai.com/v1',
          apiKey: options.apiKey ?? process.env['OPENAI_API_KEY'] ?? 'not-needed',
        },
        clock,
      );
  } catch (error) {
    await close();
    throw error;
  }
  const deps: LoopDeps = {
    llm,
    tools: liveToolHost(registry, { workspace, clock, storeDir: options.storeDir }),
    clock,
    random: options.random ?? seededRandom(config.seed),
  };
  if (options.signal !== undefined) deps.signal = options.signal;
  if (options.input !== undefined) deps.input = options.input;
  return { config, toolsLeftOut, workspace, deps, close };
}

/** Run the built-in agent on a task, yielding every RunEvent; returns the final state. */
export async function* runAgent(options: RunAgentOptions): AsyncGenerator<RunEvent, LoopResult, void> {
  const prepared = await prepareRun(options);
  try {
    return yield* runLoop({ task: options.task, config: prepared.config, toolsLeftOut: prepared.toolsLeftOut }, prepared.deps);
  } finally {
    // Also when the caller stops early (return() on the generator) or the run throws.
    await prepared.close();
  }
}
