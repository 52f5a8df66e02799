/**
 * What the loop needs from tools: their specs (for the guardrails), their definitions (for the
 * model), a way to run a call, and any extra call policies. Live runs use the registry and the
 * bounded executor; replay swaps in recorded outcomes behind the same interface.
 */
import type { Clock } from '../core/clock.js';
import type { ToolCall, ToolDefinition } from '../core/messages.js';
import type { ToolSpec } from '../core/tools.js';
import { denyUnknownTools, type CallPolicy } from '../guardrails/index.js';
import { executeTool, hiddenEntries, isBuiltinToolName, specOf, type ToolRegistry } from '../tools/index.js';

export interface ToolRunResult {
  status: 'ok' | 'error' | 'timeout';
  output: string;
  durationMs: number;
}

export interface ToolHost {
  lookup(name: string): ToolSpec | undefined;
  definitions(): ToolDefinition[];
  /**
   * Run one call that passed every gate. Never throws for a tool's own failure. A host that has the
   * outcome in hand (a replay's recorded one) may return it as it is: the loop then does not wait.
   */
  execute(call: ToolCall, args: Record<string, unknown>, spec: ToolSpec | undefined, signal: AbortSignal): ToolRunResult | Promise<ToolRunResult>;
  /** Policies asked after the dedup gate (docs/guardrails.md §5: unknown tool, replay side-effect policy). */
  policies: readonly CallPolicy[];
}

/** Options of `liveToolHost`. */
export interface LiveToolOptions {
  /** The directory tools are confined to, or a function giving it when a tool first runs. */
  workspace: string | (() => Promise<string>);
  clock: Clock;
  /** agentctl's store: kept out of every tool's reach when it lies in the workspace (`hiddenEntries`). */
  storeDir?: string;
}

/** Tools that really run, confined to the workspace and kept out of the store. */
export function liveToolHost(registry: ToolRegistry, options: LiveToolOptions): ToolHost {
  const { workspace } = options;
  return {
    lookup: (name) => registry.spec(name),
    definitions: () => registry.definitions(),
    execute: async (call, args, _spec, signal) => {
      const dir = typeof workspace === 'string' ? workspace : await workspace();
      // Each call: the store may be made (in the workspace) after the run started.
      const hidden = await hiddenEntries(dir, options.storeDir);
      return executeTool(registry, call.function.name, args, { workspace: dir, hidden, signal, clock: options.clock });
    },
    policies: [denyUnknownTools],
  };
}

/**
 * The host's custom tools (every tool that is not built in), as specs, in the order the model sees
 * them: what a run's `run_start` records, so a replay never needs the code that defined them.
 */
export function customToolSpecs(host: ToolHost): ToolSpec[] {
  const specs: ToolSpec[] = [];
  for (const { function: { name } } of host.definitions()) {
    const spec = isBuiltinToolName(name) ? undefined : host.lookup(name);
    if (spec !== undefined) specs.push(specOf(spec));
  }
  return specs;
}
