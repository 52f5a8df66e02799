/**
 * How a recorded tool call ended, for the analysis of a run: from what the tape holds, best first.
 *
 *  1. A `tool_result` with the call's id (the built-in loop, a live guardrail adapter), or else a
 *     recorded `failures` decision about it, the first after the answer that asked for the call:
 *     the outcome as it was.
 *  2. A `recordTool` result (the library's tool wrapper numbers its calls itself), or an MCP tool
 *     call `agentctl mcp` recorded (the server's own call, with the wrapper's ids): matched by tool
 *     and call key, in order, among the tools run between the answer that asked for the call and the
 *     next model request (an answer the agent dropped had none of its calls run). A model that calls
 *     an MCP tool by another name than its own (`<server>__<tool>`, or a prefix of its agent's:
 *     src/mcp/event-text.ts, namesMcpTool) matches that tool's calls, keyed by the tool's own name.
 *  3. The tool message with the call's id in a later request: the agent sent the model the result,
 *     so the call ran. A tool message does not say whether it failed — except one folded from an
 *     Anthropic `tool_result` marked `is_error`, which reads `[error] …` — so it counts as a success.
 *
 * A call the recording never ran has no outcome: one its guardrails refused (recorded `denied` with
 * no policy of its own behind it), or one the tape shows no trace of.
 */
import type { LlmRequestEvent, RunEvent, ToolResultEvent } from '../core/events.js';
import type { ToolCall } from '../core/messages.js';
import { callKey, parseToolCall } from '../guardrails/call-key.js';
import { RULES } from '../guardrails/rules.js';
import { namesMcpTool } from '../mcp/event-text.js';

export type FoundOutcome =
  | { kind: 'ran'; status: 'ok' | 'error' | 'timeout'; output: string; from: 'recorded' | 'messages' }
  /** Refused by a policy of the recording's own (unknown tool, a replay's side-effect policy): a denial. */
  | { kind: 'denied' }
  | { kind: 'unknown' };

interface ToolRun {
  seq: number;
  tool: string;
  key: string;
  /** An MCP tool's server. */
  server: string | undefined;
  result: ToolResultEvent | undefined;
}

interface ToolMessage {
  seq: number;
  content: string;
  endpoint: LlmRequestEvent['endpoint'];
}

/** The `[error] ` mark the Anthropic fold gives a tool result marked is_error (llm/transport/anthropic-wire.ts). */
const ANTHROPIC_ERROR = '[error] ';

/**
 * What the tape holds about calls, by call id, in tape order. An id is looked up among the events
 * after the answer that asked for the call: models served by some local runtimes give every step's
 * call the same id (`call_0`), so an id alone does not name one call.
 */
class ById<T extends { seq: number }> {
  private readonly byId = new Map<string, T[]>();

  add(id: string, value: T): void {
    const list = this.byId.get(id);
    if (list === undefined) this.byId.set(id, [value]);
    else list.push(value);
  }

  /** The first of `id`'s after `seq` (and before `before`). */
  after(id: string, seq: number, before = Infinity): T | undefined {
    return this.byId.get(id)?.find((value) => value.seq > seq && value.seq < before);
  }
}

export class ToolOutcomes {
  private readonly results = new ById<ToolResultEvent>();
  private readonly failures = new ById<RunEvent & { type: 'guardrail' }>();
  private readonly policyDenied = new ById<{ seq: number }>();
  private readonly runs: ToolRun[] = [];
  private readonly used = new Set<ToolRun>();
  private readonly messages = new ById<ToolMessage>();
  /** The seq of every model request, in order. */
  private readonly requests: number[] = [];

  constructor(events: readonly RunEvent[]) {
    const modelIds = new Set<string>();
    for (const event of events) {
      if (event.type === 'llm_response') for (const call of event.response.message.tool_calls ?? []) modelIds.add(call.id);
    }
    const runs = new Map<string, ToolRun>();
    for (const event of events) {
      switch (event.type) {
        case 'tool_call':
          if (!modelIds.has(event.callId)) {
            const run: ToolRun = { seq: event.seq, tool: event.tool, key: event.key, server: event.server, result: undefined };
            runs.set(event.callId, run);
            this.runs.push(run);
          }
          break;
        case 'tool_result': {
          const run = runs.get(event.callId);
          if (run !== undefined) run.result ??= event;
          else this.results.add(event.callId, event);
          break;
        }
        case 'guardrail':
          if (event.callId === undefined || event.analysis === true) break;
          if (event.gate === 'failures') this.failures.add(event.callId, event);
          if (event.gate === 'policy' && event.verdict === 'block' && event.rule !== RULES.afterHalt && event.rule !== RULES.afterStop) this.policyDenied.add(event.callId, event);
          break;
        case 'llm_request':
          this.requests.push(event.seq);
          for (const message of event.append) {
            if (message.role !== 'tool') continue;
            this.messages.add(message.tool_call_id, { seq: event.seq, content: message.content, endpoint: event.endpoint });
          }
          break;
        default:
          break;
      }
    }
  }

  /** How `call`, asked for by the answer at `askedAt` (its seq), ended. */
  of(call: ToolCall, askedAt: number): FoundOutcome {
    const result = this.results.after(call.id, askedAt);
    if (result !== undefined) {
      if (result.status !== 'denied') return { kind: 'ran', status: result.status, output: result.output, from: 'recorded' };
      // The policy's decision comes before the result it refused.
      return this.policyDenied.after(call.id, askedAt, result.seq) !== undefined ? { kind: 'denied' } : { kind: 'unknown' };
    }
    const failures = this.failures.after(call.id, askedAt);
    if (failures !== undefined) {
      const ok = failures.rule === RULES.failureReset;
      return { kind: 'ran', status: ok ? 'ok' : 'error', output: '', from: 'recorded' };
    }
    const parsed = parseToolCall(call);
    const tool = call.function.name;
    const until = this.requests.find((seq) => seq > askedAt) ?? Infinity;
    // An MCP tool called by another name than its own: keyed by its own name, as it was recorded.
    const asMcpTool = (r: ToolRun): boolean =>
      r.server !== undefined && parsed.ok && namesMcpTool(tool, r.tool, r.server) && r.key === callKey(r.tool, parsed.args);
    const sameCall = (r: ToolRun): boolean => (r.tool === tool && r.key === parsed.key) || asMcpTool(r);
    const matches = (r: ToolRun): boolean => sameCall(r) && r.result !== undefined && !this.used.has(r);
    const run = this.runs.find((r) => r.seq > askedAt && r.seq < until && matches(r));
    if (run?.result !== undefined) {
      this.used.add(run);
      const status = run.result.status === 'denied' ? 'error' : run.result.status;
      return { kind: 'ran', status, output: run.result.output, from: 'recorded' };
    }
    const message = this.messages.after(call.id, askedAt);
    if (message !== undefined) {
      const failed = message.endpoint === 'messages' && message.content.startsWith(ANTHROPIC_ERROR);
      return { kind: 'ran', status: failed ? 'error' : 'ok', output: message.content, from: 'messages' };
    }
    return { kind: 'unknown' };
  }
}
