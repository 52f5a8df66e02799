/**
 * `session.mcpServer()`: the command an agent's MCP client starts instead of a stdio server's own —
 * `agentctl mcp --name <name> -- <command> [args…]`, joined to the session through its broker
 * (mcp-broker.ts), so the server's traffic is recorded onto the session's run, or served from its
 * tape, beside its model calls. The broker starts at the first call and stops when the session finishes.
 */
import { fileURLToPath } from 'node:url';
import { InvalidOptionError } from '../core/errors.js';
import { mcpServerNameSchema } from '../core/tool-spec-schema.js';
import { mcpBroker, MCP_LINK_ENV, serveBroker, type BrokerServer } from './mcp-broker.js';
import type { SessionLink } from './mcp-link.js';
import type { McpServerParameters, McpServerSpec } from './tape-options.js';

/** What an MCP client passes a server by default: no keys of agentctl's or the agent's unless asked for. */
const DEFAULT_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
/** The agentctl binary of this package. */
const BIN = fileURLToPath(new URL('../../bin/agentctl.js', import.meta.url));

/** The session's broker, started on first use. */
export class SessionServers {
  private server: Promise<BrokerServer> | undefined;

  constructor(private readonly link: () => SessionLink) {}

  async parameters(spec: McpServerSpec): Promise<McpServerParameters> {
    const name = mcpServerNameSchema.safeParse(spec.name);
    if (!name.success) throw new InvalidOptionError(`mcpServer: name ${JSON.stringify(spec.name)} is not a server name (1-48 of A-Z a-z 0-9 _ -)`);
    if (typeof spec.command !== 'string' || spec.command === '') throw new InvalidOptionError('mcpServer: give the server\'s command');
    this.server ??= serveBroker(mcpBroker(this.link()));
    const { url } = await this.server;
    const env: Record<string, string> = {};
    for (const key of DEFAULT_ENV) {
      const value = process.env[key];
      if (value !== undefined && !value.startsWith('()')) env[key] = value;
    }
    return {
      command: process.execPath,
      args: [BIN, 'mcp', '--name', spec.name, '--', spec.command, ...(spec.args ?? [])],
      env: { ...env, ...spec.env, [MCP_LINK_ENV]: url },
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    };
  }

  /** Stop the broker, if it started. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await (await server).close();
  }
}
