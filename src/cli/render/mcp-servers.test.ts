import { describe, expect, it } from 'vitest';
import type { McpExchangeEvent } from '../../core/events.js';
import { mcpAgentRun, mcpBuiltInRun, FILES_SPECS } from '../../replay/test-support/mcp-runs.js';
import { McpServerCounts, mcpServersText } from './mcp-servers.js';

const listing = (server: string, names: string[], cursor?: string): McpExchangeEvent => ({
  type: 'mcp_exchange', seq: 0, step: 0, t: 0, server, from: 'client', method: 'tools/list',
  params: cursor === undefined ? {} : { cursor }, reply: { result: { tools: names.map((name) => ({ name, inputSchema: { type: 'object' } })) } },
});

describe('McpServerCounts', () => {
  it('an agent\'s run: the servers its events name, in order, their calls, their tools as listed (pages added up, a new listing counted afresh)', () => {
    const counts = new McpServerCounts();
    for (const event of mcpAgentRun([{ calls: [{ tool: 'read_file' }, { tool: 'search', server: 'docs' }] }, { calls: [{ tool: 'read_file' }] }]).events) counts.add(event);
    for (const event of [listing('docs', ['a', 'b']), listing('docs', ['c'], 'page2'), listing('files', ['x'])]) counts.add(event);
    expect(counts.servers(undefined)).toEqual([{ name: 'files', tools: 1, calls: 2 }, { name: 'docs', tools: 3, calls: 1 }]);
    expect(mcpServersText(counts.servers(undefined))).toBe('files (1 tool, 2 calls), docs (3 tools, 1 call)');
  });

  it('a built-in run: its servers and tools from its recorded MCP tools, calls from its events; an unlisted server\'s tools unknown', () => {
    const counts = new McpServerCounts();
    for (const event of mcpBuiltInRun([{ calls: [{ tool: 'read_file' }] }]).events) counts.add(event);
    expect(counts.servers(FILES_SPECS)).toEqual([{ name: 'files', tools: 2, calls: 1 }]);
    const unlisted = new McpServerCounts();
    for (const event of mcpAgentRun([{ calls: [{ tool: 'read_file' }] }], { listed: false }).events) unlisted.add(event);
    expect(mcpServersText(unlisted.servers([]))).toBe('files (1 call)');
    expect(new McpServerCounts().servers(undefined)).toEqual([]);
  });
});
