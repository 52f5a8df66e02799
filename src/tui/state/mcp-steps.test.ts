import { describe, expect, it } from 'vitest';
import type { McpExchangeEvent, RunEvent } from '../../core/events.js';
import { mcpAgentRun, mcpBuiltInRun } from '../../replay/test-support/mcp-runs.js';
import { detailLines } from './detail-lines.js';
import { FILTER_SHORT, nextFilter, rowMatches, searchPattern, visibleRows } from './filters.js';
import { addEvents, emptyModel } from './run-model.js';
import type { StepRow } from './step-row.js';
import { initialState, tuiReducer, type TuiState } from './tui-state.js';

const rowsOf = (events: readonly RunEvent[]): readonly StepRow[] => addEvents(emptyModel({ mode: 'viewing', runId: '01MCP' }), events).rows;

const library = mcpAgentRun([
  { calls: [{ tool: 'read_file', args: { path: 'a.txt' }, output: 'hello' }] },
  {},
  { calls: [{ tool: 'write_file', args: { path: 'b.txt', content: 'x' }, modelName: 'files__write_file' }] },
]);

const detail = (row: StepRow, expanded = false): string[] => detailLines(row, { width: 100, expanded }).map((l) => l.text);

describe('MCP tool calls in the timeline and the detail', () => {
  it('a row\'s action marks a call of an MCP tool with its server, whether the model named it by the tool\'s own name or agentctl\'s', () => {
    const rows = rowsOf(library.events);
    expect(rows.map((r) => r.action)).toEqual(['read_file (mcp files) a.txt', '“done”', 'files__write_file (mcp) b.txt content=x', '“done”']);
    const builtIn = rowsOf(mcpBuiltInRun([{ calls: [{ tool: 'read_file', args: { path: 'a.txt' } }] }]).events);
    expect(builtIn[0]?.action).toBe('files__read_file (mcp) a.txt');
  });

  it('the detail: the call under its server, its result; the handshake and listing folded into one dim line while collapsed', () => {
    const [first] = rowsOf(library.events);
    const lines = detailLines(first as StepRow, { width: 100, expanded: false });
    const text = lines.map((l) => l.text);
    expect(text).toContain('Call read_file (mcp files)  (mcp_0)');
    expect(text).toContain('  Result: ok, 2\u00a0ms');
    const folded = lines.filter((l) => l.text.startsWith('MCP '));
    expect(folded).toEqual([{ text: 'MCP files: initialize → ok (files-server 0.6.2) · tools/list → 2 tools', tone: 'dim' }]);
  });

  it('expanded (Enter): each exchange on a line of its own, the initialized notification too, with params and reply', () => {
    const [first] = rowsOf(library.events);
    const text = detail(first as StepRow, true);
    const at = text.indexOf('MCP files initialize → ok (files-server 0.6.2), 3\u00a0ms');
    expect(at).toBeGreaterThan(0);
    expect(text[at + 1]).toMatch(/^ {4}params: \{"protocolVersion":"2025-06-18"/);
    expect(text).toContain('MCP files notifications/initialized');
    expect(text.some((l) => l.startsWith('    result: {"tools":[{"name":"read_file"'))).toBe(true);
  });

  it('a failed exchange and a server that ended are not dim; exchanges of two servers fold apart', () => {
    const base = { seq: 1, step: 0, t: 0, type: 'mcp_exchange', from: 'client' } as const;
    const events: RunEvent[] = [
      { type: 'run_start', seq: 0, step: 0, t: 0, task: 't', model: 'm', seed: 0, config: {} },
      { ...base, server: 'a', method: 'ping', reply: { result: {} } } satisfies McpExchangeEvent,
      { ...base, seq: 2, server: 'b', method: 'resources/read', reply: { error: { code: -32002, message: 'gone' } } },
      { ...base, seq: 3, server: 'b', from: 'server', method: 'agentctl/server_ended', params: { reason: 'exited with code 1' } },
    ];
    const lines = detailLines(rowsOf(events)[0] as StepRow, { width: 100, expanded: false }).filter((l) => l.text.startsWith('MCP'));
    expect(lines).toEqual([
      { text: 'MCP a: ping → ok', tone: 'dim' },
      { text: 'MCP b: resources/read → error -32002: gone · server ended: exited with code 1', tone: 'error' },
    ]);
  });

  it('search finds a step by its server or an exchange\'s method', () => {
    const rows = rowsOf(library.events);
    expect(rows.filter((r) => rowMatches(r, searchPattern('files') as RegExp)).map((r) => r.step)).toEqual([0, 2]);
    expect(rows.filter((r) => rowMatches(r, searchPattern('tools/list') as RegExp)).map((r) => r.step)).toEqual([0]);
  });
});

describe('the mcp filter', () => {
  const press = (state: TuiState, times: number): TuiState => {
    let next = state;
    for (let i = 0; i < times; i++) next = tuiReducer(next, { type: 'key', action: 'cycleFilter' });
    return next;
  };

  it('after divergences, the steps with MCP calls or messages; passed over in a run without any', () => {
    const state = tuiReducer(initialState({ mode: 'viewing', runId: '01MCP' }, { columns: 120, rows: 30 }), { type: 'events', events: library.events });
    const mcp = press(state, 4);
    expect(mcp.view.filter).toBe('mcp');
    expect(FILTER_SHORT.mcp).toBe('mcp');
    expect(mcp.view.notice).toBe('filter: MCP tool calls and messages');
    expect(visibleRows(mcp.model.rows, 'mcp').map((i) => mcp.model.rows[i]?.step)).toEqual([0, 2]);
    expect(press(mcp, 1).view.filter).toBe('all');
    const plain = rowsOf(library.events.filter((e) => e.type !== 'mcp_exchange' && !(e.type === 'tool_call' || e.type === 'tool_result')));
    expect(nextFilter('divergences', plain)).toBe('all');
    expect(nextFilter('divergences', rowsOf(library.events))).toBe('mcp');
  });
});
