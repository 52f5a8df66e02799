/**
 * The zod schema of a tool's spec (docs/guardrails.md §2): what the model is shown of it (name,
 * description, JSON Schema of its arguments) and what the guardrails and the executor read
 * (idempotent, mutating, time limit). One description, for the two places a spec comes from
 * outside agentctl: a custom tools module (src/tools/custom-tool-schema.ts) and a tape, whose
 * `run_start` records the run's custom tools (event-schema.ts). The bounds are the same for both, so
 * a tool a run could load gives a tape that reads back.
 *
 * A tape is untrusted input: every field is checked and bounded. Only tape reading and the loading
 * of a tools module load this module; the rest imports its types alone (tools.ts).
 */
import { z } from 'zod';
import { MAX_CUSTOM_TOOLS, MAX_TOOL_DESCRIPTION, MAX_TOOL_PARAMETERS_DEPTH, MAX_TOOL_PARAMETERS_JSON } from './tool-limits.js';

/** OpenAI's rule for function names; other servers accept the same set. */
export const toolNameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"');

export const toolDescriptionSchema = z.string().min(1).max(MAX_TOOL_DESCRIPTION);

/** How deep a JSON value nests (a scalar: 0), counted no further than `limit` + 1. */
function depthOf(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (limit < 0) return 1;
  let deepest = 0;
  for (const inner of Object.values(value)) deepest = Math.max(deepest, depthOf(inner, limit - 1));
  return deepest + 1;
}

/** The JSON text of a value, or undefined when it has none (a cycle, a BigInt). */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** A JSON Schema of an arguments object: `"type": "object"`, plain JSON, bounded in size and depth. */
export const toolParametersSchema = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === 'object', { message: 'must be a JSON Schema with "type": "object"' })
  .refine((schema) => (jsonText(schema)?.length ?? Infinity) <= MAX_TOOL_PARAMETERS_JSON, {
    message: `must be JSON of at most ${MAX_TOOL_PARAMETERS_JSON} characters`,
  })
  .refine((schema) => depthOf(schema, MAX_TOOL_PARAMETERS_DEPTH) <= MAX_TOOL_PARAMETERS_DEPTH, {
    message: `must nest at most ${MAX_TOOL_PARAMETERS_DEPTH} levels deep`,
  });

/** A per-call time limit in milliseconds. */
export const toolTimeoutSchema = z.number().int().positive();

/** The name an MCP server goes by in a config's `mcpServers` and on a tape: a word, as tool names are. */
export const mcpServerNameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,48}$/, 'must be 1-48 letters, digits, "_" or "-"');

/** A tool's name as its MCP server gives it (the protocol allows more than a model's function names). */
export const mcpToolNameSchema = z.string().regex(/^[\x21-\x7e]{1,128}$/, 'must be 1-128 printable ASCII characters without spaces');

/** A tool's spec, every field stated: as a run used it, and as its `run_start` records a custom tool. */
export const toolSpecSchema = z.strictObject({
  name: toolNameSchema,
  description: toolDescriptionSchema,
  /** JSON Schema of the arguments object. */
  parameters: toolParametersSchema,
  /** Same arguments → same effect: a second identical successful call is wasteful. */
  idempotent: z.boolean(),
  /** Its success changes the workspace (resets identical-call and dedup memory). */
  mutating: z.boolean(),
  /** Per-call time limit in milliseconds. */
  timeoutMs: toolTimeoutSchema,
  /** A tool of an MCP server (config `mcpServers`): the server's name and the tool's own name there. */
  mcp: z.strictObject({ server: mcpServerNameSchema, tool: mcpToolNameSchema }).optional(),
});

/** A run's custom tools, as its `run_start` records them (registration order). */
export const customToolsSchema = z.array(toolSpecSchema).max(MAX_CUSTOM_TOOLS);
