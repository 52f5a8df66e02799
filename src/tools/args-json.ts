/**
 * The JSON Schema of each built-in tool's arguments, written out rather than made from its zod
 * schema on every run (`z.toJSONSchema` is a noticeable part of a short replay's start-up).
 * args-json.test.ts holds every entry to exactly what `argsJsonSchema` makes of the tool's zod
 * schema (arg-schemas.ts), so the two cannot drift apart: change a tool's zod schema, and that test
 * says what to write here.
 */
const BUILTIN_ARGS_JSON = {
  read_file: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'File path, relative to the workspace',
      },
      offset: {
        description: 'First line to return, 0-based (default 0)',
        type: 'integer',
        minimum: 0,
      },
      limit: {
        description: 'Maximum number of lines to return (default 2000)',
        type: 'integer',
        minimum: 1,
      },
    },
    required: ['path'],
  },
  write_file: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'File path, relative to the workspace; missing parent directories are created',
      },
      content: {
        type: 'string',
        description: 'The complete new content of the file',
      },
    },
    required: ['path', 'content'],
  },
  edit_file: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: 'File path, relative to the workspace',
      },
      old: {
        type: 'string',
        minLength: 1,
        description: 'The exact text to replace; it must occur exactly once in the file',
      },
      new: {
        type: 'string',
        description: 'The text to put in its place',
      },
    },
    required: ['path', 'old', 'new'],
  },
  list_dir: {
    type: 'object',
    properties: {
      path: {
        description: 'Directory path, relative to the workspace (default: the workspace itself)',
        type: 'string',
      },
    },
  },
  grep_files: {
    type: 'object',
    properties: {
      pattern: {
        type: 'string',
        minLength: 1,
        description: 'Regular expression (RE2 syntax) to search for, e.g. "TODO|FIXME"',
      },
      path: {
        description: 'File or directory to search, relative to the workspace (default: the whole workspace)',
        type: 'string',
      },
    },
    required: ['pattern'],
  },
  exec_shell: {
    type: 'object',
    properties: {
      command: {
        type: 'string',
        minLength: 1,
        description: 'Shell command, run with /bin/sh -c in the workspace directory',
      },
    },
    required: ['command'],
  },
} as const;

export type BuiltinArgsName = keyof typeof BUILTIN_ARGS_JSON;

/** A fresh copy of the JSON Schema of built-in tool `name`'s arguments (callers may change theirs). */
export function builtinArgsJson(name: BuiltinArgsName): Record<string, unknown> {
  return structuredClone(BUILTIN_ARGS_JSON[name]) as Record<string, unknown>;
}
