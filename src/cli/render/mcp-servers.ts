/**
 * The MCP servers a run used, for `agentctl show`: each server's name, how many tools it had and how
 * many calls the run made to them. A run of the built-in agent names its servers in its recorded
 * custom tools (`customTools[].mcp`), which give its tools; any other run's servers are those its
 * events name (the calls and messages `agentctl mcp` recorded), their tools as the last `tools/list`
 * reply listed them (unknown when none was recorded). Calls are the `tool_call` events of each server.
 */
import type { RunEvent } from '../../core/events.js';
import type { ToolSpec } from '../../core/tools.js';
import { count } from '../../core/plural.js';

export interface McpServerUse {
  name: string;
  /** Tools the server had, as the run knew them; null when the run does not say. */
  tools: number | null;
  calls: number;
}

export class McpServerCounts {
  private readonly calls = new Map<string, number>();
  private readonly listed = new Map<string, number>();
  /** The servers the events name, in the order they first came. */
  private readonly named = new Set<string>();

  add(event: RunEvent): void {
    if (event.type === 'tool_call' && event.server !== undefined) {
      this.named.add(event.server);
      this.calls.set(event.server, (this.calls.get(event.server) ?? 0) + 1);
    } else if (event.type === 'mcp_exchange') {
      this.named.add(event.server);
      const tools = event.reply?.result?.['tools'];
      // A listing in pages adds up; a new first page starts the count again.
      if (event.method === 'tools/list' && Array.isArray(tools)) {
        const first = typeof event.params?.['cursor'] !== 'string';
        this.listed.set(event.server, (first ? 0 : (this.listed.get(event.server) ?? 0)) + tools.length);
      }
    }
  }

  /** The servers, with the built-in agent's recorded MCP tools first (in their order), then any other the events name. */
  servers(customTools: readonly ToolSpec[] | undefined): McpServerUse[] {
    const tools = new Map<string, number>();
    for (const spec of customTools ?? []) if (spec.mcp !== undefined) tools.set(spec.mcp.server, (tools.get(spec.mcp.server) ?? 0) + 1);
    const names = [...new Set([...tools.keys(), ...this.named])];
    return names.map((name) => ({ name, tools: tools.get(name) ?? this.listed.get(name) ?? null, calls: this.calls.get(name) ?? 0 }));
  }
}

/** `files (2 tools, 3 calls), docs (1 call)`; empty for a run with none. */
export function mcpServersText(servers: readonly McpServerUse[]): string {
  return servers.map((s) => `${s.name} (${s.tools === null ? '' : `${count(s.tools, 'tool')}, `}${count(s.calls, 'call')})`).join(', ');
}
