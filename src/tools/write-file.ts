/**
 * `write_file`: create or overwrite a workspace file (parent directories are created).
 *
 * Semantics (docs/guardrails.md §2): mutating. Also idempotent — writing the same content to the same path
 * twice has the effect of writing it once, which is exactly the definition (docs/guardrails.md §2). In practice the
 * flag changes nothing for dedup: every successful mutating call makes ReplayControl forget prior
 * successes, so a repeated write is never skipped as a duplicate; and replay never runs an
 * off-tape mutating call live without `--allow-side-effects`.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { builtinArgsJson } from './args-json.js';
import { parseArgs, withFsErrors } from './tool-args.js';
import type { Tool } from './tool.js';
import { resolveInWorkspace } from './workspace.js';
import { UNLINKED_NOTE, writeWorkspaceFile } from './write-workspace-file.js';

/** The `write_file` tool. Idempotent, mutating. */
export function writeFileTool(options: { timeoutMs?: number } = {}): Tool {
  return {
    name: 'write_file',
    description: 'Create a file in the workspace, or replace its whole content. Parent directories are created as needed.',
    parameters: builtinArgsJson('write_file'),
    idempotent: true,
    mutating: true,
    timeoutMs: options.timeoutMs ?? 10_000,
    async run(args, ctx) {
      const { path, content } = await parseArgs('write_file', args);
      const real = await resolveInWorkspace(ctx.workspace, path, ctx.hidden);
      return withFsErrors(path, async () => {
        await mkdir(dirname(real), { recursive: true });
        const { existed, unlinked } = await writeWorkspaceFile(real, content, ctx.signal);
        const bytes = `${Buffer.byteLength(content, 'utf8')} bytes${unlinked ? `; ${UNLINKED_NOTE}` : ''}`;
        return `${existed ? 'overwrote' : 'created'} '${path}' (${bytes})`;
      });
    },
  };
}
