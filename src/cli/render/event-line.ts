/**
 * One readable line per RunEvent, for the plain-text reporter (non-TTY output, `record` and `replay`
 * without the TUI). Returns null for events that are not worth a line of their own (stream chunks,
 * checkpoints, the end of an MCP handshake): the text stays a step log a person can read top to
 * bottom. An MCP tool's call and result name its server, and an MCP message other than a tool call
 * is one line, its method and how it was answered (mcp/event-text.ts). Every field of an event
 * can come from a tape, a model or a file, so the line shows their control characters as escapes
 * (core/terminal-text.ts): one event is one line, and nothing in it drives the terminal.
 */
import type { RunEvent } from '../../core/events.js';
import { printableLine } from '../../core/terminal-text.js';
import { VERDICT_GLYPHS } from '../../core/verdict-glyphs.js';
import { clip } from '../format.js';
import { count } from '../../core/plural.js';
import { exchangeText, isQuietExchange, toolLabel } from '../../mcp/event-text.js';

export function eventLine(event: RunEvent): string | null {
  const line = describe(event);
  return line === null ? null : printableLine(line);
}

function describe(event: RunEvent): string | null {
  const at = `[${event.step}]`;
  switch (event.type) {
    case 'run_start':
      return `${at} run: ${clip(event.task, 100)} (model ${event.model}, seed ${event.seed}` +
        `${(event.toolsLeftOut ?? []).map((tool) => `, without ${tool.name}`).join('')})`;
    case 'state':
      return `${at} ${event.from ?? 'START'} → ${event.to}: ${event.reason}`;
    case 'user_message':
      return event.internal === undefined
        ? `${at} user: ${clip(event.content, 100)}`
        : `${at} (${event.internal}) ${clip(event.content, 100)}`;
    case 'llm_request':
      return `${at} → ${event.model}${event.endpoint === undefined || event.endpoint === 'chat' ? '' : ` (${event.endpoint})`}: ${count(event.prefix + event.append.length, 'message')} (+${event.append.length})${event.stream ? ', streaming' : ''}`;
    case 'llm_chunk':
      return event.chunk.finished && event.chunk.error !== undefined ? `${at} stream broke: ${event.chunk.error}` : null;
    case 'llm_error':
      return `${at} model error (attempt ${event.attempt + 1}${event.status === undefined ? '' : `, ${event.status}`}): ${clip(event.message, 100)}` +
        (event.retryInMs === undefined ? '' : ` — retrying in ${Math.round(event.retryInMs)} ms`);
    case 'llm_response': {
      const { message, finishReason, usage } = event.response;
      const calls = message.tool_calls?.length ?? 0;
      const text = message.content === null || message.content === '' ? '' : ` "${clip(message.content, 80)}"`;
      const tools = calls === 0 ? '' : ` + ${count(calls, 'tool call')}`;
      return `${at} ← assistant${text}${tools} (${finishReason}, ${usage.inputTokens}/${usage.outputTokens} tokens)`;
    }
    case 'tool_call':
      return `${at}   call ${toolLabel(event.tool, event.server)} ${clip(event.arguments, 80)}`;
    case 'guardrail':
      // An analysed decision says so first: it is what the guardrails would have decided, not what happened.
      return `${at}   ${event.analysis === true ? 'analysis · ' : ''}${VERDICT_GLYPHS[event.verdict]} ${event.verdict} ${event.gate}/${event.rule}${event.tool === undefined ? '' : ` ${event.tool}`}: ${event.reason}`;
    case 'tool_result':
      return `${at}   ${event.status} ${toolLabel(event.tool, event.server)}: ${clip(event.output, 80)}`;
    case 'budget':
      return event.nearBudget ? `${at} budget: near the limit (${count(event.inputTokens + event.outputTokens, 'token')}, cost $${event.cost.toFixed(4)})` : null;
    case 'checkpoint':
      return null;
    case 'warning':
      return `${at} warning: ${event.message}`;
    case 'http_exchange':
      return `${at} ${event.method} ${event.path} → ${event.response.status}`;
    case 'mcp_exchange':
      return isQuietExchange(event) ? null : `${at}   mcp ${event.server} ${clip(exchangeText(event), 120)}`;
    case 'divergence':
      return `${at} ${event.expected ? 'expected ' : ''}divergence (${event.kind}): ${event.message}`;
    case 'run_end':
      return `${at} ${event.state}: ${event.reason} — ${count(event.totals.steps, 'step')}, ${count(event.totals.llmCalls, 'model call')}, ${count(event.totals.toolCalls, 'tool call')}`;
  }
}
