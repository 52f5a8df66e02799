/**
 * The tool registry a config asks for: its built-in `tools`, plus every tool its `toolModules`
 * export. Kept apart from run-agent so that replay, which needs tools but no live model, does not
 * load the openai SDK.
 */
import { resolve } from 'node:path';
import { InvalidOptionError } from '../core/errors.js';
import { ToolRegistry, findBwrap, loadCustomTools, type Tool } from '../tools/index.js';
import type { AgentConfig } from './config.js';

/** The registry for a config: its `tools`, plus every tool its `toolModules` export. */
export async function buildRegistry(config: AgentConfig, configDir: string): Promise<ToolRegistry> {
  const custom: Tool[] = [];
  for (const module of config.toolModules) custom.push(...(await loadCustomTools(resolve(configDir, module), configDir)));
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
 * For a run about to start live: an InvalidOptionError when its `exec_shell` would be sandboxed and
 * bubblewrap is not installed — better said once, before any model call, than as a failure of
 * every command the model tries. (`exec_shell` itself refuses the same way, call by call.)
 */
export async function checkSandbox(config: AgentConfig, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (config.sandbox === 'none' || !config.tools.includes('exec_shell')) return;
  if ((await findBwrap(env['PATH'])) !== undefined) return;
  throw new InvalidOptionError('exec_shell runs commands in a bubblewrap sandbox, and bwrap is not installed', {
    hint: 'install it (apt-get install bubblewrap), or set "sandbox": "none" in the config to run exec_shell unconfined',
  });
}
