/**
 * The reporters of `agentctl ci` (`--reporter NAME[:file]`, repeatable): which ones, where each
 * writes — checked before the corpus runs (report-files.ts) — and writing them out once it has.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { UsageError } from '../core/errors.js';
import { writeFailure } from '../core/fs-failure.js';
import { writeOut, type GlobalOptions } from './io.js';
import { githubAnnotations, githubSummary } from './render/ci/github.js';
import { jsonReport } from './render/ci/json.js';
import { junitReport } from './render/ci/junit.js';
import type { CiReport } from './render/ci/report.js';
import { textReport } from './render/ci/text.js';
import { checkReportFile } from './report-files.js';

const REPORTERS = ['text', 'json', 'junit', 'github'] as const;
type ReporterName = (typeof REPORTERS)[number];
export interface ReporterTarget {
  name: ReporterName;
  /** Absent: standard output. */
  file?: string;
}

/** `--reporter NAME[:file]`, repeatable; text by default, and github too under GitHub Actions. */
export function parseReporters(given: readonly string[], options: GlobalOptions, env: NodeJS.ProcessEnv): ReporterTarget[] {
  const targets = given.map((value): ReporterTarget => {
    const colon = value.indexOf(':');
    const name = colon < 0 ? value : value.slice(0, colon);
    const file = colon < 0 ? undefined : value.slice(colon + 1);
    if (!(REPORTERS as readonly string[]).includes(name)) throw new UsageError(`unknown reporter '${name}': use ${REPORTERS.join(', ')} (optionally NAME:file)`);
    if (file === '') throw new UsageError(`--reporter ${name}: no file after ':'`);
    return { name: name as ReporterName, ...(file === undefined ? {} : { file }) };
  });
  if (!targets.some((t) => t.file === undefined && t.name !== 'github') && !options.json) targets.unshift({ name: 'text' });
  if (options.json && !targets.some((t) => t.name === 'json')) targets.push({ name: 'json' });
  if (env.GITHUB_ACTIONS === 'true' && !targets.some((t) => t.name === 'github')) targets.push({ name: 'github' });
  return targets;
}

/** Every file the reporters will write, checked now, before the corpus runs. */
export async function checkReporterFiles(targets: readonly ReporterTarget[], env: NodeJS.ProcessEnv): Promise<void> {
  for (const target of targets) {
    if (target.file !== undefined) await checkReportFile(target.file);
    const summary = summaryFileOf(target, env);
    if (summary !== undefined) await checkReportFile(summary);
  }
}

export async function emit(reporter: ReporterTarget, report: CiReport, env: NodeJS.ProcessEnv): Promise<void> {
  let text: string;
  switch (reporter.name) {
    case 'text':
      text = textReport(report);
      break;
    case 'json':
      text = jsonReport(report);
      break;
    case 'junit':
      text = junitReport(report, new Date().toISOString());
      break;
    case 'github': {
      text = githubAnnotations(report);
      const summary = summaryFileOf(reporter, env);
      if (summary !== undefined) await write(summary, githubSummary(report), true);
      break;
    }
  }
  if (reporter.file === undefined) writeOut(text);
  else await write(reporter.file, text, false);
}

/** The job summary file the github reporter appends to (`$GITHUB_STEP_SUMMARY`), when there is one. */
function summaryFileOf(reporter: ReporterTarget, env: NodeJS.ProcessEnv): string | undefined {
  const file = env.GITHUB_STEP_SUMMARY;
  return reporter.name === 'github' && file !== undefined && file !== '' ? file : undefined;
}

async function write(file: string, text: string, append: boolean): Promise<void> {
  try {
    await (append ? appendFile(file, text) : writeFile(file, text));
  } catch (error) {
    throw writeFailure(file, error);
  }
}
