/**
 * The built-in tools by name. Factories, not singletons: each registry gets its own tool objects,
 * so per-run timeout overrides never leak between runs.
 */
import { editFileTool } from './edit-file.js';
import { execShellTool } from './exec-shell.js';
import { grepFilesTool } from './grep-files.js';
import { listDirTool } from './list-dir.js';
import { readFileTool } from './read-file.js';
import type { Tool } from './tool.js';
import { writeFileTool } from './write-file.js';

const FACTORIES = {
  read_file: readFileTool,
  list_dir: listDirTool,
  grep_files: grepFilesTool,
  write_file: writeFileTool,
  edit_file: editFileTool,
  exec_shell: execShellTool,
} satisfies Record<string, (options?: { timeoutMs?: number }) => Tool>;

/** Name of a built-in tool. */
export type BuiltinToolName = keyof typeof FACTORIES;

/** Every built-in tool name, read-only tools first. */
export const BUILTIN_TOOL_NAMES = Object.keys(FACTORIES) as BuiltinToolName[];

/** True when `name` is a built-in tool. */
export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return Object.hasOwn(FACTORIES, name);
}

/** A fresh instance of the built-in tool `name`, optionally with its own time limit. */
export function createBuiltinTool(name: BuiltinToolName, options: { timeoutMs?: number } = {}): Tool {
  return FACTORIES[name](options);
}
