/**
 * MCP events in a few words, as every reader of a tape shows them (the plain event lines, the
 * terminal UI, `agentctl diff`): the same words everywhere, so a call reads the same in each.
 *
 * - An MCP tool call is marked with its server: `read_file (mcp files)`. A tool the built-in agent
 *   offered already carries its server in its name (`files__read_file`, names.ts), so there only
 *   the mark that it is an MCP tool is added: `files__read_file (mcp)`.
 * - An `mcp_exchange` is its method and how it was answered: `initialize → ok (files-server 0.6.2)`,
 *   `tools/list → 14 tools`, `resources/read → error -32002: not found`; one the server sent is
 *   marked `←`. The client's `notifications/initialized` (the end of every handshake) says nothing
 *   a reader needs: it is `quiet`.
 *
 * The texts come from a tape: the callers show them through core/terminal-text.ts.
 */
import type { McpExchangeEvent, McpReply } from '../core/events.js';
import { modelToolName } from './names.js';

/** The end of a handshake, sent by every client: nothing to show. */
const QUIET_METHODS: ReadonlySet<string> = new Set(['notifications/initialized']);

/** The marker agentctl writes when a server ended while the run went on (its reason in `params.reason`). */
export const SERVER_ENDED = 'agentctl/server_ended';

/** `(mcp files)` for a tool of server `files`; `(mcp)` when the tool's name already starts with `files__`; empty for a tool of no server. */
export function serverMark(tool: string, server: string | undefined): string {
  if (server === undefined) return '';
  return tool.startsWith(`${server}__`) ? ' (mcp)' : ` (mcp ${server})`;
}

/** The name agentctl offers an MCP tool by (`<server>__<tool>`); undefined when it would be too long to offer. */
export function offeredName(server: string, tool: string): string | undefined {
  try {
    return modelToolName(server, tool);
  } catch {
    return undefined;
  }
}

/**
 * Whether a model's call named `name` is of `tool` of `server`: by the tool's own name, the one
 * agentctl offers it by (`<server>__<tool>`), or a name an agent of its own made of the server's and
 * the tool's, the server's last before separators (`memory_create_entities`,
 * `mcp__memory__create_entities`; the tool's name may have its odd characters written as `_`).
 */
export function namesMcpTool(name: string, tool: string, server: string): boolean {
  if (name === tool || name === offeredName(server, tool)) return true;
  for (const own of [tool, tool.replace(/[^A-Za-z0-9_-]/g, '_')]) {
    if (!name.endsWith(own)) continue;
    const joined = name.slice(0, -own.length);
    const prefix = joined.replace(/[_.-]+$/, '');
    if (prefix === joined || !prefix.endsWith(server)) continue;
    const before = prefix.slice(0, -server.length);
    if (before === '' || /[_.-]$/.test(before)) return true;
  }
  return false;
}

/** The tool's name with its server mark: `read_file (mcp files)`. */
export function toolLabel(tool: string, server: string | undefined): string {
  return `${tool}${serverMark(tool, server)}`;
}

/** True for an exchange not worth a line of its own (see the module comment). */
export function isQuietExchange(event: McpExchangeEvent): boolean {
  return event.from === 'client' && QUIET_METHODS.has(event.method);
}

/** `initialize → ok (files-server 0.6.2)`, `← notifications/message`, `server ended: killed by SIGKILL`. */
export function exchangeText(event: McpExchangeEvent): string {
  if (event.method === SERVER_ENDED) {
    const reason = event.params?.['reason'];
    return `server ended${typeof reason === 'string' ? `: ${reason}` : ''}`;
  }
  const from = event.from === 'server' ? '← ' : '';
  const isNotification = event.method.startsWith('notifications/');
  if (isNotification && event.reply === undefined) return `${from}${event.method}`;
  return `${from}${event.method} → ${replyText(event.method, event.reply)}`;
}

/** How a request was answered: `ok`, what its result says in brief, an error, or that no answer came. */
export function replyText(method: string, reply: McpReply | undefined): string {
  if (reply === undefined) return 'no reply';
  const notes = reply.notifications?.length ?? 0;
  const more = notes === 0 ? '' : ` (+${notes} notification${notes === 1 ? '' : 's'})`;
  if (reply.error !== undefined) return `error ${reply.error.code}: ${reply.error.message}${more}`;
  return `${resultText(method, reply.result)}${more}`;
}

function resultText(method: string, result: Record<string, unknown> | undefined): string {
  if (result === undefined) return 'ok';
  if (method === 'initialize') {
    const info = result['serverInfo'];
    if (typeof info === 'object' && info !== null) {
      const { name, version } = info as { name?: unknown; version?: unknown };
      if (typeof name === 'string') return `ok (${name}${typeof version === 'string' ? ` ${version}` : ''})`;
    }
    return 'ok';
  }
  const listed = /^(tools|resources|prompts|resources\/templates)\/list$/.exec(method);
  if (listed !== null) {
    const key = method === 'resources/templates/list' ? 'resourceTemplates' : (listed[1] as string);
    const items = result[key];
    if (Array.isArray(items)) return `${items.length} ${items.length === 1 ? singular(key) : key}${typeof result['nextCursor'] === 'string' ? ', more to come' : ''}`;
  }
  return 'ok';
}

function singular(key: string): string {
  return key === 'resourceTemplates' ? 'resourceTemplate' : key.slice(0, -1);
}
