/**
 * `agentctl diff <a> <b>`: compare two runs or tape files (any mix) step by step, reading both
 * forward together so memory stays at one step per side. Text: a step log with identical steps
 * collapsed and the first difference side by side; `--json`: one `step` object per step, then a
 * `summary`. A difference is a result, not a failure: exit 0 either way, unless `--exit-code`
 * asks for 7 when the runs differ (like `git diff --exit-code`). Ids the provider made up are
 * compared by position, not text (replay/id-labels.ts); the step summaries keep them as recorded.
 */
import { recordedBy } from '../../core/run-meta.js';
import { printableJson } from '../../core/terminal-text.js';
import { openTapeSource } from '../../replay/tape-source.js';
import { checkedTapes } from '../tape-cache.js';
import { diffRuns, type RunDiffSummary } from '../../replay/run-diff.js';
import type { TapeStore } from '../../tape/tape-store.js';
import { out, type GlobalOptions } from '../io.js';
import { DiffTextReport, diffHeader, summaryLine } from '../render/diff-report.js';
import { openStore, storeDir } from '../store-dir.js';

export interface DiffCommandOptions extends GlobalOptions {
  exitCode?: boolean;
}

/** Exit code when the runs differ and `--exit-code` is given (README: 7 = they differ). */
export const DIFFERENT_EXIT_CODE = 7;

export async function runDiff(refA: string, refB: string, options: DiffCommandOptions): Promise<void> {
  // Opened only when a side is a run id; shared, since LevelDB allows one handle per process.
  let store: Promise<TapeStore> | undefined;
  const storeOnce = (): Promise<TapeStore> => (store ??= openStore(storeDir(options.store), { readOnly: true }));
  try {
    const checked = checkedTapes();
    const a = await openTapeSource(refA, storeOnce, checked);
    const b = await openTapeSource(refB, storeOnce, checked);
    const steps = diffRuns(a.events(), b.events(), [recordedBy(a.meta) !== 'cli', recordedBy(b.meta) !== 'cli']);
    const text = options.json || options.quiet ? null : new DiffTextReport();
    if (text !== null) for (const line of diffHeader(a, b)) out(line);
    let summary: RunDiffSummary;
    for (;;) {
      const next = await steps.next();
      if (next.done) {
        summary = next.value;
        break;
      }
      if (options.json) out(printableJson({ type: 'step', ...next.value }));
      else if (text !== null) for (const line of text.step(next.value)) out(line);
    }
    const exitCode = options.exitCode && !summary.identical ? DIFFERENT_EXIT_CODE : 0;
    if (options.json) out(printableJson({ type: 'summary', ...summary, a: a.label, b: b.label, exitCode }));
    else if (text !== null) for (const line of text.end(summary)) out(line);
    else out(summaryLine(summary));
    process.exitCode = exitCode;
  } finally {
    if (store !== undefined) await (await store.catch(() => null))?.close();
  }
}
