/**
 * The flags of the MCP tools a run recorded through `agentctl mcp` listed, for its analysis: what
 * each server's `tools/list` replies said of each tool (its annotations, read as the built-in agent
 * reads them: src/mcp/annotations.ts), so the analysis judges an MCP tool as the built-in agent
 * would have run it. A model calls a tool by whatever name its agent gave it; two are known: the
 * tool's own name (what most agents offer it as), and the name agentctl offers it by
 * (`<server>__<tool>`, src/mcp/names.ts). A tool's own name that two servers list with other flags
 * takes the cautious ones of both (idempotent only if both say so, mutating if either does).
 */
import type { RunEvent } from '../core/events.js';
import type { ToolSpec } from '../core/tools.js';
import { annotationsOf, flagsOf, type ToolFlags } from '../mcp/annotations.js';
import { offeredName } from '../mcp/event-text.js';

/** The listed tools' flags by each name a model may call them by (see the module comment); a later listing of a server's tool replaces an earlier one. */
export function listedToolFlags(events: readonly RunEvent[]): Map<string, ToolFlags> {
  const byServer = new Map<string, ToolFlags>();
  const tools: { server: string; tool: string }[] = [];
  for (const event of events) {
    if (event.type !== 'mcp_exchange' || event.method !== 'tools/list' || event.from !== 'client') continue;
    const listed = event.reply?.result?.['tools'];
    if (!Array.isArray(listed)) continue;
    for (const entry of listed as unknown[]) {
      if (typeof entry !== 'object' || entry === null) continue;
      const { name, annotations } = entry as { name?: unknown; annotations?: unknown };
      if (typeof name !== 'string') continue;
      const id = `${event.server}\n${name}`;
      if (!byServer.has(id)) tools.push({ server: event.server, tool: name });
      byServer.set(id, flagsOf(annotationsOf(annotations)));
    }
  }
  const flags = new Map<string, ToolFlags>();
  for (const { server, tool } of tools) {
    const own = byServer.get(`${server}\n${tool}`) as ToolFlags;
    const offered = offeredName(server, tool);
    if (offered !== undefined) flags.set(offered, own);
    const other = flags.get(tool);
    flags.set(tool, other === undefined ? own : { idempotent: other.idempotent && own.idempotent, mutating: other.mutating || own.mutating });
  }
  return flags;
}

/** A lookup of the listed tools' specs by name (flags only: the analysis reads nothing else). */
export function listedToolSpecs(events: readonly RunEvent[]): (name: string) => ToolSpec | undefined {
  const flags = listedToolFlags(events);
  return (name) => {
    const found = flags.get(name);
    return found === undefined ? undefined : { name, description: '', parameters: {}, timeoutMs: 0, ...found };
  };
}
