/**
 * The built-in agent's MCP servers as its config names them (`mcpServers`), in the shape Claude
 * Code, Cursor and gemini-cli take: a stdio server by `command`/`args`/`env`/`cwd`, a streamable
 * HTTP server by `url`/`headers`. Strings may hold `${VAR}`, expanded from agentctl's environment
 * when the server starts (so the recorded config keeps the reference, never the value), and
 * `${AGENTCTL_WORKSPACE}`, the run's workspace.
 *
 * A stdio server gets a small environment of its own — what a program needs to run (PATH, HOME, the
 * locale) and what the config's `env` adds — never the whole of agentctl's, which holds the model's
 * API key: a secret reaches a server only when the config passes it by name.
 *
 * The zod schema is in server-config-schema.ts: this module loads no zod, so the quick config check
 * (a replay's start-up) can share `serverProblem`.
 */
import { resolve } from 'node:path';
import { InvalidOptionError } from '../core/errors.js';

/** A tool's guardrail flags as the config sets them; each wins over what the server's annotations say. */
export interface McpToolFlagsConfig {
  idempotent?: boolean | undefined;
  mutating?: boolean | undefined;
}

/** One entry of `mcpServers`, as validated (nothing filled in: the recorded config is what the user wrote). */
export interface McpServerConfig {
  type?: 'stdio' | 'http' | 'streamable-http' | 'sse' | undefined;
  command?: string | undefined;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
  url?: string | undefined;
  headers?: Record<string, string> | undefined;
  tools?: Record<string, McpToolFlagsConfig> | undefined;
  timeoutMs?: number | undefined;
}

/** The time limit of one tool call of a server that sets none. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

/** What agentctl passes on of its own environment to every stdio server. */
export const SERVER_BASE_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LC_ALL', 'TMPDIR', 'TZ', 'SYSTEMROOT'] as const;

const STDIO_ONLY = ['command', 'args', 'env', 'cwd'] as const;
const HTTP_ONLY = ['url', 'headers'] as const;

/**
 * Why an entry of `mcpServers` is not a server agentctl can start, or undefined when it is one.
 * Shared by the schema and the quick config check, so both refuse the same entries.
 */
export function serverProblem(server: McpServerConfig): { field?: string; message: string } | undefined {
  if (server.type === 'sse') {
    return { field: 'type', message: 'the legacy SSE transport is not supported: give the server\'s streamable HTTP url (type "http")' };
  }
  const stdio = server.command !== undefined;
  const http = server.url !== undefined;
  if (stdio === http) return { message: 'needs either a "command" (a stdio server) or a "url" (a streamable HTTP server)' };
  if (stdio && server.type !== undefined && server.type !== 'stdio') return { field: 'type', message: `a server with a "command" is type "stdio", not "${server.type}"` };
  if (http && server.type === 'stdio') return { field: 'type', message: 'a server with a "url" is type "http", not "stdio"' };
  const stray = (stdio ? HTTP_ONLY : STDIO_ONLY).find((key) => server[key] !== undefined);
  if (stray !== undefined) return { field: stray, message: `"${stray}" is for ${stdio ? 'a streamable HTTP server ("url")' : 'a stdio server ("command")'}` };
  return undefined;
}

/** A stdio server ready to start: every `${VAR}` expanded, its environment and directory decided. */
export interface StdioServerPlan {
  name: string;
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  tools: Record<string, McpToolFlagsConfig>;
  timeoutMs: number;
}

/** A streamable HTTP server ready to reach. */
export interface HttpServerPlan {
  name: string;
  transport: 'http';
  url: string;
  headers: Record<string, string>;
  tools: Record<string, McpToolFlagsConfig>;
  timeoutMs: number;
}

export type McpServerPlan = StdioServerPlan | HttpServerPlan;

export interface PlanContext {
  /** The run's workspace: `${AGENTCTL_WORKSPACE}`. */
  workspace: string;
  /** The directory a relative `cwd` is read from (and the default `cwd`). */
  configDir: string;
  /** Where `${VAR}` is read from, and what a stdio server's base environment comes from. */
  env: NodeJS.ProcessEnv;
}

/** `text` with every `${NAME}` replaced; `where` names the field in the error for an unset one. */
export function expandVars(text: string, context: PlanContext, where: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => {
    if (name === 'AGENTCTL_WORKSPACE') return context.workspace;
    const value = context.env[name];
    if (value === undefined) throw new InvalidOptionError(`config '${where}' uses \${${name}}, which is not set in the environment`);
    return value;
  });
}

function expandValues(values: Record<string, string> | undefined, context: PlanContext, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) out[key] = expandVars(value, context, `${where}.${key}`);
  return out;
}

/** Every configured server as it is started, in the config's order. */
export function planServers(servers: Readonly<Record<string, McpServerConfig>>, context: PlanContext): McpServerPlan[] {
  return Object.entries(servers).map(([name, server]) => {
    const where = `mcpServers.${name}`;
    const common = { name, tools: server.tools ?? {}, timeoutMs: server.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS };
    if (server.url !== undefined) {
      return { ...common, transport: 'http', url: expandVars(server.url, context, `${where}.url`), headers: expandValues(server.headers, context, `${where}.headers`) };
    }
    const env: Record<string, string> = {};
    for (const key of SERVER_BASE_ENV) {
      const value = context.env[key];
      if (value !== undefined) env[key] = value;
    }
    Object.assign(env, expandValues(server.env, context, `${where}.env`));
    return {
      ...common,
      transport: 'stdio',
      command: expandVars(server.command ?? '', context, `${where}.command`),
      args: (server.args ?? []).map((arg, i) => expandVars(arg, context, `${where}.args.${i}`)),
      env,
      cwd: resolve(context.configDir, expandVars(server.cwd ?? '.', context, `${where}.cwd`)),
    };
  });
}

/**
 * What a server's config hands it that agentctl must never show: the value of every `${VAR}` its
 * args, url, env and headers name, and every literal `env` and `headers` value. A server that fails to start often says
 * them back on its standard error (`bad token …`), and the message about it must not repeat them.
 */
export function configSecrets(server: McpServerConfig, env: NodeJS.ProcessEnv): string[] {
  const given = [...Object.values(server.env ?? {}), ...Object.values(server.headers ?? {})];
  // Not `command` or `cwd`: a path built of ${HOME} is no secret, and hiding it would hide the path.
  const texts = [server.url, ...(server.args ?? []), ...given];
  const out: string[] = [];
  for (const text of texts) {
    for (const [, name] of (text ?? '').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
      const value = name === 'AGENTCTL_WORKSPACE' ? undefined : env[name as string];
      if (value !== undefined) out.push(value);
    }
  }
  for (const value of given) {
    if (!/\$\{/.test(value)) out.push(value);
  }
  return out;
}

/** The secrets of every server of a config (configSecrets): a run's redactor keeps its servers' answers from saying them onto the tape. */
export function mcpConfigSecrets(servers: Readonly<Record<string, McpServerConfig>> | undefined, env: NodeJS.ProcessEnv): string[] {
  return Object.values(servers ?? {}).flatMap((server) => configSecrets(server, env));
}

/** `mcpServers` as a tape records it (its `env` and `headers` values redacted): see core/event-redactor.ts. */
export { mcpServersForTape } from '../core/event-redactor.js';
