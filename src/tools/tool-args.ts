/**
 * Arguments of the built-in tools: checked against their zod schemas (arg-schemas.ts), which are
 * loaded with zod the first time a tool runs, not when the tools are created (which every start-up would pay for);
 * and the fs errors the tools turn into messages for the model.
 */
import type { ArgSchemaName, ToolArgs } from './arg-schemas.js';
import { ToolError } from './tool.js';

/** `args` checked against built-in tool `tool`'s schema, or a ToolError that tells the model which argument is wrong. */
export async function parseArgs<Name extends ArgSchemaName>(tool: Name, args: unknown): Promise<ToolArgs<Name>> {
  const { ARG_SCHEMAS } = await import('./arg-schemas.js');
  const result = ARG_SCHEMAS[tool].safeParse(args);
  if (result.success) return result.data as ToolArgs<Name>;
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
