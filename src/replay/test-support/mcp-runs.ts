/**
 * Runs with MCP tool calls, made by hand as the recorders write them (docs/tape-format.md, "MCP"):
 *
 * - a run of any agent recorded through the library or the proxy, whose MCP server was wrapped by
 *   `agentctl mcp`: the handshake (`initialize`, `notifications/initialized`) and `tools/list` as
 *   `mcp_exchange` events, then per step a model answer and, for each call it asked for, the
 *   wrapper's own `tool_call` / `tool_result` (its own call ids, the server named, the reply as the
 *   client got it in `mcp`);
 * - a run of the built-in loop with MCP tools: no `mcp_exchange`, the tools in `run_start.customTools`
 *   with their `mcp` origin, and the loop's `tool_call` / `tool_result` under the model-facing name
 *   (`files__read_file`) with `server` set.
 */
import type { RunEvent, ToolCallEvent, ToolResultEvent } from '../../core/events.js';
import type { RunMeta } from '../../core/run-meta.js';
import type { ToolSpec } from '../../core/tools.js';
import { requestHash } from '../../agent/request-delta.js';
import { canonicalJson } from '../../guardrails/canonical-json.js';
import { callKey } from '../../guardrails/call-key.js';

/** The hash of the requests these runs make (no messages, no tools): a built-in run's tape checks it. */
const HASH = requestHash({ model: 'm', messages: [], tools: [], stream: false });

/** A tool as a server lists it in its `tools/list` reply. */
export interface ListedTool {
  name: string;
  annotations?: Record<string, unknown>;
}

/** The tools of the server `files` these runs use: one read-only, one that writes. */
export const FILES_TOOLS: readonly ListedTool[] = [
  { name: 'read_file', annotations: { readOnlyHint: true } },
  { name: 'write_file', annotations: { readOnlyHint: false, destructiveHint: true } },
];

export interface McpCall {
  /** The MCP tool's own name. */
  tool: string;
  args?: Record<string, unknown>;
  /** The name the model called it by (the agent's choice); default: the tool's own name. */
  modelName?: string;
  status?: 'ok' | 'error';
  output?: string;
  /** The server (default `files`). */
  server?: string;
}

export interface McpStep {
  calls?: McpCall[];
}

export interface McpRunOptions {
  server?: string;
  tools?: readonly ListedTool[];
  /** Leave out the `tools/list` exchange (a client that never listed, or a run recorded without it). */
  listed?: boolean;
}

const meta = (source: 'library' | 'proxy' | 'cli', config: Record<string, unknown>, events: readonly RunEvent[]): RunMeta => ({
  id: '01M8FNWM8WFRH6168JMNYEBRC3',
  kind: 'record',
  status: 'complete',
  source,
  createdAt: '2026-01-01T00:00:00.000Z',
  task: 't',
  model: 'm',
  seed: 0,
  config,
  eventCount: events.length,
  finalState: 'COMPLETED',
  totals: (events.at(-1) as RunEvent & { type: 'run_end' }).totals,
  tapeVersion: 1,
});

const totals = (steps: number, toolCalls: number) => ({
  steps, llmCalls: steps, toolCalls, inputTokens: 10 * steps, outputTokens: 2 * steps, cost: 0,
});

/** The request and answer of one step: the calls asked for, or a final text answer. */
function turn(step: number, calls: readonly { id: string; name: string; args: Record<string, unknown> }[]): RunEvent[] {
  const toolCalls = calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.args) } }));
  return [
    { type: 'llm_request', seq: 0, step, t: 0, iteration: step, hash: HASH, prefix: 0, append: [], model: 'm', stream: false, tools: [] },
    {
      type: 'llm_response', seq: 0, step, t: 0, iteration: step, attempt: 0, durationMs: 1,
      response: {
        message: toolCalls.length === 0 ? { role: 'assistant', content: 'done' } : { role: 'assistant', content: null, tool_calls: toolCalls },
        finishReason: toolCalls.length === 0 ? 'stop' : 'tool_calls',
        usage: { inputTokens: 10, outputTokens: 2 },
      },
    },
  ];
}

/** The `tools/call` answer as the client got it: the output as one text part. */
const reply = (call: McpCall): NonNullable<ToolResultEvent['mcp']> => ({
  result: { content: [{ type: 'text', text: call.output ?? call.status ?? 'ok' }], ...(call.status === 'error' ? { isError: true } : {}) },
});

const numbered = (events: RunEvent[]): RunEvent[] => events.map((e, seq) => ({ ...e, seq, t: seq }));

