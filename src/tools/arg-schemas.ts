/**
 * The zod schemas of the built-in tools' arguments, in a module of their own so that zod is loaded
 * only when a tool checks its arguments (tool-args.ts imports this module on demand): a replay whose
 * tool results come from the tape never loads it, and starts up without it. The JSON Schema the provider
 * sees is written out in args-json.ts; args-json.test.ts holds it to what `argsJsonSchema` makes of
 * these schemas, so the two cannot drift apart.
 */
import { z } from 'zod';
import { DEFAULT_READ_LIMIT } from './read-limits.js';

export const ARG_SCHEMAS = {
  read_file: z.object({
    path: z.string().min(1).describe('File path, relative to the workspace'),
    offset: z.number().int().min(0).optional().describe('First line to return, 0-based (default 0)'),
    limit: z.number().int().min(1).optional().describe(`Maximum number of lines to return (default ${DEFAULT_READ_LIMIT})`),
  }),
  write_file: z.object({
    path: z.string().min(1).describe('File path, relative to the workspace; missing parent directories are created'),
    content: z.string().describe('The complete new content of the file'),
  }),
  edit_file: z.object({
    path: z.string().min(1).describe('File path, relative to the workspace'),
    old: z.string().min(1).describe('The exact text to replace; it must occur exactly once in the file'),
    new: z.string().describe('The text to put in its place'),
  }),
  list_dir: z.object({
    path: z.string().optional().describe('Directory path, relative to the workspace (default: the workspace itself)'),
  }),
  grep_files: z.object({
    pattern: z.string().min(1).describe('Regular expression (RE2 syntax) to search for, e.g. "TODO|FIXME"'),
    path: z.string().optional().describe('File or directory to search, relative to the workspace (default: the whole workspace)'),
  }),
  exec_shell: z.object({
    command: z.string().min(1).describe('Shell command, run with /bin/sh -c in the workspace directory'),
  }),
};

/** Name of a built-in tool that has an argument schema here. */
export type ArgSchemaName = keyof typeof ARG_SCHEMAS;
/** The checked arguments of built-in tool `Name`. */
export type ToolArgs<Name extends ArgSchemaName> = z.output<(typeof ARG_SCHEMAS)[Name]>;

/** JSON Schema for a tool's arguments object, in the plain shape OpenAI-compatible servers accept. */
export function argsJsonSchema(schema: z.ZodObject): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    // `.int()` adds ±MAX_SAFE_INTEGER bounds that only add noise to every request.
    override: ({ jsonSchema }) => {
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    },
  }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}
