/**
 * Tools: the registry, the built-ins confined to a workspace, the bounded executor, and custom
 * tools loaded from JavaScript modules.
 */
export { ToolError, specOf, specOnlyTool, type Tool, type ToolContext } from './tool.js';
export { ToolRegistry, type RegistryOptions } from './registry.js';
export { BUILTIN_TOOL_NAMES, createBuiltinTool, isBuiltinToolName, type BuiltinToolName, type BuiltinToolOptions } from './builtins.js';
export { executeTool, type ExecuteOptions, type ExecuteResult } from './executor.js';
export { loadCustomTools, DEFAULT_CUSTOM_TIMEOUT_MS } from './custom-tools.js';
export { createWorkspace, hiddenEntries, resolveInWorkspace, isInside, workspaceRelative } from './workspace.js';
export { OUTPUT_CAP_BYTES, capOutput, truncationMarker, OutputCollector } from './output-cap.js';
export { readFileTool } from './read-file.js';
export { DEFAULT_READ_LIMIT, MAX_READ_BYTES } from './read-limits.js';
export { listDirTool, MAX_LIST_ENTRIES } from './list-dir.js';
export { grepFilesTool, MAX_GREP_MATCHES } from './grep-files.js';
export { writeFileTool } from './write-file.js';
export { editFileTool } from './edit-file.js';
export { execShellTool, scrubbedEnv, SECRET_ENV_PATTERN, type ExecShellOptions } from './exec-shell.js';
export { BWRAP_MISSING, DEFAULT_SANDBOX, SANDBOX_WORKSPACE, findBwrap, type SandboxSetting } from './sandbox.js';
export { findProgram } from './launcher.js';
