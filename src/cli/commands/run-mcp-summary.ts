/**
 * What `agentctl run` says of the MCP servers its command used through `agentctl mcp` (joined to
 * the run by AGENTCTL_MCP_LINK): the tool calls recorded, or served from the tape, run live and
 * refused, the first request that matched nothing; nothing at all when no server took part and the
 * tape has none. A strict replay whose MCP traffic departed from the tape exits 7 (mcpNotReproduced).
 */
import { count } from '../../core/plural.js';
import type { McpSummary } from '../../library/mcp-link.js';

/** The parts of the last line about MCP, in the run's mode; `shown`: the reason the line already gives, not said again. */
export function mcpParts(m: McpSummary, shown?: string): string[] {
  const calls = (n: number): string => count(n, 'MCP tool call');
  switch (m.mode) {
    case 'record':
      return m.recorded > 0 ? [`${calls(m.recorded)} recorded`] : [];
    case 'replay': {
      if (m.onTape === 0 && m.served + m.live + m.refused + m.divergences.length === 0) return [];
      const parts = [`served ${m.served} of ${count(m.onTape, 'recorded MCP tool call')}`];
      if (m.live > 0) parts.push(`${calls(m.live)} run live`);
      if (m.refused > 0) parts.push(`${calls(m.refused)} refused`);
      const first = m.divergences[0];
      if (first !== undefined) {
        const text = `MCP server ${first.server}: ${first.message}`;
        parts.push(`${count(m.divergences.length, 'MCP divergence')}${text === shown ? '' : ` (first: ${text})`}`);
      }
      if (m.unused > 0) parts.push(`${count(m.unused, 'recorded MCP tool call')} never asked for`);
      return parts.filter((part) => part !== shown);
    }
    case 'new-episodes':
      return m.served + m.live + m.recorded === 0 ? [] : [`${calls(m.served)} served from the tape, ${m.live} run live, ${m.recorded} recorded`];
    case 'passthrough':
      return [];
  }
}

/** The MCP counts of `--json`. */
export function mcpJson(m: McpSummary): Record<string, unknown> {
  const first = m.divergences[0];
  return {
    recorded: m.recorded,
    onTape: m.onTape,
    served: m.served,
    live: m.live,
    refused: m.refused,
    divergences: m.divergences.length,
    firstDivergence: first === undefined ? null : `MCP server ${first.server}: ${first.message}`,
    firstDivergenceField: first?.path ?? null,
    unused: m.unused,
  };
}
