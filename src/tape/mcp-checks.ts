/**
 * What a tape's MCP events must be, beyond their schema (tape-checks.ts runs these as it reads):
 * only what a real recording can never fail, so a tape that fails one was made or changed by hand
 * to say something that did not happen.
 *
 * - a `tool_result` that holds an MCP reply (`mcp`) names its server: `agentctl mcp` names the
 *   server of every call it records;
 * - no `mcp_exchange` in a run of the built-in agent: it records its MCP tools' calls as its own
 *   tool calls, never the protocol's messages;
 * - a `tool_result` answers a `tool_call` of the same server: the result of an open call with its
 *   id names the server that call named (or none when it named none). A result no open call
 *   answers is not checked (a live guardrail adapter records results of the model's calls alone);
 * - a `tool_result`'s `output` and `status` are what its MCP reply says: the text a model reads of
 *   the reply's result (mcp/tool-output.ts) and its `isError`, or the error's message. A replay
 *   serves the reply while `show`, `view` and the guardrails read the output, so a tape where the
 *   two differ would show one answer and give the client another.
 */
import type { McpReply, RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import type { ToolOutcomeStatus } from '../core/tools.js';
import { RPC_ERRORS } from '../mcp/protocol.js';
import { mcpToolOutput } from '../mcp/tool-output.js';

const named = (server: string | undefined): string => (server === undefined ? 'no server' : `server '${server}'`);

export class McpChecks {
  /** The servers of the calls not answered yet, by call id (a model may give two calls one id). */
  private readonly open = new Map<string, (string | undefined)[]>();

  constructor(private readonly meta: Pick<RunMeta, 'source'>) {}

  /** Null when the event checks out, else what is wrong. */
  check(event: RunEvent): string | null {
    switch (event.type) {
      case 'tool_call': {
        const servers = this.open.get(event.callId);
        if (servers === undefined) this.open.set(event.callId, [event.server]);
        else servers.push(event.server);
        return null;
      }
      case 'tool_result':
        if (event.mcp !== undefined && event.server === undefined) return `tool_result ${event.callId} holds an MCP reply (mcp) but names no server: every MCP call is recorded with its server`;
        return this.answer(event.callId, event.server) ?? replyMismatch(event);
      case 'mcp_exchange':
        if (this.meta.source === 'cli') return 'an mcp_exchange in a run of the built-in agent, which records its MCP tools\' calls as its own tool calls, never MCP messages';
        return null;
      default:
        return null;
    }
  }

  private answer(callId: string, server: string | undefined): string | null {
    const servers = this.open.get(callId);
    if (servers === undefined) return null;
    const at = servers.indexOf(server);
    if (at < 0) return `tool_result ${callId} names ${named(server)}, its tool_call ${named(servers[0])}: a result answers a call of the same server`;
    servers.splice(at, 1);
    if (servers.length === 0) this.open.delete(callId);
    return null;
  }
}

/** The status and output a tool_result with this MCP reply has; undefined for no answer (the output then says why, in agentctl's words). */
export function replyOutcome(mcp: McpReply): { status: ToolOutcomeStatus; output: string } | undefined {
  if (mcp.error !== undefined) return { status: mcp.error.code === RPC_ERRORS.requestTimeout ? 'timeout' : 'error', output: mcp.error.message };
  if (mcp.result === undefined) return undefined;
  const read = mcpToolOutput(mcp.result);
  return { status: read.isError ? 'error' : 'ok', output: read.text };
}

/** What a tool_result's output or status says that its MCP reply does not, or null when they agree. */
export function replyMismatch(event: Pick<Extract<RunEvent, { type: 'tool_result' }>, 'callId' | 'status' | 'output' | 'mcp'>): string | null {
  const said = event.mcp === undefined ? undefined : replyOutcome(event.mcp);
  if (said === undefined) return null;
  if (event.output !== said.output) return `tool_result ${event.callId}: its output is not what its MCP reply (mcp) says: a replay would serve the reply, the views show the output`;
  if (event.status !== said.status) return `tool_result ${event.callId}: its status ${event.status} is not what its MCP reply (mcp) says (${said.status})`;
  return null;
}
