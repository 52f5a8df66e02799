/**
 * The flags of the MCP tools a run recorded through `agentctl mcp` listed, for its analysis: what
 * each server's `tools/list` replies said of each tool (its annotations, read as the built-in agent
 * reads them: src/mcp/annotations.ts), so the analysis judges an MCP tool as the built-in agent
 * would have run it. A model calls a tool by whatever name its agent gave it: the tool's own name
 * (what most agents offer it as), the name agentctl offers it by (`<server>__<tool>`), or one made of
 * the server's name and the tool's (src/mcp/event-text.ts, namesMcpTool). A name that names tools of
 * two servers takes the cautious flags of both (idempotent only if both say so, mutating if either
 * does).
 */
import type { RunEvent } from '../core/events.js';
import type { ToolSpec } from '../core/tools.js';
import { annotationsOf, flagsOf, type ToolFlags } from '../mcp/annotations.js';
import { namesMcpTool } from '../mcp/event-text.js';

interface ListedTool {
  server: string;
  tool: string;
  flags: ToolFlags;
}

/** The listed tools' flags, looked up by the name a model called a tool by (see the module comment); a later listing of a server's tool replaces an earlier one. */
export function listedToolFlags(events: readonly RunEvent[]): (name: string) => ToolFlags | undefined {
  const listed = new Map<string, ListedTool>();
  for (const event of events) {
    if (event.type !== 'mcp_exchange' || event.method !== 'tools/list' || event.from !== 'client') continue;
    const tools = event.reply?.result?.['tools'];
    if (!Array.isArray(tools)) continue;
    for (const entry of tools as unknown[]) {
      if (typeof entry !== 'object' || entry === null) continue;
      const { name, annotations } = entry as { name?: unknown; annotations?: unknown };
      if (typeof name !== 'string') continue;
      listed.set(`${event.server}\n${name}`, { server: event.server, tool: name, flags: flagsOf(annotationsOf(annotations)) });
    }
  }
  const tools = [...listed.values()];
  return (name) => {
    let flags: ToolFlags | undefined;
    for (const { server, tool, flags: own } of tools) {
      if (!namesMcpTool(name, tool, server)) continue;
      flags = flags === undefined ? own : { idempotent: flags.idempotent && own.idempotent, mutating: flags.mutating || own.mutating };
    }
    return flags;
  };
}

/** A lookup of the listed tools' specs by name (flags only: the analysis reads nothing else). */
export function listedToolSpecs(events: readonly RunEvent[]): (name: string) => ToolSpec | undefined {
  const flagsOf = listedToolFlags(events);
  return (name) => {
    const found = flagsOf(name);
    return found === undefined ? undefined : { name, description: '', parameters: {}, timeoutMs: 0, ...found };
  };
}
