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
import { ToolRegistry, findBwrap, findProgram, loadCustomTools, specOnlyTool, type Tool } from '../tools/index.js';
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
 * For a run about to start live: an InvalidOptionError when its `exec_shell` could not start a
 * command — bash missing, or bubblewrap missing where the command would be sandboxed — better said
 * once, before any model call, than as a failure of every command the model tries. (`exec_shell`
 * itself refuses the same way, call by call.)
 */
export async function checkSandbox(config: AgentConfig, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (!config.tools.includes('exec_shell')) return;
  // Every command starts through bash, which closes agentctl's open files first, sandboxed or not.
  if ((await findProgram('bash', env['PATH'])) === undefined) {
    throw new InvalidOptionError('exec_shell starts commands through bash, and bash is not on PATH', {
      hint: 'install it (apt-get install bash), or leave exec_shell out of the config\'s tools',
    });
  }
  if (config.sandbox === 'none') return;
  if ((await findBwrap(env['PATH'])) !== undefined) return;
  throw new InvalidOptionError('exec_shell runs commands in a bubblewrap sandbox, and bwrap is not installed', {
    hint: 'install it (apt-get install bubblewrap), or set "sandbox": "none" in the config to run exec_shell unconfined',
  });
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
