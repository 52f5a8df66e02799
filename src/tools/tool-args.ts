/**
 * Arguments of the built-in tools: one zod schema per tool gives both the JSON Schema the provider
 * sees and the check the arguments get, so the two cannot drift apart.
 */
import { z } from 'zod';
import { ToolError } from './tool.js';

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

/** `args` checked against `schema`, or a ToolError that tells the model which argument is wrong. */
export function parseArgs<Schema extends z.ZodObject>(tool: string, schema: Schema, args: unknown): z.output<Schema> {
  const result = schema.safeParse(args);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const where = issue.path.length === 0 ? 'arguments' : issue.path.map(String).join('.');
    return `${where}: ${issue.message}`;
  });
  throw new ToolError(`invalid arguments for ${tool}: ${problems.join('; ')}`);
}

/**
 * A Node fs error as a short sentence about `shown` (the path as the model wrote it). Never the
 * absolute path the error carries: the model works with workspace paths only.
 */
export function fsErrorMessage(error: unknown, shown: string): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
  switch (code) {
    case 'ENOENT': return `'${shown}' does not exist`;
    case 'EISDIR': return `'${shown}' is a directory, not a file`;
    case 'ENOTDIR': return `'${shown}' is not a directory (or a parent of it is a file)`;
    case 'EACCES':
    case 'EPERM': return `permission denied: '${shown}'`;
    case 'EEXIST': return `'${shown}' already exists`;
    case 'ENAMETOOLONG': return `file name too long: '${shown}'`;
    case 'ELOOP': return `too many levels of symbolic links: '${shown}'`;
    default: {
      // Node's system errors end in ", <syscall> '<absolute path>'": keep what went wrong, show the path as given.
      const message = error instanceof Error ? error.message : String(error);
      const syscall = typeof error === 'object' && error !== null && 'syscall' in error ? String(error.syscall) : undefined;
      const cut = syscall === undefined ? -1 : message.indexOf(`, ${syscall} `);
      return cut === -1 ? message : `${message.slice(0, cut)}: '${shown}'`;
    }
  }
}

/** Run an fs operation on `shown`, turning its errors into ToolErrors the model can act on. */
export async function withFsErrors<T>(shown: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw new ToolError(fsErrorMessage(error, shown), { cause: error });
  }
}
