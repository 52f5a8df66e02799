/**
 * The built-in agent's MCP servers as tools: every server of the config started at once (the
 * handshake and its tool list within a start limit), each listed tool a `Tool` the model is offered
 * as `<server>__<tool>`, with the guardrails' flags from its annotations (the config's
 * `tools.<tool>` wins) and a run() that calls the server. The handle stops them all.
 *
 * A server that does not start is an McpServerError naming it (exit 13), and the servers already
 * started are stopped: a run never begins with half its tools.
 */
import { InvalidOptionError, McpServerError } from '../core/errors.js';
import { createRedactor, secretsFromEnv, type Redactor } from '../core/redact.js';
import { MAX_TOOL_DESCRIPTION, MAX_TOOL_PARAMETERS_DEPTH, MAX_TOOL_PARAMETERS_JSON } from '../core/tool-limits.js';
import { printableLine } from '../core/terminal-text.js';
import { ToolError, type Tool } from '../tools/index.js';
import { flagsOf, type ToolFlags } from './annotations.js';
import { McpClient, McpRequestError, type McpListedTool } from './client.js';
import { modelToolName } from './names.js';
import { configSecrets, planServers, type McpServerConfig, type McpServerPlan, type McpToolFlagsConfig, type PlanContext } from './server-config.js';
import { httpUpstream } from './http-upstream.js';
import { stdioUpstream } from './stdio-upstream.js';
import { mcpToolOutput } from './tool-output.js';
import type { McpUpstream } from './upstream.js';

/** How long a server has to start, answer the handshake and list its tools. */
export const DEFAULT_MCP_START_TIMEOUT_MS = 30_000;

/** How much of a stdio server's standard error is kept, for the message when it fails to start. */
const STDERR_TAIL_BYTES = 4096;

export interface McpToolsOptions extends PlanContext {
  startTimeoutMs?: number;
}

export interface McpTools {
  /** Every tool of every server, in the config's order of servers, each server's in its listing order. */
  tools: Tool[];
  /** Stop every server (idempotent). */
  close(): Promise<void>;
}

