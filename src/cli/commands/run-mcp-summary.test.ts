import { describe, expect, it } from 'vitest';
import { mcpNotReproduced, type McpSummary } from '../../library/mcp-link.js';
import type { ProxySummary } from '../../proxy/modes.js';
import { mcpParts } from './run-mcp-summary.js';
import { DIVERGED_EXIT_CODE, runExitCode, runSummaryLine } from './run-summary.js';

const mcp = (over: Partial<McpSummary>): McpSummary => ({
  mode: 'replay', strict: true, recorded: 0, onTape: 0, served: 0, live: 0, refused: 0, divergences: [], unused: 0, ...over,
});
const replayed: ProxySummary = {
  mode: 'replay', runId: null, tapeRunId: 'r', file: null, requests: 2, recorded: null, served: 2, upstream: null,
  refused: 0, exhausted: 0, divergences: 0, firstDivergence: null, unused: 0,
};
const exited = { code: 0, signal: null };
const noFailures = { count: 0, upstreams: [] };
const divergence = { server: 'files', message: 'tools/call write_file: arguments.path: recorded "a.txt", replayed "b.txt"', path: 'arguments.path' };

describe('agentctl run: the MCP servers in the last line and the exit code', () => {
  it('a strict replay whose MCP traffic diverged, or left recorded calls unused, exits 7; a loose one, or a clean one, with the command', () => {
    expect(runExitCode(replayed, exited, 0, mcp({ onTape: 2, served: 2 }))).toBe(0);
    expect(runExitCode(replayed, exited, 0, mcp({ onTape: 2, served: 1, live: 1, divergences: [divergence] }))).toBe(DIVERGED_EXIT_CODE);
    expect(runExitCode(replayed, exited, 0, mcp({ onTape: 2, served: 1, unused: 1 }))).toBe(DIVERGED_EXIT_CODE);
    expect(runExitCode(replayed, exited, 3, mcp({ strict: false, onTape: 2, served: 1, unused: 1, divergences: [divergence] }))).toBe(3);
    expect(runExitCode({ ...replayed, mode: 'record' }, exited, 0, mcp({ mode: 'record', recorded: 3 }))).toBe(0);
  });

  it('the diverged line gives the first MCP divergence as the reason when the model calls reproduced, and not again among the counts', () => {
    const summary = mcp({ onTape: 2, served: 1, refused: 1, divergences: [divergence] });
    const line = runSummaryLine(replayed, 't.jsonl', { commandExit: 0, exitCode: 7 }, noFailures, summary);
    expect(line).toBe(
      'diverged: MCP server files: tools/call write_file: arguments.path: recorded "a.txt", replayed "b.txt" (served 2 of 2 from t.jsonl), ' +
        'served 1 of 2 recorded MCP tool calls, 1 MCP tool call refused, 1 MCP divergence; the command exited 0',
    );
  });

  it('an MCP request that matched nothing comes before the model calls never asked for (the agent stopped after it)', () => {
    const summary = mcp({ onTape: 1, refused: 1, unused: 1, divergences: [divergence] });
    const line = runSummaryLine({ ...replayed, served: 1, unused: 1 }, 't.jsonl', { commandExit: 1, exitCode: 7 }, noFailures, summary);
    expect(line).toBe(
      `diverged: MCP server files: ${divergence.message} (served 1 of 2 from t.jsonl); 1 recorded call never asked for, ` +
        'served 0 of 1 recorded MCP tool call, 1 MCP tool call refused, 1 MCP divergence, 1 recorded MCP tool call never asked for; the command exited 1',
    );
  });

  it('recorded MCP calls never asked for, as the reason, are not counted again', () => {
    const line = runSummaryLine(replayed, 't.jsonl', { commandExit: 0, exitCode: 7 }, noFailures, mcp({ onTape: 2, served: 1, unused: 1 }));
    expect(line).toBe('diverged: 1 recorded MCP tool call never asked for (served 2 of 2 from t.jsonl), served 1 of 2 recorded MCP tool calls; the command exited 0');
  });

  it('a replay that made none of the recorded MCP calls says so; only a replay fails on MCP', () => {
    expect(mcpParts(mcp({ onTape: 2, unused: 2 }))).toEqual(['served 0 of 2 recorded MCP tool calls', '2 recorded MCP tool calls never asked for']);
    expect(mcpNotReproduced(mcp({ onTape: 2, unused: 2 }))).toBe('2 recorded MCP tool calls never asked for');
    expect(mcpNotReproduced(mcp({ mode: 'new-episodes', onTape: 2, live: 1, unused: 1, divergences: [divergence] }))).toBeUndefined();
  });

  it('counts by mode: recorded, served and run live; nothing when no server took part', () => {
    expect(mcpParts(mcp({ mode: 'record', recorded: 1 }))).toEqual(['1 MCP tool call recorded']);
    expect(mcpParts(mcp({ mode: 'record' }))).toEqual([]);
    expect(mcpParts(mcp({}))).toEqual([]);
    expect(mcpParts(mcp({ onTape: 3, served: 2, live: 1, unused: 1, divergences: [divergence] }))).toEqual([
      'served 2 of 3 recorded MCP tool calls', '1 MCP tool call run live',
      `1 MCP divergence (first: MCP server files: ${divergence.message})`, '1 recorded MCP tool call never asked for',
    ]);
    expect(mcpParts(mcp({ mode: 'new-episodes', served: 2, live: 1, recorded: 3 }))).toEqual(['2 MCP tool calls served from the tape, 1 run live, 3 recorded']);
    const recorded = runSummaryLine({ ...replayed, mode: 'record', recorded: 2, file: 'a.jsonl' }, 'a.jsonl', { commandExit: 0, exitCode: 0 }, noFailures, mcp({ mode: 'record', recorded: 1 }));
    expect(recorded).toBe('recorded 2 model calls onto a.jsonl, 1 MCP tool call recorded; the command exited 0');
  });
});
