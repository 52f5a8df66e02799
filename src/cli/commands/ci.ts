/**
 * `agentctl ci <files|dirs>...`: replay a corpus of golden tapes strictly and offline, in this
 * process, and fail the build on drift — or, with `--set`, report what a guardrail change would do to
 * every recorded run. Exit 0 all passed · 7 a tape drifted, was exhausted or failed · 9 a tape is
 * invalid (and none failed otherwise) · 2 usage (no tapes, bad --shard…) · 10 a path does not exist.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { configDirOf, loadConfigFile } from '../../agent/config-file.js';
import { applyOverrides, parseConfig } from '../../agent/load-config.js';
import { UsageError } from '../../core/errors.js';
import { writeFailure } from '../../core/fs-failure.js';
import { printableLine } from '../../core/terminal-text.js';
import { isFailure, runCi } from '../../replay/ci-run.js';
import { findTapes, inShard, parseShard } from '../../replay/corpus.js';
import { out, stdoutIsTerminal, writeOut, type GlobalOptions } from '../io.js';
import { checkedTapes } from '../tape-cache.js';
import { githubAnnotations, githubSummary } from '../render/ci/github.js';
import { jsonReport } from '../render/ci/json.js';
import { junitReport } from '../render/ci/junit.js';
import { exitCodeOf, type CiReport } from '../render/ci/report.js';
import { progressLine, textReport } from '../render/ci/text.js';

export interface CiCommandOptions extends GlobalOptions {
  reporter?: string[];
  shard?: string;
  concurrency?: string;
  update?: boolean | string;
  set?: string[];
  config?: string;
  maxFailures?: string;
  list?: boolean;
  failOnChange?: boolean;
}

const REPORTERS = ['text', 'json', 'junit', 'github'] as const;
type ReporterName = (typeof REPORTERS)[number];
interface ReporterTarget {
  name: ReporterName;
  /** Absent: standard output. */
  file?: string;
}

export async function runCiCommand(paths: string[], options: CiCommandOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const started = performance.now();
  const reporters = parseReporters(options, env);
  const shard = options.shard === undefined ? null : parseShard(options.shard);
  const concurrency = options.concurrency === undefined ? availableParallelism() : positiveInteger('--concurrency', options.concurrency);
  const maxFailures = options.maxFailures === undefined ? undefined : positiveInteger('--max-failures', options.maxFailures);
  const overrides = options.set ?? [];
  const update = updateMode(options, env, overrides);
  // A bad --set is a usage error once, not an error on every tape.
  if (overrides.length > 0) applyOverrides(parseConfig({}, 'defaults'), overrides);
  const config = options.config === undefined ? undefined : await loadConfigFile(resolve(options.config), true);

  const corpus = await findTapes(paths);
  if (corpus.length === 0) {
    throw new UsageError(`no tapes found in ${paths.join(', ')}`, { hint: 'ci replays *.tape.jsonl and *.tape.jsonl.gz files; export runs with agentctl export <run> -o tapes/<name>.tape.jsonl' });
  }
  const tapes = inShard(corpus, shard ?? undefined);
  if (options.list) {
    // A file's name is anyone's text: shown with its control characters as escapes.
    for (const tape of tapes) out(printableLine(tape.relativePath));
    return;
  }

  const progress = reporters.some((r) => r.name === 'text' && r.file === undefined) && stdoutIsTerminal() && !options.quiet;
  let failed = 0;
  let lastDraw = 0;
  const run = await runCi(tapes, {
    concurrency,
    ...(maxFailures === undefined ? {} : { maxFailures }),
    ...(config === undefined ? {} : { config, configDir: configDirOf(options.config as string) }),
    ...(overrides.length > 0 ? { overrides } : {}),
    ...(update ? { update: { at: new Date().toISOString(), note: updateNote(options) } } : {}),
    failOnChange: options.failOnChange ?? false,
    checked: checkedTapes(),
    onResult: (result, done, total) => {
      if (isFailure(result, options.failOnChange)) failed++;
      const now = performance.now();
      if (progress && (now - lastDraw > 100 || done === total)) {
        lastDraw = now;
        writeOut(`\r\u001b[K${progressLine(done, total, failed)}`);
      }
    },
  });
  if (progress) writeOut('\r\u001b[K');

  const report: CiReport = {
    mode: overrides.length > 0 ? 'what-if' : 'check',
    results: run.results,
    skipped: run.skipped,
    shard,
    failOnChange: options.failOnChange ?? false,
    durationMs: performance.now() - started,
    exitCode: 0,
    overrides,
  };
  report.exitCode = exitCodeOf(report);
  for (const reporter of reporters) await emit(reporter, report, env);
  process.exitCode = report.exitCode;
}

async function emit(reporter: ReporterTarget, report: CiReport, env: NodeJS.ProcessEnv): Promise<void> {
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
      const summaryFile = env.GITHUB_STEP_SUMMARY;
      if (summaryFile !== undefined && summaryFile !== '') await write(summaryFile, githubSummary(report), true);
      break;
    }
  }
  if (reporter.file === undefined) writeOut(text);
  else await write(reporter.file, text, false);
}

async function write(file: string, text: string, append: boolean): Promise<void> {
  try {
    await (append ? appendFile(file, text) : writeFile(file, text));
  } catch (error) {
    throw writeFailure(file, error);
  }
}

/** `--reporter NAME[:file]`, repeatable; text by default, and github too under GitHub Actions. */
function parseReporters(options: CiCommandOptions, env: NodeJS.ProcessEnv): ReporterTarget[] {
  const given = options.reporter ?? [];
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

function updateMode(options: CiCommandOptions, env: NodeJS.ProcessEnv, overrides: readonly string[]): boolean {
  if (options.update === undefined || options.update === false) return false;
  if (options.update !== true && options.update !== 'force') {
    throw new UsageError(`--update takes no value or =force, got '${options.update}'`, { hint: 'put --update after the paths: agentctl ci tapes/ --update' });
  }
  if (overrides.length > 0) throw new UsageError('--update cannot be used with --set: a what-if never rewrites tapes', { hint: 'to change the tapes for good, replay them with --config <file> --update' });
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI !== 'false';
  if (ci && options.update !== 'force') {
    throw new UsageError('--update is refused under CI: a build must never bless its own drift', { hint: 'update tapes on your machine and commit them; --update=force overrides this' });
  }
  return true;
}

function updateNote(options: CiCommandOptions): string {
  return options.config === undefined ? 'updated by agentctl ci --update' : `updated by agentctl ci --update --config ${options.config}`;
}

function positiveInteger(flag: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} must be a whole number of at least 1, got '${value}'`);
  return Number(value);
}
