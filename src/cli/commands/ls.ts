import { recordedBy, type RunMeta } from '../../core/run-meta.js';
import { printableJson } from '../../core/terminal-text.js';
import { storeState } from '../../tape/store-files.js';
import { clip, runOutcome, shortTime, table } from '../format.js';
import { out, type GlobalOptions } from '../io.js';
import { storeDir } from '../store-dir.js';
import { withStore } from '../with-store.js';

/** `agentctl ls`: runs newest first. A store that does not exist yet is an empty list, not created. */
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
  if (runs.length === 0) {
    out('No runs yet. Record one with: agentctl record --task "…"');
    return;
  }
  const rows = [['ID', 'CREATED', 'KIND', 'OUTCOME', 'STEPS', 'TASK']];
  for (const run of runs) {
    rows.push([
      run.id,
      shortTime(run.createdAt),
      recordedBy(run) === 'cli' ? run.kind : `${run.kind} (${recordedBy(run)})`,
      runOutcome(run),
      run.totals === undefined ? '-' : String(run.totals.steps),
      clip(run.name === undefined ? run.task : `[${run.name}] ${run.task}`, 60),
    ]);
  }
  for (const line of table(rows)) out(line);
}
