/**
 * The tool registry a config asks for: its built-in `tools`, plus its custom tools — loaded from its
 * `toolModules` for a run of the user's own config, or, for a recorded run, known only by the specs
 * its tape recorded (a tape's modules are never loaded). Kept apart from run-agent so that replay,
 * which needs tools but no live model, does not load the openai SDK.
 */
import { resolve } from 'node:path';
import { InvalidOptionError } from '../core/errors.js';
import { MAX_CUSTOM_TOOLS } from '../core/tool-limits.js';
import type { ToolSpec } from '../core/tools.js';
import { ToolRegistry, loadCustomTools, specOnlyTool, type Tool } from '../tools/index.js';
import type { AgentConfig } from './config.js';

/** The registry for a config: its `tools`, plus every tool its `toolModules` export (their code is loaded and run). */
export async function buildRegistry(config: AgentConfig, configDir: string): Promise<ToolRegistry> {
  const custom: Tool[] = [];
  for (const module of config.toolModules) custom.push(...(await loadCustomTools(resolve(configDir, module), configDir)));
  return registryOf(config, custom);
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
