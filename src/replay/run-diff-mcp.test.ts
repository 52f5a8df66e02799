import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { DiffTextReport } from '../cli/render/diff-report.js';
import { diffRuns, type RunDiffSummary, type StepDiff } from './run-diff.js';
import { mcpAgentRun, mcpBuiltInRun, type McpStep } from './test-support/mcp-runs.js';

async function* stream(events: readonly RunEvent[]): AsyncGenerator<RunEvent> {
  for (const event of events) yield event;
}

async function diff(a: readonly RunEvent[], b: readonly RunEvent[]): Promise<{ steps: StepDiff[]; summary: RunDiffSummary }> {
  const steps: StepDiff[] = [];
  const it = diffRuns(stream(a), stream(b), [true, true]);
  for (let next = await it.next(); ; next = await it.next()) {
    if (next.done === true) return { steps, summary: next.value };
    steps.push(next.value);
  }
}

const steps: McpStep[] = [{ calls: [{ tool: 'read_file', args: { path: 'a.txt' }, output: 'hello' }] }];
const { events } = mcpAgentRun(steps);
/** The same run with the events `change` gives for each. */
const changed = (change: (e: RunEvent) => RunEvent): RunEvent[] => events.map(change);

describe('agentctl diff of runs with MCP tool calls', () => {
  it('two recordings of the same MCP calls and messages are identical, timing aside', async () => {
    const later = changed((e) => ('durationMs' in e ? { ...e, durationMs: 99, t: e.t + 5 } : e));
    expect((await diff(events, later)).summary.identical).toBe(true);
  });

  it('a differing output is named as a built-in tool\'s (output), not by the MCP reply that repeats it', async () => {
    const other = mcpAgentRun([{ calls: [{ tool: 'read_file', args: { path: 'a.txt' }, output: 'bye' }] }]).events;
    const { steps: [first] } = await diff(events, other);
    expect(first?.firstDifference).toMatchObject({ typeA: 'tool_result', path: 'output', a: 'hello', b: 'bye' });
    // A reply that differs in what the output does not show is still a difference, under mcp.
    const reply = changed((e) => (e.type === 'tool_result' ? { ...e, mcp: { result: { content: [{ type: 'text', text: 'hello' }], structuredContent: { n: 1 } } } } : e));
    expect((await diff(events, reply)).steps[0]?.firstDifference).toMatchObject({ typeA: 'tool_result', path: 'mcp.result.structuredContent' });
  });

  it('a call to the same tool of another server differs at server, each side\'s server named', async () => {
    const docs = changed((e) => (e.type === 'tool_call' || e.type === 'tool_result' ? { ...e, server: 'docs' } : e));
    const { steps: [first] } = await diff(events, docs);
    expect(first?.firstDifference).toMatchObject({ typeA: 'tool_call', path: 'server', a: 'files', b: 'docs' });
    expect(first?.a?.tools).toEqual([{ callId: 'mcp_0', tool: 'read_file', server: 'files', arguments: '{"path":"a.txt"}', status: 'ok', output: 'hello' }]);
    expect(first?.b?.tools[0]?.server).toBe('docs');
    const lines = new DiffTextReport().step(first as StepDiff);
    expect(lines).toContain('     tool read_file (mcp files) → ok "hello"');
    expect(lines).toContain('     tool read_file (mcp docs) → ok "hello"');
    expect(lines).toContain('     mcp files initialize → ok (files-server 0.6.2)');
    expect(lines).toContain('     mcp files tools/list → 2 tools');
    expect(lines).toContain('  first differing: event 6 (tool_call) at server');
    expect(lines).toContain("    (the tool is another MCP server's, or an MCP tool on one side only)");
    expect(lines.some((line) => line.includes('notifications/initialized'))).toBe(false);
  });

  it('a built-in run: its MCP tool\'s calls compare by name, arguments and outcome like any tool\'s', async () => {
    const a = mcpBuiltInRun(steps).events;
    const b = mcpBuiltInRun([{ calls: [{ tool: 'read_file', args: { path: 'b.txt' }, output: 'hello' }] }]).events;
    const { steps: [first] } = await diff(a, b);
    expect(first?.firstDifference).toMatchObject({ typeA: 'llm_response', path: 'response.message.tool_calls[0].function.arguments' });
    expect(new DiffTextReport().step(first as StepDiff)).toContain('     tool files__read_file (mcp) → ok "hello"');
  });
});
