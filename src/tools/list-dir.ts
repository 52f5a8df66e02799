/**
 * `list_dir`: the entries of a workspace directory, sorted by name so the same directory always
 * lists the same way (recorded and replayed outputs must compare equal).
 */
import { readdir, stat } from 'node:fs/promises';
import { builtinArgsJson } from './args-json.js';
import { parseArgs, withFsErrors } from './tool-args.js';
import { ToolError, type Tool } from './tool.js';
import { resolveInWorkspace } from './workspace.js';

/** Entries shown before the listing is cut short. */
export const MAX_LIST_ENTRIES = 1000;

/** The `list_dir` tool. Idempotent, not mutating. */
export function listDirTool(options: { timeoutMs?: number } = {}): Tool {
  return {
    name: 'list_dir',
    description:
      'List a directory in the workspace, one entry per line: directories end with "/", symbolic links with "@".',
    parameters: builtinArgsJson('list_dir'),
    idempotent: true,
    mutating: false,
    timeoutMs: options.timeoutMs ?? 10_000,
    async run(args, ctx) {
      const { path = '.' } = await parseArgs('list_dir', args);
      const shown = path === '' ? '.' : path;
      const real = await resolveInWorkspace(ctx.workspace, shown, ctx.hidden);
      const entries = await withFsErrors(shown, async () => {
        if (!(await stat(real)).isDirectory()) throw new ToolError(`'${shown}' is a file, not a directory; use read_file`);
        return readdir(real, { withFileTypes: true });
      });
      if (entries.length === 0) return '(empty directory)';
      // Code-unit order, not locale order: identical on every machine.
      const names = entries
        .map((entry) => entry.name + (entry.isDirectory() ? '/' : entry.isSymbolicLink() ? '@' : ''))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const shownNames = names.slice(0, MAX_LIST_ENTRIES);
      if (names.length > MAX_LIST_ENTRIES) shownNames.push(`[${names.length - MAX_LIST_ENTRIES} more entries not shown]`);
      return shownNames.join('\n');
    },
  };
}
