/**
 * Whether a live run can offer `exec_shell`: on a machine where it cannot start a command — no
 * sandbox program (bubblewrap on Linux, sandbox-exec on macOS), a sandbox that fails to start (user
 * namespaces not allowed, as in many containers), no bash — the run goes without it rather than not
 * at all, and its run_start says so (`toolsLeftOut`). Found by having the tool run `exit 0` in the
 * run's workspace, as every later command would run: what it refuses with is the reason.
 */
import type { LeftOutTool } from '../core/events.js';
import { ToolError, execShellTool } from '../tools/index.js';
import type { AgentConfig } from './config.js';

/** The run's workspace, and the paths in it no tool may reach. */
export interface ShellCheckPlace {
  workspace: string;
  hidden: readonly string[];
}

/** The config without `name`: not among its tools, no time limit for it. */
export function withoutTool(config: AgentConfig, name: string): AgentConfig {
  const { [name]: _dropped, ...toolTimeouts } = config.toolTimeouts;
  return { ...config, tools: config.tools.filter((tool) => tool !== name), toolTimeouts };
}

/** Why `exec_shell` cannot run commands here, or undefined when it can (or is not among the config's tools). */
export async function shellUnavailable(
  config: AgentConfig, place: ShellCheckPlace, env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  if (!config.tools.includes('exec_shell')) return undefined;
  const limit = config.toolTimeouts['exec_shell'];
  const tool = execShellTool({ sandbox: config.sandbox, env, ...(limit === undefined ? {} : { timeoutMs: limit }) });
  const signal = AbortSignal.timeout(tool.timeoutMs);
  try {
    await tool.run({ command: 'exit 0' }, { workspace: place.workspace, hidden: place.hidden, signal });
    return undefined;
  } catch (error) {
    if (error instanceof ToolError) return error.message;
    if (signal.aborted) return `the sandbox did not run an empty command within ${tool.timeoutMs} ms`;
    throw error;
  }
}

/**
 * The config a live run uses, and what it left out: `config` itself when exec_shell can run commands
 * here, else `config` without exec_shell and the reason.
 */
export async function usableTools(
  config: AgentConfig, place: ShellCheckPlace, env: NodeJS.ProcessEnv = process.env,
): Promise<{ config: AgentConfig; toolsLeftOut: LeftOutTool[] }> {
  const reason = await shellUnavailable(config, place, env);
  if (reason === undefined) return { config, toolsLeftOut: [] };
  return { config: withoutTool(config, 'exec_shell'), toolsLeftOut: [{ name: 'exec_shell', reason }] };
}
