/**
 * The built-in tools by name. Factories, not singletons: each registry gets its own tool objects,
 * so per-run timeout overrides never leak between runs.
 */
import { editFileTool } from './edit-file.js';
import { execShellTool } from './exec-shell.js';
import { grepFilesTool } from './grep-files.js';
import { listDirTool } from './list-dir.js';
import { readFileTool } from './read-file.js';
import type { SandboxSetting } from './sandbox.js';
import type { Tool } from './tool.js';
import { writeFileTool } from './write-file.js';

/** How to build a built-in: its time limit, and (for exec_shell) config `sandbox`. Each tool takes what applies to it. */
export interface BuiltinToolOptions {
  timeoutMs?: number;
  sandbox?: SandboxSetting;
}

const FACTORIES = {
  read_file: readFileTool,
  list_dir: listDirTool,
  grep_files: grepFilesTool,
  write_file: writeFileTool,
  edit_file: editFileTool,
  exec_shell: execShellTool,
} satisfies Record<string, (options?: BuiltinToolOptions) => Tool>;

/** Name of a built-in tool. */
export type BuiltinToolName = keyof typeof FACTORIES;

/** Every built-in tool name, read-only tools first. */
export const BUILTIN_TOOL_NAMES = Object.keys(FACTORIES) as BuiltinToolName[];

/** True when `name` is a built-in tool. */
export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return Object.hasOwn(FACTORIES, name);
}

/** A fresh instance of the built-in tool `name`, optionally with its own time limit (and sandbox). */
export function createBuiltinTool(name: BuiltinToolName, options: BuiltinToolOptions = {}): Tool {
  return FACTORIES[name](options);
}