/** The last lines a server wrote to its standard error, kept for the message when it fails. */
class StderrTail {
  private text = '';
  readonly push = (chunk: Buffer): void => {
    this.text = (this.text + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
  };

  lastLine(): string | undefined {
    const lines = this.text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
    return lines.at(-1);
  }
}

interface Started {
  plan: McpServerPlan;
  client: McpClient;
  tools: Tool[];
}

/** Start every server of `servers` and give their tools. */
export async function startMcpTools(servers: Readonly<Record<string, McpServerConfig>> | undefined, options: McpToolsOptions): Promise<McpTools> {
  const plans = planServers(servers ?? {}, options);
  const settled = await Promise.allSettled(plans.map((plan) => startServer(plan, options, configSecrets(servers?.[plan.name] ?? {}, options.env))));
  const started = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const close = async (): Promise<void> => {
    await Promise.all(started.map(({ client }) => client.close()));
  };
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) {
    await close();
    throw failed.reason;
  }
  try {
    const tools: Tool[] = [];
    const byName = new Map<string, string>();
    for (const server of started) {
      for (const tool of server.tools) {
        const earlier = byName.get(tool.name);
        if (earlier !== undefined) {
          throw new InvalidOptionError(`MCP tools '${earlier}' and '${tool.mcp?.tool ?? tool.name}' of server '${server.plan.name}' would both be offered to the model as '${tool.name}'`);
        }
        byName.set(tool.name, `${tool.mcp?.tool ?? tool.name}' of server '${server.plan.name}`);
        tools.push(tool);
      }
    }
    return { tools, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function upstreamOf(plan: McpServerPlan, stderr: StderrTail): McpUpstream {
  if (plan.transport === 'stdio') {
    return stdioUpstream({ command: plan.command, args: plan.args, env: plan.env, cwd: plan.cwd, stderr: stderr.push });
  }
  return httpUpstream({ url: plan.url, headers: plan.headers });
}

async function startServer(plan: McpServerPlan, options: McpToolsOptions, secrets: readonly string[]): Promise<Started> {
  const stderr = new StderrTail();
  const upstream = upstreamOf(plan, stderr);
  const timeoutMs = options.startTimeoutMs ?? DEFAULT_MCP_START_TIMEOUT_MS;
  let client: McpClient | undefined;
  try {
    client = await McpClient.connect({ server: plan.name, upstream, timeoutMs });
    const listed = await client.listTools({ timeoutMs });
    const known = new Set(listed.map((tool) => tool.name));
    const unknown = Object.keys(plan.tools).filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new InvalidOptionError(`config 'mcpServers.${plan.name}.tools' names ${unknown.map((n) => `'${n}'`).join(', ')}, not a tool of that server`, {
        hint: `its tools: ${listed.map((tool) => tool.name).join(', ')}`,
      });
    }
    return { plan, client, tools: toolsOf(plan, client, listed) };
  } catch (error) {
    await client?.close();
    throw startError(plan.name, error, stderr, createRedactor({ secrets: [...secrets, ...secretsFromEnv(options.env)] }));
  }
}

/**
 * A start failure as the user reads it: which server, what happened, and the last thing it said —
 * without the secrets its config gave it or any key-shaped text (a server's complaint about its
 * token often quotes it), since this message reaches the terminal and the tape's end reason.
 */
function startError(name: string, error: unknown, stderr: StderrTail, redact: Redactor): unknown {
  if (error instanceof InvalidOptionError) return error;
  const prefix = `MCP server '${name}' `;
  const message = error instanceof Error ? error.message : String(error);
  const what = error instanceof McpRequestError ? `answered with an error: ${message}` : message.startsWith(prefix) ? message.slice(prefix.length) : message;
  const said = stderr.lastLine();
  return new McpServerError(redact.text(`${prefix}did not start: ${what}`), {
    cause: error,
    ...(said === undefined ? {} : { hint: printableLine(redact.text(`its last words on stderr: ${said}`)) }),
  });
}

function toolsOf(plan: McpServerPlan, client: McpClient, listed: readonly McpListedTool[]): Tool[] {
  return listed.map((listedTool): Tool => {
    const { name: tool, inputSchema } = listedTool;
    if (typeof inputSchema !== 'object' || inputSchema === null || Array.isArray(inputSchema) || (inputSchema as Record<string, unknown>)['type'] !== 'object') {
      throw new McpServerError(`MCP server '${plan.name}' listed tool '${tool}' with an input schema that is not "type": "object"`);
    }
    // A tape must read back what it records of the tool (core/tool-spec-schema.ts bounds a spec).
    if (JSON.stringify(inputSchema).length > MAX_TOOL_PARAMETERS_JSON || depthOver(inputSchema, MAX_TOOL_PARAMETERS_DEPTH)) {
      throw new McpServerError(`MCP server '${plan.name}' listed tool '${tool}' with an input schema larger than a tape records (${MAX_TOOL_PARAMETERS_JSON} characters, ${MAX_TOOL_PARAMETERS_DEPTH} levels)`);
    }
    const flags = { ...flagsOf(listedTool.annotations), ...definedFlags(plan.tools[tool]) };
    const named = listedTool.description?.trim() || listedTool.title?.trim() || listedTool.annotations.title?.trim() || tool;
    const description = named.slice(0, MAX_TOOL_DESCRIPTION);
    return {
      name: modelToolName(plan.name, tool),
      description,
      parameters: inputSchema as Record<string, unknown>,
      idempotent: flags.idempotent,
      mutating: flags.mutating,
      timeoutMs: plan.timeoutMs,
      mcp: { server: plan.name, tool },
      run: async (args, ctx) => {
        let result: Record<string, unknown>;
        try {
          result = await client.callTool(tool, args, { signal: ctx.signal });
        } catch (error) {
          if (ctx.signal.aborted) throw error;
          throw new ToolError(error instanceof Error ? error.message : String(error), { cause: error });
        }
        const output = mcpToolOutput(result);
        if (output.isError) throw new ToolError(output.text);
        return output.text;
      },
    };
  });
}

function definedFlags(flags: McpToolFlagsConfig | undefined): Partial<ToolFlags> {
  const out: Partial<ToolFlags> = {};
  if (flags?.idempotent !== undefined) out.idempotent = flags.idempotent;
  if (flags?.mutating !== undefined) out.mutating = flags.mutating;
  return out;
}

/** Whether a JSON value nests deeper than `limit` levels (a scalar: 0). */
function depthOver(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit <= 0) return true;
  return Object.values(value).some((inner) => depthOver(inner, limit - 1));
}
