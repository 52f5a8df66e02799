/**
 * `agentctl analyze <files|dirs|runs>...`: what the guardrails would have decided over recorded runs
 * — any agent's: the library's, the proxy's, `agentctl run`'s, the built-in loop's — and at which
 * call they would have stopped each run; then the corpus sentence (docs/guardrails.md, "Any agent:
 * what the guardrails would have decided"). `--set` and `--config` change the settings an analysis
 * reads (replay/analysis-overrides.ts). Exit 0 · 2 usage · 9 an invalid tape (nothing printed but its
 * `agentctl:` line) · 10 a path or run that does not exist.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkConfig, readConfigJson } from '../../agent/config-file.js';
import type { RunEvent } from '../../core/events.js';
import { TapeFormatError, UsageError } from '../../core/errors.js';
import { recordedBy, type RunMeta } from '../../core/run-meta.js';
import { printableJson, printableLine } from '../../core/terminal-text.js';
import { analysisOptions } from '../../replay/analysis-overrides.js';
import { corpusSentence, corpusTotals, runSentence, summarise, type AnalysisSummary } from '../../replay/analysis-summary.js';
import { findTapes } from '../../replay/corpus.js';
import { analyseRun, type AnalysisOptions } from '../../replay/guardrail-analysis.js';
import { openTapeSource, sourceBatches, type TapeSource } from '../../replay/tape-source.js';
import { isTapePath } from '../../tape/tape-path.js';
import type { TapeStore } from '../../tape/tape-store.js';
import { out, type GlobalOptions } from '../io.js';
import { openStore, storeDir } from '../store-dir.js';
import { checkedTapes } from '../tape-cache.js';

export interface AnalyzeOptions extends GlobalOptions {
  set?: string[];
  config?: string;
}

interface Analysed {
  label: string;
  meta: RunMeta;
  summary: AnalysisSummary;
  config: ReturnType<typeof analyseRun>['config'];
}

export async function runAnalyze(refs: readonly string[], options: AnalyzeOptions): Promise<void> {
  if (refs.length === 0) throw new UsageError('no runs given: agentctl analyze <files|dirs|runs>...', { hint: 'e.g. agentctl analyze tapes/' });
  if (refs.includes('')) throw new UsageError('an empty path: give a tape file, a directory of tapes or a run', { hint: 'for the working directory, say so: agentctl analyze .' });
  const file = options.config === undefined ? undefined : await configFile(options.config);
  const settings = analysisOptions(options.set ?? [], file);
  let store: TapeStore | undefined;
  const analysed: Analysed[] = [];
  // Each tape file (by its absolute path, as ci counts them) and each run in the store once, however
  // many arguments name it: a run counted twice would be two runs in the corpus sentence.
  const seen = new Set<string>();
  try {
    const openedStore = async (): Promise<TapeStore> => (store ??= await openStore(storeDir(options.store), { readOnly: true }));
    for (const ref of refs) {
      // A directory is a corpus of tape files, as ci reads one; anything else a tape file or a run.
      const paths = isDirectory(ref) ? (await findTapes([ref])).map((tape) => tape.relativePath) : [ref];
      if (paths.length === 0) throw new UsageError(`no tapes found in ${ref}`, { hint: 'analyze reads *.tape.jsonl and *.tape.jsonl.gz files, and runs in the store' });
      for (const path of paths) {
        const file = isTapePath(path) ? `file ${resolve(path)}` : undefined;
        if (file !== undefined && seen.has(file)) continue;
        const source = await openTapeSource(path, openedStore, checkedTapes());
        const key = file ?? `run ${source.meta.id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        analysed.push(await analyse(source, settings));
      }
    }
  } finally {
    await store?.close();
  }
  const totals = corpusTotals(analysed.map((a) => a.summary));
  const sentence = corpusSentence(totals);
  if (options.json === true) {
    for (const a of analysed) out(printableJson(runJson(a)));
    out(printableJson({ type: 'summary', ...totals, sentence }));
    return;
  }
  if (options.quiet !== true) for (const a of analysed) out(printableLine(`${a.label}: ${runSentence(a.summary)}`));
  out(printableLine(sentence));
}

/** A config file's fields as written, checked as every config file is. */
async function configFile(path: string): Promise<unknown> {
  const json = await readConfigJson(resolve(path), true);
  await checkConfig(json, path);
  return json;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function analyse(source: TapeSource, settings: AnalysisOptions): Promise<Analysed> {
  const events: RunEvent[] = [];
  for await (const batch of sourceBatches(source)) for (const event of batch) events.push(event);
  const label = source.label === source.meta.id && source.meta.name !== undefined ? source.meta.name : source.label;
  try {
    const analysis = analyseRun(source.meta, events, settings);
    return { label, meta: source.meta, summary: summarise(analysis, source.meta), config: analysis.config };
  } catch (error) {
    // What is wrong with the run's own data: named by its tape.
    if (error instanceof TapeFormatError && error.file === undefined) throw new TapeFormatError(error.detail, { file: source.label });
    throw error;
  }
}

function runJson(a: Analysed): Record<string, unknown> {
  return {
    type: 'analysis',
    tape: a.label,
    runId: a.meta.id,
    ...(a.meta.name === undefined ? {} : { name: a.meta.name }),
    recordedBy: recordedBy(a.meta),
    ...a.summary,
    sentence: runSentence(a.summary),
    config: a.config,
  };
}
