import { describe, expect, it } from 'vitest';
import type { McpExchangeEvent, RunEvent } from '../../core/events.js';
import { createRedactor } from '../../core/redact.js';
import { mcpAgentRun, mcpBuiltInRun } from '../../replay/test-support/mcp-runs.js';
import { eventLine } from './event-line.js';
import { jsonReporter, textReporter } from './reporter.js';

const text = (events: readonly RunEvent[]): string[] => {
  const out: string[] = [];
  const reporter = textReporter({}, (line) => out.push(line));
  for (const event of events) reporter.event(event);
  return out.join('').trim().split('\n');
};

const exchange = (fields: Partial<McpExchangeEvent>): McpExchangeEvent => ({ type: 'mcp_exchange', seq: 3, step: 1, t: 0, server: 'files', from: 'client', method: 'ping', ...fields });

describe('MCP events as plain lines', () => {
  it('a run through agentctl mcp: the handshake and listing one line each (the initialized notification none), each call and result with its server', () => {
    const { events } = mcpAgentRun([{ calls: [{ tool: 'read_file', args: { path: 'a.txt' }, output: 'hello' }, { tool: 'write_file', status: 'error', output: 'denied' }] }]);
    const lines = text(events);
    expect(lines.filter((line) => line.includes('mcp files '))).toEqual([
      '[0]   mcp files initialize → ok (files-server 0.6.2)',
      '[0]   mcp files tools/list → 2 tools',
    ]);
    expect(lines).toContain('[0]   call read_file (mcp files) {"path":"a.txt"}');
    expect(lines).toContain('[0]   ok read_file (mcp files): hello');
    expect(lines).toContain('[0]   error write_file (mcp files): denied');
    expect(lines.some((line) => line.includes('notifications/initialized'))).toBe(false);
  });

  it('a built-in run: the tool\'s name already holds its server, so only the MCP mark is added; a built-in tool has none', () => {
    const { events } = mcpBuiltInRun([{ calls: [{ tool: 'read_file', args: { path: 'a.txt' }, output: 'hello' }] }]);
    const lines = text(events);
    expect(lines).toContain('[0]   call files__read_file (mcp) {"path":"a.txt"}');
    expect(lines).toContain('[0]   ok files__read_file (mcp): hello');
    expect(eventLine({ type: 'tool_call', seq: 1, step: 0, t: 0, callId: 'c', tool: 'read_file', arguments: '{}', key: 'k' })).toBe('[0]   call read_file {}');
  });

  it('the other exchanges: errors, the server\'s own messages, notifications a reply carried, a request never answered, the server\'s end', () => {
    expect(eventLine(exchange({ method: 'resources/read', reply: { error: { code: -32002, message: 'not found' } } }))).toBe('[1]   mcp files resources/read → error -32002: not found');
    expect(eventLine(exchange({ from: 'server', method: 'notifications/message', params: { level: 'info' } }))).toBe('[1]   mcp files ← notifications/message');
    expect(eventLine(exchange({ from: 'server', method: 'roots/list', reply: { result: { roots: [] } } }))).toBe('[1]   mcp files ← roots/list → ok');
    expect(eventLine(exchange({ method: 'prompts/list', reply: { result: { prompts: [{ name: 'p' }], nextCursor: 'x' }, notifications: [{ method: 'notifications/progress' }] } })))
      .toBe('[1]   mcp files prompts/list → 1 prompt, more to come (+1 notification)');
    expect(eventLine(exchange({ method: 'tools/call' }))).toBe('[1]   mcp files tools/call → no reply');
    expect(eventLine(exchange({ method: 'notifications/cancelled', params: { requestId: 3 } }))).toBe('[1]   mcp files notifications/cancelled');
    expect(eventLine(exchange({ from: 'server', method: 'agentctl/server_ended', params: { reason: 'killed by SIGKILL' } }))).toBe('[1]   mcp files server ended: killed by SIGKILL');
    expect(eventLine(exchange({ method: 'notifications/initialized' }))).toBeNull();
  });

  it('what a server sent is shown with its control characters as escapes', () => {
    expect(eventLine(exchange({ method: 'x', reply: { error: { code: 1, message: 'a\u001b[2Jb\nc' } } }))).toBe('[1]   mcp files x → error 1: a\\u001b[2Jb c');
  });

  it('--json: the MCP events as they are', () => {
    const { events } = mcpAgentRun([{ calls: [{ tool: 'read_file' }] }]);
    const out: string[] = [];
    const reporter = jsonReporter({ redact: createRedactor() }, (line) => out.push(line));
    for (const event of events) reporter.event(event);
    expect(out.join('').trim().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual(events);
  });
});
