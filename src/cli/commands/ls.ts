import type { RunMeta } from '../../core/run-meta.js';
import { printableJson } from '../../core/terminal-text.js';
import { storeState } from '../../tape/store-files.js';
import { out, outputWidth, type GlobalOptions } from '../io.js';
import { runListLines } from '../render/run-list.js';
import { storeDir } from '../store-dir.js';
import { withStore } from '../with-store.js';

/**
 * `agentctl ls`: runs newest first, fitted to the terminal (render/run-list.ts). A store that does
 * not exist yet is an empty list, not created. `-q`: the ids alone, one per line, for scripts
 * (`agentctl ls -q | head -1`), as `docker ps -q` gives; `--json` still says everything.
 */
export async function runLs(options: GlobalOptions): Promise<void> {
  // No store yet → an empty list, and LevelDB is not even loaded; anything else — a store, a damaged
  // one, a file where the store should be — is for open() to read or say what is wrong.
  const runs: RunMeta[] = storeState(storeDir(options.store)) !== 'none'
    ? await withStore(options, { readOnly: true }, async (store) => {
      const all: RunMeta[] = [];
      for await (const meta of store.listRuns()) all.push(meta);
      return all;
    })
    : [];
  if (options.json) {
    out(printableJson(runs));
    return;
  }
  if (options.quiet) {
    for (const run of runs) out(run.id);
    return;
  }
  if (runs.length === 0) {
    out('No runs yet. Record one with: agentctl record --task "…"');
    return;
  }
  const width = outputWidth();
  // Cut in terminal cells (a wide character takes two): its module is loaded only for a width.
  const fit = width === undefined ? undefined : { width, clip: (await import('../../tui/state/text.js')).clipLine };
  for (const line of runListLines(runs, fit)) out(line);
}
