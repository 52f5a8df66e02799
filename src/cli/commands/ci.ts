/**
 * `agentctl ci <files|dirs>...`: replay a corpus of golden tapes strictly and offline, in this
 * process, and fail the build on drift — or, with `--set`, report what a guardrail change would do to
 * every recorded run. Exit 0 all passed · 7 a tape drifted, was exhausted or failed · 9 a tape is
 * invalid (and none failed otherwise) · 2 usage (no tapes, bad --shard, a report file that cannot be
 * written…) · 10 a path does not exist.
 */
import { availableParallelism } from 'node:os';
import { applyOverrides, parseConfig } from '../../agent/load-config.js';
import { UsageError } from '../../core/errors.js';
import { printableLine, quotedInput } from '../../core/terminal-text.js';
import { isFailure, runCi } from '../../replay/ci-run.js';
import { findTapes, inShard, matchingTapes, parseShard } from '../../replay/corpus.js';
import { checkReporterFiles, emit, parseReporters } from '../ci-reporters.js';
import { out, stdoutIsTerminal, writeOut, type GlobalOptions } from '../io.js';
import { checkedTapes } from '../tape-cache.js';
import { exitCodeOf, type CiReport } from '../render/ci/report.js';
import { progressLine } from '../render/ci/text.js';
import { usersConfig } from '../users-config.js';

export interface CiCommandOptions extends GlobalOptions {
  reporter?: string[];
  shard?: string;
  concurrency?: string;
  /** `-u`/`--update`: a plain flag, so that it never takes the path after it for a value. */
  update?: boolean;
  /** `--update=force`, as one word: `--update` under CI too. */
  'update=force'?: boolean;
  set?: string[];
  config?: string;
  configReplace?: boolean;
  filter?: string;
  /** `--bail`: true for the first failure, or the text after it (a number of failures, or a path it took). */
  bail?: boolean | string;
  /** The older spelling of `--bail n`. */
  maxFailures?: string;
  list?: boolean;
  failOnChange?: boolean;
}

export async function runCiCommand(given: readonly string[], options: CiCommandOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const started = performance.now();
  const { paths, bail } = pathsAndBail(given, options);
  const reporters = parseReporters(options.reporter ?? [], options, env);
  const shard = options.shard === undefined ? null : parseShard(options.shard);
  const concurrency = options.concurrency === undefined ? availableParallelism() : positiveInteger('--concurrency', options.concurrency);
  const overrides = options.set ?? [];
  const update = updateMode(options, env, overrides);
  // A bad --set is a usage error once, not an error on every tape.
  if (overrides.length > 0) applyOverrides(parseConfig({}, 'defaults'), overrides);
  const config = await usersConfig(options);

  const corpus = await findTapes(paths);
  if (corpus.length === 0) {
    throw new UsageError(`no tapes found in ${shownPaths(paths)}`, { hint: 'ci replays *.tape.jsonl and *.tape.jsonl.gz files; export runs with agentctl export <run> -o tapes/<name>.tape.jsonl' });
  }
  const chosen = options.filter === undefined ? corpus : matchingTapes(corpus, options.filter);
  if (chosen.length === 0) {
    throw new UsageError(`no tape's path matches --filter '${quotedInput(options.filter ?? '')}' (of ${corpus.length} in ${shownPaths(paths)})`, {
      hint: 'the pattern is a regular expression matched anywhere in a tape\'s path, e.g. -t login or -t \'^tapes/auth/\'',
    });
  }
  const tapes = inShard(chosen, shard ?? undefined);
  if (options.list) {
    // A file's name is anyone's text: shown with its control characters as escapes.
    for (const tape of tapes) out(printableLine(tape.relativePath));
    return;
  }
  // Where the reports go is known now: a file that cannot be written is said before the corpus runs.
  await checkReporterFiles(reporters, env);

  const progress = reporters.some((r) => r.name === 'text' && r.file === undefined) && stdoutIsTerminal() && !options.quiet;
  let failed = 0;
  let lastDraw = 0;
  const run = await runCi(tapes, {
    concurrency,
    ...(bail === undefined ? {} : { maxFailures: bail }),
    ...(config === undefined ? {} : { usersConfig: config }),
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

/** The paths as a message names them, each clipped: a pasted blob must not fill the terminal. */
const shownPaths = (paths: readonly string[]): string => paths.map((path) => quotedInput(path)).join(', ');

/** A word that reads as a number (`-1`, `1.5`, `2e3`): after --bail, a count, never a path. */
const NUMBER_LIKE = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/**
 * The paths, and after how many failures to stop (`--bail [n]`, or its older spelling
 * `--max-failures n`). `--bail` takes the word after it when that is no option, so in `ci --bail
 * tapes/` it has taken a path: a word that does not read as a number is given back to the paths,
 * and one that does must be a count (a path named `-1` is `./-1`).
 */
function pathsAndBail(given: readonly string[], options: CiCommandOptions): { paths: string[]; bail: number | undefined } {
  const paths = [...given];
  let bail: number | undefined;
  if (options.bail !== undefined && options.bail !== false) {
    if (options.bail === true || !NUMBER_LIKE.test(options.bail)) {
      if (typeof options.bail === 'string') paths.unshift(options.bail);
      bail = 1;
    } else {
      bail = positiveInteger('--bail', options.bail);
    }
  }
  if (options.maxFailures !== undefined) {
    if (bail !== undefined) throw new UsageError('--bail and --max-failures are one setting: give one of them');
    bail = positiveInteger('--max-failures', options.maxFailures);
  }
  if (paths.length === 0) throw new UsageError('no tapes given: agentctl ci <files|dirs>...', { hint: 'e.g. agentctl ci tapes/' });
  // Resolved, '' would be the working directory: a variable left empty must not replay all that is under it.
  if (paths.includes('')) throw new UsageError('an empty path: give a tape file or a directory of tapes', { hint: 'for the working directory, say so: agentctl ci .' });
  return { paths, bail };
}

function updateMode(options: CiCommandOptions, env: NodeJS.ProcessEnv, overrides: readonly string[]): boolean {
  const force = options['update=force'] === true;
  if (options.update !== true && !force) return false;
  if (overrides.length > 0) throw new UsageError('--update cannot be used with --set: a what-if never rewrites tapes', { hint: 'to change the tapes for good, replay them with --config <file> --update' });
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI !== 'false';
  if (ci && !force) {
    throw new UsageError('--update is refused under CI: a build must never bless its own drift', { hint: 'update tapes on your machine and commit them; --update=force overrides this' });
  }
  return true;
}

function updateNote(options: CiCommandOptions): string {
  if (options.config === undefined) return 'updated by agentctl ci --update';
  return `updated by agentctl ci --update --config ${options.config}${options.configReplace === true ? ' --config-replace' : ''}`;
}

function positiveInteger(flag: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} must be a whole number of at least 1, got '${quotedInput(value)}'`);
  if (!Number.isSafeInteger(Number(value))) throw new UsageError(`${flag} must be below 2^53, got '${quotedInput(value)}'`);
  return Number(value);
}
