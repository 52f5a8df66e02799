/**
 * `edit_file`: replace one exact occurrence of a text in a workspace file. Exactly one: an edit
 * whose anchor is missing or ambiguous fails, so the model never changes a place it did not mean.
 *
 * Semantics: mutating, and not idempotent — repeating a successful edit does not repeat its
 * effect (the old text is gone, so it fails; or, if the new text contains the old, it edits again).
 */
import { readFile } from 'node:fs/promises';
import { builtinArgsJson } from './args-json.js';
import { parseArgs, withFsErrors } from './tool-args.js';
import { ToolError, type Tool } from './tool.js';
import { resolveInWorkspace } from './workspace.js';
import { UNLINKED_NOTE, writeWorkspaceFile } from './write-workspace-file.js';

/** Non-overlapping occurrences of `needle` in `text` (stops counting at 2: that is enough to refuse). */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1 && found.length < 2; i = text.indexOf(needle, i + needle.length)) found.push(i);
  return found;
}

/** The `edit_file` tool. Not idempotent, mutating. */
export function editFileTool(options: { timeoutMs?: number } = {}): Tool {
  return {
    name: 'edit_file',
    description:
      'Edit a file in the workspace by replacing one exact occurrence of `old` with `new`. Fails if `old` is not found or occurs more than once (include more surrounding text to make it unique).',
    parameters: builtinArgsJson('edit_file'),
    idempotent: false,
    mutating: true,
    timeoutMs: options.timeoutMs ?? 10_000,
    async run(args, ctx) {
      const { path, old, new: replacement } = await parseArgs('edit_file', args);
      const real = await resolveInWorkspace(ctx.workspace, path, ctx.hidden);
      return withFsErrors(path, async () => {
        const text = await readFile(real, { encoding: 'utf8', signal: ctx.signal });
        const found = occurrences(text, old);
        const at = found[0];
        if (at === undefined) throw new ToolError(`the text to replace was not found in '${path}'`);
        if (found.length > 1) {
          throw new ToolError(`the text to replace occurs more than once in '${path}'; include more surrounding text to make it unique`);
        }
        // Slicing, not String.replace: `$&` and friends in the new text must stay literal.
        const { unlinked } = await writeWorkspaceFile(real, text.slice(0, at) + replacement + text.slice(at + old.length));
        const line = text.slice(0, at).split('\n').length;
        return `edited '${path}': replaced 1 occurrence at line ${line}${unlinked ? ` (${UNLINKED_NOTE})` : ''}`;
      });
    },
  };
}
