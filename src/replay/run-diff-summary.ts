/**
 * What happened in one step of a run, in a few fields a person can compare at a glance: the
 * model's answer (text clipped, tool calls with their arguments), each tool call with its outcome
 * (and its MCP server), the MCP messages that are not tool calls,
 * every guardrail decision (near-misses included), the state transitions and how the run ended.
 * `agentctl diff` shows one of these per side for every step.
 */
import type { RunEvent } from '../core/events.js';
import type { Gate, Verdict } from '../core/decisions.js';
import type { FinishReason } from '../core/llm.js';
import type { AgentState, TerminalState } from '../core/states.js';
import type { ToolOutcomeStatus } from '../core/tools.js';
import { exchangeText, isQuietExchange } from '../mcp/event-text.js';

/** Longest text kept in a summary; the full value is on the tape. */
export const SUMMARY_CLIP = 200;

export interface ModelTurn {
  /** The assistant's text, clipped to one line; null when it only called tools. */
  text: string | null;
  toolCalls: { name: string; arguments: string }[];
  finishReason: FinishReason;
}

export interface ToolRun {
  /** As the run recorded it (the comparison itself goes by position, not id text: id-labels.ts). */
  callId: string;
  tool: string;
  /** The MCP server of the tool; absent for other tools. */
  server?: string;
  arguments: string;
  /** Null when the step has the call but not its result (the run stopped in between). */
  status: ToolOutcomeStatus | null;
  output: string | null;
}

export interface DecisionSummary {
  gate: Gate;
  verdict: Verdict;
  rule: string;
  tool?: string;
  reason: string;
}

export interface StepSummary {
  /** Events in the step (replay divergence notes not counted). */
  events: number;
  /** User messages: the task, interactive replies, internal nudges. */
  user: string[];
  /** The last model response of the step (after any retries). */
  model: ModelTurn | null;
  /** Failed model calls in the step (retried or fatal). */
  modelErrors: number;
  tools: ToolRun[];
  /** The step's MCP messages that are not tool calls, each as `<server> <method> → <answer>` (the end of a handshake left out). */
  mcp: string[];
  decisions: DecisionSummary[];
  states: { from: AgentState | null; to: AgentState }[];
  warnings: string[];
  end: { state: TerminalState; reason: string } | null;
}

/** Summarize one step's events (all with the same `step`). */
export function summarizeStep(events: readonly RunEvent[]): StepSummary {
  const summary: StepSummary = {
    events: events.length, user: [], model: null, modelErrors: 0, tools: [], mcp: [], decisions: [], states: [], warnings: [], end: null,
  };
  const tools = new Map<string, ToolRun>();
  for (const event of events) {
    switch (event.type) {
      case 'user_message':
        summary.user.push(clipText(event.content));
        break;
      case 'llm_response': {
        const { message, finishReason } = event.response;
        summary.model = {
          text: message.content === null || message.content === '' ? null : clipText(message.content),
          toolCalls: (message.tool_calls ?? []).map((call) => ({ name: call.function.name, arguments: clipText(call.function.arguments) })),
          finishReason,
        };
        break;
      }
      case 'llm_error':
        summary.modelErrors++;
        break;
      case 'tool_call': {
        const { callId, tool } = event;
        const run: ToolRun = { callId, tool, ...serverOf(event), arguments: clipText(event.arguments), status: null, output: null };
        tools.set(event.callId, run);
        summary.tools.push(run);
        break;
      }
      case 'tool_result': {
        let run = tools.get(event.callId);
        if (run === undefined) {
          run = { callId: event.callId, tool: event.tool, ...serverOf(event), arguments: '', status: null, output: null };
          tools.set(event.callId, run);
          summary.tools.push(run);
        }
        run.status = event.status;
        run.output = clipText(event.output);
        break;
      }
      case 'guardrail': {
        const { gate, verdict, rule, tool, reason } = event;
        summary.decisions.push({ gate, verdict, rule, ...(tool === undefined ? {} : { tool }), reason });
        break;
      }
      case 'mcp_exchange':
        if (!isQuietExchange(event)) summary.mcp.push(clipText(`${event.server} ${exchangeText(event)}`));
        break;
      case 'state':
        summary.states.push({ from: event.from, to: event.to });
        break;
      case 'warning':
        summary.warnings.push(clipText(event.message));
        break;
      case 'run_end':
        summary.end = { state: event.state, reason: event.reason };
        break;
      default:
        break;
    }
  }
  return summary;
}

const serverOf = (event: { server?: string | undefined }): { server?: string } => (event.server === undefined ? {} : { server: event.server });

/** One line, at most SUMMARY_CLIP characters. */
export function clipText(text: string, max = SUMMARY_CLIP): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
