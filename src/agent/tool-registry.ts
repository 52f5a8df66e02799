/**
 * The tool registry a config asks for: its built-in `tools`, plus its custom tools — loaded from its
 * `toolModules` and its MCP servers' tools (`mcpServers`, started here) for a run of the user's own
 * config, or, for a recorded run, known only by the specs its tape recorded (a tape's modules are
 * never loaded, its servers never started). Kept apart from run-agent so that replay, which needs
 * tools but no live model, does not load the openai SDK.
 */
import { resolve } from 'node:path';
import { InvalidOptionError } from '../core/errors.js';
import { MAX_CUSTOM_TOOLS } from '../core/tool-limits.js';
import type { ToolSpec } from '../core/tools.js';
import { startMcpTools } from '../mcp/mcp-tools.js';
import { ToolRegistry, isBuiltinToolName, loadCustomTools, specOnlyTool, type Tool } from '../tools/index.js';
import type { AgentConfig } from './config.js';

/** A registry whose tools may hold servers open: `close` stops them (idempotent; nothing to do without MCP servers). */
export interface LiveRegistry {
  registry: ToolRegistry;
  close(): Promise<void>;
}

export interface BuildRegistryOptions {
  /** The run's workspace (`${AGENTCTL_WORKSPACE}` in `mcpServers`); needed only when the config names servers. */
  workspace?: string | (() => Promise<string>);
  /** Where `${VAR}` in `mcpServers` is read from; default agentctl's environment. */
  env?: NodeJS.ProcessEnv;
  /** Start no MCP server: their tools are these recorded specs instead (a replay whose tools do not run live). */
  recordedMcpTools?: readonly ToolSpec[];
  /** Load no `toolModules`: the custom tools are these recorded specs instead (a tape's modules are never loaded). */
  recordedCustomTools?: readonly ToolSpec[];
}

/**
 * The registry for a config: its `tools`, every tool its `toolModules` export (their code is loaded
 * and run), and every tool of its `mcpServers` (the servers are started; `close` stops them).
 */
export async function buildRegistry(config: AgentConfig, configDir: string, options: BuildRegistryOptions = {}): Promise<LiveRegistry> {
  const custom: Tool[] = options.recordedCustomTools?.map(specOnlyTool) ?? [];
  if (options.recordedCustomTools === undefined) {
    for (const module of config.toolModules) custom.push(...(await loadCustomTools(resolve(configDir, module), configDir)));
  }
  const servers = config.mcpServers ?? {};
  if (options.recordedMcpTools !== undefined || Object.keys(servers).length === 0) {
    const mcp = (options.recordedMcpTools ?? []).map(specOnlyTool);
    return { registry: registryOf(config, checkedNames(custom, mcp)), close: () => Promise.resolve() };
  }
  const workspace = typeof options.workspace === 'function' ? await options.workspace() : options.workspace;
  if (workspace === undefined) throw new InvalidOptionError('a config with \'mcpServers\' needs the run\'s workspace to start them');
  const mcp = await startMcpTools(servers, { workspace, configDir, env: options.env ?? process.env });
  try {
    return { registry: registryOf(config, checkedNames(custom, mcp.tools)), close: mcp.close };
  } catch (error) {
    await mcp.close();
    throw error;
  }
}

/** The custom and MCP tools together, refused when an MCP tool would take the name of a built-in or custom tool. */
function checkedNames(custom: readonly Tool[], mcp: readonly Tool[]): Tool[] {
  const taken = new Set(custom.map((tool) => tool.name));
  for (const tool of mcp) {
    const origin = tool.mcp === undefined ? '' : ` (tool '${tool.mcp.tool}' of MCP server '${tool.mcp.server}')`;
    if (isBuiltinToolName(tool.name)) throw new InvalidOptionError(`MCP tool '${tool.name}'${origin} has the name of a built-in tool`);
    if (taken.has(tool.name)) throw new InvalidOptionError(`MCP tool '${tool.name}'${origin} has the name of a custom tool from 'toolModules'`);
  }
  return [...custom, ...mcp];
}

/**
 * The registry of a recorded run, with no code loaded: the config's built-in `tools`, and its custom
 * tools as the run's `run_start` recorded them, which never run (specOnlyTool).
 */
export function recordedRegistry(config: AgentConfig, customTools: readonly ToolSpec[]): ToolRegistry {
  return registryOf(config, customTools.map(specOnlyTool));
}

/** The config's `tools` and the custom tools in the order the model sees them, each limit of `toolTimeouts` applied. */
function registryOf(config: AgentConfig, custom: readonly Tool[]): ToolRegistry {
  // A run_start records every custom tool, and a tape holds at most this many.
  if (custom.length > MAX_CUSTOM_TOOLS) throw new InvalidOptionError(`${custom.length} custom tools: a run may have at most ${MAX_CUSTOM_TOOLS}`);
  const names = [...config.tools, ...custom.map((t) => t.name).filter((name) => !config.tools.includes(name))];
  // A limit for a tool that is not enabled is a typo; silently ignoring it would leave the default limit.
  const unknown = Object.keys(config.toolTimeouts).filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new InvalidOptionError(`config 'toolTimeouts' names ${unknown.map((n) => `'${n}'`).join(', ')}, not an enabled tool`, {
      hint: `enabled tools: ${names.join(', ')}`,
    });
  }
  return ToolRegistry.fromNames(names, { custom, timeouts: config.toolTimeouts, sandbox: config.sandbox });
}

/**
 * The custom tools a recorded run's `run_start` gives: its recorded specs (none for a run without
 * tool modules), or null for a run that loaded tool modules and whose tape does not record their
 * tools (a tape from before they were recorded): its requests' tool definitions are then unknown.
 */
export function recordedCustomTools(start: { config: Record<string, unknown>; customTools?: ToolSpec[] | undefined }): readonly ToolSpec[] | null {
  if (start.customTools !== undefined) return start.customTools;
  const modules = start.config['toolModules'];
  return Array.isArray(modules) && modules.length > 0 ? null : [];
}
