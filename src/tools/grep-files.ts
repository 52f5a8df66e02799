/**
 * `grep_files`: search workspace files for a regular expression, in plain JS so there is nothing
 * to install and the output is the same on every machine (files visited in sorted order, symlinks
 * not followed — following them could leave the workspace).
 *
 * The pattern is the model's, untrusted: it is matched by RE2 (untrusted-pattern.ts), in time
 * linear in each line, so no pattern can block the event loop past the executor's timeout.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileUntrustedPattern, type UntrustedPattern } from '../core/untrusted-pattern.js';
import { builtinArgsJson } from './args-json.js';
import { parseArgs, withFsErrors } from './tool-args.js';
import { ToolError, type Tool } from './tool.js';
import { resolveInWorkspace, workspaceRelative } from './workspace.js';

/** Matching lines reported before the search stops. */
export const MAX_GREP_MATCHES = 200;
/** Files larger than this are skipped (generated or data files, rarely what the model wants). */
const MAX_GREP_FILE_BYTES = 1024 * 1024;
/** Files looked at before the search stops, so a huge tree cannot run until the timeout. */
const MAX_GREP_FILES = 20_000;
/** Longest line tested against the regex; longer lines are cut first. */
const MAX_LINE_CHARS = 4096;
/** Longest line shown in a result. */
const MAX_SHOWN_CHARS = 300;
/** Directories not descended into (noise and size); naming one as `path` still searches it. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Files under `dir` (real path), depth first in sorted order; symlinks, skipped and `hidden` dirs left out. */
async function* walk(dir: string, hidden: readonly string[], signal: AbortSignal): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => byCodeUnit(a.name, b.name));
  for (const entry of entries) {
    signal.throwIfAborted();
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !hidden.includes(full)) yield* walk(full, hidden, signal);
    } else if (entry.isFile()) {
      yield full;
    }
  }
}

/** The `grep_files` tool. Idempotent, not mutating. */
export function grepFilesTool(options: { timeoutMs?: number } = {}): Tool {
  return {
    name: 'grep_files',
    description:
      `Search text files in the workspace for a regular expression (RE2 syntax: no lookaround or backreferences). Returns "path:line: text" for each matching line, at most ${MAX_GREP_MATCHES}. Skips .git, node_modules, binary and very large files.`,
    parameters: builtinArgsJson('grep_files'),
    idempotent: true,
    mutating: false,
    timeoutMs: options.timeoutMs ?? 10_000,
    async run(args, ctx) {
      const { pattern, path = '.' } = await parseArgs('grep_files', args);
      let regex: UntrustedPattern;
      try {
        regex = compileUntrustedPattern(pattern);
      } catch (error) {
        throw new ToolError(`invalid regular expression: ${error instanceof Error ? error.message : String(error)}`);
      }
      const shownRoot = path === '' ? '.' : path;
      const hidden = ctx.hidden ?? [];
      const root = await resolveInWorkspace(ctx.workspace, shownRoot, hidden);
      const workspace = await resolveInWorkspace(ctx.workspace, '.');
      const rootIsDir = await withFsErrors(shownRoot, async () => (await lstat(root)).isDirectory());

      const matches: string[] = [];
      let files = 0;
      let stopped = '';
      const candidates = rootIsDir ? walk(root, hidden, ctx.signal) : [root];
      for await (const file of candidates) {
        if (++files > MAX_GREP_FILES) {
          stopped = `[search stopped after ${MAX_GREP_FILES} files; narrow it with path]`;
          break;
        }
        const info = await lstat(file);
        // Only regular files: reading a FIFO or a device would block until the timeout.
        if (!info.isFile() || info.size > MAX_GREP_FILE_BYTES) continue;
        const text = await readFile(file, 'utf8').catch(() => undefined); // unreadable: skip, like grep -s
        if (text === undefined || text.slice(0, 8192).includes('\0')) continue;
        const lines = text.split('\n');
        const rel = workspaceRelative(workspace, file);
        for (let i = 0; i < lines.length; i++) {
          const line = (lines[i] ?? '').replace(/\r$/, '');
          if (!regex.test(line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line)) continue;
          const shownLine = line.length > MAX_SHOWN_CHARS ? `${line.slice(0, MAX_SHOWN_CHARS)}…` : line;
          matches.push(`${rel}:${i + 1}: ${shownLine}`);
          if (matches.length >= MAX_GREP_MATCHES) break;
        }
        if (matches.length >= MAX_GREP_MATCHES) {
          stopped = `[results capped at ${MAX_GREP_MATCHES} matches; narrow the pattern or the path]`;
          break;
        }
      }
      if (matches.length === 0) return stopped || `no matches for /${pattern}/ in '${shownRoot}'`;
      if (stopped) matches.push(stopped);
      return matches.join('\n');
    },
  };
}
