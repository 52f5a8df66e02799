/**
 * `read_file`: a text file from the workspace, whole or a window of lines (`offset`, `limit`), so
 * a model can page through a long file without flooding its context.
 */
import { readFile, stat } from 'node:fs/promises';
import { builtinArgsJson } from './args-json.js';
import { DEFAULT_READ_LIMIT, MAX_READ_BYTES } from './read-limits.js';
import { parseArgs, withFsErrors } from './tool-args.js';
import { ToolError, type Tool } from './tool.js';
import { resolveInWorkspace } from './workspace.js';

/** Index in `text` where each line starts (line i spans starts[i] … starts[i + 1]). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The `read_file` tool. Idempotent, not mutating. */
export function readFileTool(options: { timeoutMs?: number } = {}): Tool {
  return {
    name: 'read_file',
    description:
      'Read a text file in the workspace. Returns its content; for long files use offset and limit (in lines) to page through it.',
    parameters: builtinArgsJson('read_file'),
    idempotent: true,
    mutating: false,
    timeoutMs: options.timeoutMs ?? 10_000,
    async run(args, ctx) {
      const { path, offset = 0, limit = DEFAULT_READ_LIMIT } = await parseArgs('read_file', args);
      const real = await resolveInWorkspace(ctx.workspace, path, ctx.hidden);
      const text = await withFsErrors(path, async () => {
        const info = await stat(real);
        if (info.isDirectory()) throw new ToolError(`'${path}' is a directory; use list_dir to see its entries`);
        // A FIFO or device would block the read until the timeout.
        if (!info.isFile()) throw new ToolError(`'${path}' is not a regular file`);
        if (info.size > MAX_READ_BYTES) throw new ToolError(`'${path}' is too large to read (${info.size} bytes)`);
        return readFile(real, { encoding: 'utf8', signal: ctx.signal });
      });
      if (text.slice(0, 8192).includes('\0')) throw new ToolError(`'${path}' looks like a binary file`);
      const starts = text === '' ? [] : lineStarts(text);
      const total = starts.length;
      if (total === 0 && offset === 0) return '';
      if (offset >= total) throw new ToolError(`offset ${offset} is past the end of '${path}' (${total} lines)`);
      const end = Math.min(offset + limit, total);
      const window = text.slice(starts[offset], end < total ? starts[end] : text.length);
      if (offset === 0 && end === total) return window;
      // Tell the model where it is, so paging is a matter of reading the numbers back.
      const more = end < total ? `; call read_file with offset=${end} for more` : '';
      return `${window}${window.endsWith('\n') ? '' : '\n'}[lines ${offset + 1}-${end} of ${total}${more}]`;
    },
  };
}
