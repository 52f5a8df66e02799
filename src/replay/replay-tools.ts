/**
 * The tool registry of a replay. A tape names code — its config's `toolModules` — but never has it
 * run: a tape is untrusted input, and a module beside it would run with all of agentctl's rights. The
 * run's custom tools are the specs its `run_start` recorded: the model is shown what it was shown,
 * the guardrails read the recorded flags, and calls get their recorded outcomes (recorded-tools.ts).
 * Custom tools run live only from the user's own config (a `--config` that names `toolModules`), whose
 * modules are the user's. The same holds for MCP servers: the tape's `mcpServers` are never started
 * (their tools are the specs run_start recorded); the servers of the user's own config are, when its
 * tools run live (`--tools live`), and stopped when the replay ends (`close`).
 */
import type { AgentConfig } from '../agent/config.js';
import { buildRegistry, recordedCustomTools, recordedRegistry } from '../agent/tool-registry.js';
import { InvalidOptionError } from '../core/errors.js';
import type { RunStartEvent } from '../core/events.js';
import type { ToolRegistry } from '../tools/index.js';

export interface ReplayTools {
  registry: ToolRegistry;
  /** Stop the MCP servers the replay started (none unless the user's config names some and tools run live). */
  close(): Promise<void>;
  /** Tools known only by their recorded spec: they never run, whatever the replay's `--tools`. */
  recordedOnly: ReadonlySet<string>;
  /**
   * Whether the tape's tool definitions are all known (built in, or recorded): a tape file's checks
   * then verified every request's hash, which a replay may take as it is (RequestHasher.hash).
   */
  definitionsKnown: boolean;
}

export interface ReplayToolsOptions {
  /** The config the replay runs with: the recorded one (with `--set` overrides), or the user's, in whole or in part. */
  config: AgentConfig;
  /** True when the `toolModules` of `config` are the user's own (`--config` names them): they are loaded from `configDir`. */
  usersModules: boolean;
  /** True when the `mcpServers` of `config` are the user's own (`--config` names them): they are started when tools run live. */
  usersServers?: boolean;
  configDir: string;
  /** The tape's `run_start` (undefined when the tape has none). */
  start: RunStartEvent | undefined;
  /** The tape, for messages. */
  label: string;
  /** Whether tools run live (`--tools live`): only then are the user's config's MCP servers started. */
  toolsLive?: boolean;
  /** The replay's workspace (`${AGENTCTL_WORKSPACE}`), made when a server is started. */
  workspace?: () => Promise<string>;
}

const nothingToClose = (): Promise<void> => Promise.resolve();

export async function replayTools(options: ReplayToolsOptions): Promise<ReplayTools> {
  const { config, start } = options;
  const recorded = start === undefined ? [] : recordedCustomTools(start);
  const definitionsKnown = recorded !== null;
  const startServers = options.usersServers === true && options.toolsLive === true && Object.keys(config.mcpServers ?? {}).length > 0;
  const live = startServers && options.workspace !== undefined ? { workspace: options.workspace } : {};
  // Servers not started: the recorded MCP tools stand in for them, known by their specs only.
  const recordedMcp = (recorded ?? []).filter((tool) => tool.mcp !== undefined);
  if (options.usersModules) {
    const { registry, close } = await buildRegistry(config, options.configDir, startServers ? live : { recordedMcpTools: recordedMcp });
    return { registry, close, recordedOnly: new Set(startServers ? [] : recordedMcp.map((tool) => tool.name)), definitionsKnown };
  }
  if (recorded === null) {
    const named = start?.config['toolModules'] as unknown[];
    const modules = named.slice(0, 3).join(', ') + (named.length > 3 ? ` and ${named.length - 3} more` : '');
    throw new InvalidOptionError(
      `${options.label} was recorded with custom tools from ${modules}, and the tape does not record their definitions (agentctl never loads code a tape names): replay it with your own config that loads them, --config <file>`,
    );
  }
  if (startServers) {
    // The user's servers, beside the tape's custom tools as recorded (their modules are never loaded).
    const custom = recorded.filter((tool) => tool.mcp === undefined);
    const { registry, close } = await buildRegistry(config, options.configDir, { ...live, recordedCustomTools: custom });
    return { registry, close, recordedOnly: new Set(custom.map((tool) => tool.name)), definitionsKnown };
  }
  const recordedOnly = new Set(recorded.map((tool) => tool.name));
  return { registry: recordedRegistry(config, recorded), close: nothingToClose, recordedOnly, definitionsKnown };
}
