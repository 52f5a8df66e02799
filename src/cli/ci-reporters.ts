/**
 * The reporters of `agentctl ci` (`--reporter NAME[:file]`, repeatable): which ones, where each
 * writes — checked before the corpus runs (report-files.ts) — and writing them out once it has.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { writeFailure } from '../core/fs-failure.js';
import { quotedInput } from '../core/terminal-text.js';
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

/** Reporters that can share standard output: lines of text, and the annotations GitHub reads from among them. */
const LINE_REPORTERS: readonly ReporterName[] = ['text', 'github'];

/**
 * `--reporter NAME[:file]`, repeatable (`NAME:-` is standard output); text by default, and github
 * too under GitHub Actions — unless a json or junit document has standard output, which annotations
 * would break. Two reporters writing the same place are refused, as neither could be read.
 */
export function parseReporters(given: readonly string[], options: GlobalOptions, env: NodeJS.ProcessEnv): ReporterTarget[] {
  const targets = given.map((value): ReporterTarget => {
    const colon = value.indexOf(':');
    const name = colon < 0 ? value : value.slice(0, colon);
    const file = colon < 0 || value.slice(colon + 1) === '-' ? undefined : value.slice(colon + 1);
    if (!(REPORTERS as readonly string[]).includes(name)) throw new UsageError(`unknown reporter '${quotedInput(name)}': use ${REPORTERS.join(', ')} (optionally NAME:file)`);
    if (file === '') throw new UsageError(`--reporter ${name}: no file after ':'`);
    return { name: name as ReporterName, ...(file === undefined ? {} : { file }) };
  });
  if (!targets.some((t) => t.file === undefined && t.name !== 'github') && !options.json) targets.unshift({ name: 'text' });
  if (options.json && !targets.some((t) => t.name === 'json')) targets.push({ name: 'json' });
  const documentOnStdout = targets.some((t) => t.file === undefined && !LINE_REPORTERS.includes(t.name));
  if (env.GITHUB_ACTIONS === 'true' && !documentOnStdout && !targets.some((t) => t.name === 'github')) targets.push({ name: 'github' });
  checkDestinations(targets, env);
  return targets;
}

/** Standard output taken by one document (or by text and github lines), and no file written twice. */
function checkDestinations(targets: readonly ReporterTarget[], env: NodeJS.ProcessEnv): void {
  const onStdout = targets.filter((t) => t.file === undefined).map((t) => t.name);
  if (onStdout.length > 1 && !onStdout.every((name) => LINE_REPORTERS.includes(name))) {
    throw new UsageError(`--reporter ${onStdout.join(' and --reporter ')} cannot share standard output: what they wrote together could not be read`, {
      hint: `give all but one a file, e.g. --reporter ${onStdout.find((name) => !LINE_REPORTERS.includes(name)) ?? onStdout[0] ?? 'json'}:report`,
    });
  }
  const writers = new Map<string, string>();
  for (const target of targets) {
    const files = [target.file, summaryFileOf(target, env)].filter((file) => file !== undefined);
    for (const file of files) {
      const key = resolve(file);
      const before = writers.get(key);
      if (before !== undefined) {
        throw new UsageError(`--reporter ${before} and --reporter ${target.name} both write ${quotedInput(file)}: one would overwrite the other`, { hint: 'give each reporter its own file' });
      }
      writers.set(key, target.name);
    }
  }
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
