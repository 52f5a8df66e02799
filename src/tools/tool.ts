/**
 * What a tool is at run time: its spec (docs/guardrails.md §2) plus the function that does the work. The spec
 * half is what the guardrails and the provider see; `run` is only ever called by the executor.
 */
import type { ToolSpec } from '../core/tools.js';

/** What a tool may use while it runs. */
export interface ToolContext {
  /** Real path of the directory the tool is confined to. */
  workspace: string;
  /**
   * Real paths inside the workspace no tool may reach (agentctl's store, when it lies there; see
   * `hiddenEntries`): the file tools refuse them, exec_shell's sandbox masks them.
   */
  hidden?: readonly string[];
  /** Aborted when the call times out or the run is cancelled; long-running tools must stop. */
  signal: AbortSignal;
}

/**
 * A runnable tool. `run` resolves to the text the model sees, or throws for a tool error (the
 * executor turns the error's message into the tool message, so write it for the model).
 */
export interface Tool extends ToolSpec {
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<string>;
}

/**
 * A failure the model should read as-is (bad arguments, file not found, path outside the
 * workspace). The executor shows its message without an error-class prefix.
 */
export class ToolError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolError';
  }
}

/** The spec half of a tool, as a plain object (no `run`), safe to store on a tape or log. */
export function specOf(tool: ToolSpec): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    idempotent: tool.idempotent,
    mutating: tool.mutating,
    timeoutMs: tool.timeoutMs,
    ...(tool.mcp === undefined ? {} : { mcp: { server: tool.mcp.server, tool: tool.mcp.tool } }),
  };
}

/**
 * A tool known by its spec alone: a custom tool as a tape recorded it. A tape names code but never
 * has it run (the module it names is not loaded), so this tool has nothing to run and refuses if
 * asked; a replay gives its calls their recorded outcomes instead.
 */
export function specOnlyTool(spec: ToolSpec): Tool {
  return {
    ...specOf(spec),
    run: () => Promise.reject(new ToolError(`${spec.name} was not run: only its recorded definition is known here, not its code`)),
  };
}
