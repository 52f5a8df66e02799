/**
 * The zod schema of a config's `mcpServers` (the shapes: server-config.ts). An entry names a
 * server by a word (a tape's `mcp.server`), and says either how to start it (stdio) or where to
 * reach it (streamable HTTP), never both; the legacy SSE transport is refused with the way out.
 */
import { z } from 'zod';
import { mcpServerNameSchema, mcpToolNameSchema } from '../core/tool-spec-schema.js';
import { serverProblem, type McpServerConfig } from './server-config.js';

/** The zod schema of `mcpServers` (built when config.ts builds its own). */
export function mcpServersSchema() {
  const flags = z.strictObject({ idempotent: z.boolean().optional(), mutating: z.boolean().optional() });
  const server = z
    .strictObject({
      type: z.enum(['stdio', 'http', 'streamable-http', 'sse']).optional(),
      command: z.string().min(1).optional(),
      args: z.array(z.string()).optional(),
      env: z.record(z.string().min(1), z.string()).optional(),
      cwd: z.string().min(1).optional(),
      url: z.string().min(1).optional(),
      headers: z.record(z.string().min(1), z.string()).optional(),
      tools: z.record(mcpToolNameSchema, flags).optional(),
      timeoutMs: z.number().int().positive().optional(),
    })
    .superRefine((value, ctx) => {
      const problem = serverProblem(value as McpServerConfig);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.field === undefined ? [] : [problem.field] });
    });
  return z.record(mcpServerNameSchema, server);
}