/** A library (or proxy) run whose agent used the MCP server through `agentctl mcp`, with its header. */
export function mcpAgentRun(steps: readonly McpStep[], options: McpRunOptions & { source?: 'library' | 'proxy' } = {}): { meta: RunMeta; events: RunEvent[] } {
  const server = options.server ?? 'files';
  const out: RunEvent[] = [{ type: 'run_start', seq: 0, step: 0, t: 0, task: 't', model: 'm', seed: 0, config: {} }];
  const exchange = (method: string, fields: Record<string, unknown>): RunEvent => ({ type: 'mcp_exchange', seq: 0, step: 0, t: 0, server, from: 'client', method, ...fields }) as RunEvent;
  out.push(exchange('initialize', {
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agent', version: '1.0.0' } },
    reply: { result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'files-server', version: '0.6.2' } } },
    durationMs: 3,
  }));
  out.push(exchange('notifications/initialized', {}));
  if (options.listed !== false) {
    const tools = (options.tools ?? FILES_TOOLS).map((t) => ({ name: t.name, inputSchema: { type: 'object' }, ...(t.annotations === undefined ? {} : { annotations: t.annotations }) }));
    out.push(exchange('tools/list', { params: {}, reply: { result: { tools } }, durationMs: 1 }));
  }
  let n = 0;
  steps.forEach((s, step) => {
    const calls = (s.calls ?? []).map((c, i) => ({ call: c, id: `call_${step}_${i}`, name: c.modelName ?? c.tool, args: c.args ?? { path: 'a.txt' } }));
    out.push(...turn(step, calls));
    for (const { call, args } of calls) {
      const callId = `mcp_${n++}`;
      const on = call.server ?? server;
      out.push({ type: 'tool_call', seq: 0, step, t: 0, callId, tool: call.tool, arguments: canonicalJson(args), key: callKey(call.tool, args), server: on });
      out.push({
        type: 'tool_result', seq: 0, step, t: 0, callId, tool: call.tool, server: on, status: call.status ?? 'ok', output: call.output ?? call.status ?? 'ok', durationMs: 2, mcp: reply(call),
      });
    }
  });
  out.push(...turn(steps.length, []));
  out.push({ type: 'run_end', seq: 0, step: steps.length, t: 0, state: 'COMPLETED', reason: 'finished by the caller', totals: totals(steps.length + 1, n) });
  const events = numbered(out);
  return { meta: meta(options.source ?? 'library', {}, events), events };
}

/** The spec a built-in run records for `tool` of `server` (flags as its annotations give them). */
export function mcpSpec(server: string, tool: string, flags: { idempotent: boolean; mutating: boolean }): ToolSpec {
  return {
    name: `${server}__${tool}`, description: `${tool} of ${server}`, parameters: { type: 'object', properties: {} }, timeoutMs: 60_000, ...flags, mcp: { server, tool },
  };
}

/** The built-in loop's MCP tools for `files`: read_file read-only, write_file mutating. */
export const FILES_SPECS: readonly ToolSpec[] = [
  mcpSpec('files', 'read_file', { idempotent: true, mutating: false }),
  mcpSpec('files', 'write_file', { idempotent: false, mutating: true }),
];

/** A run of the built-in loop whose MCP tools are in `customTools`; calls name the tool by its MCP name (`read_file`), the run by `files__read_file`. */
export function mcpBuiltInRun(steps: readonly McpStep[], specs: readonly ToolSpec[] = FILES_SPECS): { meta: RunMeta; events: RunEvent[] } {
  const config = { tools: ['read_file'] };
  const out: RunEvent[] = [{ type: 'run_start', seq: 0, step: 0, t: 0, task: 't', model: 'm', seed: 0, config, customTools: [...specs] }];
  let n = 0;
  steps.forEach((s, step) => {
    const calls = (s.calls ?? []).map((c, i) => {
      const server = c.server ?? 'files';
      return { call: c, server, id: `call_${step}_${i}`, name: c.modelName ?? `${server}__${c.tool}`, args: c.args ?? { path: 'a.txt' } };
    });
    out.push(...turn(step, calls));
    for (const { call, server, id, name, args } of calls) {
      n++;
      const toolCall: ToolCallEvent = { type: 'tool_call', seq: 0, step, t: 0, callId: id, tool: name, arguments: JSON.stringify(args), key: callKey(name, args), server };
      out.push(toolCall);
      out.push({ type: 'tool_result', seq: 0, step, t: 0, callId: id, tool: name, server, status: call.status ?? 'ok', output: call.output ?? call.status ?? 'ok', durationMs: 2 });
    }
  });
  out.push(...turn(steps.length, []));
  out.push({ type: 'run_end', seq: 0, step: steps.length, t: 0, state: 'COMPLETED', reason: 'the model answered', totals: totals(steps.length + 1, n) });
  const events = numbered(out);
  return { meta: meta('cli', config, events), events };
}
