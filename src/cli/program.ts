/**
 * Every command of agentctl, with its flags. Only commander is loaded here: each action imports its
 * command module when it runs, so `agentctl --help` and `agentctl ls` stay fast.
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { TAPE_MODES } from '../core/tape-modes.js';
import { writeOut, type GlobalOptions } from './io.js';
import { usageErrorsOf } from './usage-errors.js';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Options of the command merged with the program's common ones. */
function options<T>(command: Command): T & GlobalOptions {
  return command.optsWithGlobals<T & GlobalOptions>();
}

/** What a `<run>` argument may be (tape-path.ts, isTapePath). */
const RUN_OR_FILE = 'run id, unique id prefix, run name, or a tape file (any existing path but a directory, gzipped or not)';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function buildProgram(): Command {
  const program = new Command('agentctl')
    .description('Record LLM agent runs onto a tape and replay them deterministically.')
    .version(version(), '-V, --version')
    .option('--store <dir>', 'tape store directory (default: $AGENTCTL_STORE or ./.agentctl/store)')
    .option('--json', 'machine-readable output (NDJSON events, then a summary line)')
    .option('--tui', 'show the terminal UI (the default for record, replay and view on a terminal, outside CI)')
    .option('--no-tui', 'plain text output, one line per event')
    .option('-q, --quiet', 'print only the final result')
    // Every command's help lists these flags too: they work after any command.
    .configureHelp({ showGlobalOptions: true });
  // Help and version go out with everything else the CLI prints (io.ts), a closed pipe included.
  // Errors are printed by main.ts, in agentctl's form (usage-errors.ts), so commander writes none;
  // what it would still write to standard error is the help for `agentctl` alone, which is asked
  // for as much as `agentctl --help` is and goes where that goes.
  program.configureOutput({ writeOut, writeErr: writeOut, outputError: () => undefined });

  program
    .command('record')
    .description('run the agent live against a model and record the run onto the tape')
    .requiredOption('--task <text>', 'what the agent should do')
    .option('--config <file>', 'agent configuration file (optional when left at the default)', 'agentctl.config.json')
    .option('--model <name>', 'model name (overrides the config)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint (default: $OPENAI_BASE_URL, else OpenAI when $OPENAI_API_KEY is set)')
    .option('--workspace <dir>', 'directory the tools are confined to (default: a fresh temp dir)')
    .option('--stream', 'stream responses chunk by chunk')
    .option('--name <name>', 'a name for the run')
    .option('--seed <n>', 'seed for retry jitter (overrides the config)')
    .option('--interactive', 'after each turn, wait for the next message on standard input (end of input or /exit ends the session)')
    .option('--set <key=value>', 'override a config value, e.g. limits.maxSteps=10 (repeatable)', collect)
    .option('--redact <regex>', 'also redact text matching this pattern from the tape (repeatable)', collect)
    .action(async (_opts: unknown, command: Command) => {
      const { runRecord } = await import('./commands/record.js');
      await runRecord(options(command), command.getOptionValueSource('config') !== 'default');
    });

  program
    .command('replay')
    .description('replay a recorded run from the store or a tape file, and report where it departs from the tape')
    .argument('<run>', RUN_OR_FILE)
    .option('--patch <N=text|N=@file.json>', 'replace the model response at iteration N, 0-based (repeatable)', collect)
    .addOption(new Option('--fallback <mode>', 'when the tape runs out: stop (error) or go on against the live model').choices(['error', 'live']).default('error'))
    .addOption(new Option('--tools <mode>', 'tool outcomes from the tape, or run the tools again').choices(['recorded', 'live']).default('recorded'))
    .option('--allow-side-effects', 'let non-idempotent or mutating tools run on replay')
    .option('--set <key=value>', 'what-if: override a config value, e.g. guardrails.maxRepeatedToolSteps=5 (repeatable)', collect)
    .option('--config <file>', 'replay with the fields this config file sets laid over the recorded config (differences are unexpected)')
    .option('--config-replace', 'with --config: the file is the whole config, fields it leaves out at their defaults')
    .option('--strict', 'stop at the first unexpected divergence (exit 7)')
    .option('--speed <x>', 'replay stream timing at x times real speed (default: instant)')
    .option('--base-url <url>', 'endpoint for --fallback live (default: the recorded one)')
    .option('--model <name>', 'model for --fallback live (default: the recorded one)')
    .option('--workspace <dir>', 'directory for tools that run live (default: a fresh temp dir)')
    .option('--no-save', 'do not save the replay as a new run')
    .option('--redact <regex>', 'also redact text matching this pattern (tapes do not keep the recording\'s own patterns) (repeatable)', collect)
    .action(async (run: string, _opts: unknown, command: Command) => {
      const { runReplay } = await import('./commands/replay.js');
      await runReplay(run, options(command));
    });

  program
    .command('view')
    .description('show a recorded run or a tape file step by step in the terminal UI, without replaying it')
    .argument('<run>', RUN_OR_FILE)
    .action(async (run: string, _opts: unknown, command: Command) => {
      const { runView } = await import('./commands/view.js');
      await runView(run, options(command));
    });

  program
    .command('ls')
    .description('list recorded runs, newest first (with -q, their ids only, one per line)')
    .action(async (_opts: unknown, command: Command) => {
      const { runLs } = await import('./commands/ls.js');
      await runLs(options(command));
    });

  program
    .command('show')
    .description("show a run's (or a tape file's) metadata and event summary")
    .argument('<run>', RUN_OR_FILE)
    .action(async (run: string, _opts: unknown, command: Command) => {
      const { runShow } = await import('./commands/show.js');
      await runShow(run, options(command));
    });

  program
    .command('export')
    .description('export a run to a portable tape file (.tape.jsonl, or .tape.jsonl.gz)')
    .argument('<run>', RUN_OR_FILE)
    .option('-o, --output <file>', 'write to this file instead of standard output')
    .action(async (run: string, _opts: unknown, command: Command) => {
      const { runExport } = await import('./commands/export.js');
      await runExport(run, options<{ output?: string }>(command));
    });

  program
    .command('import')
    .description('import a tape file into the store')
    .argument('<file>', 'a .tape.jsonl or .tape.jsonl.gz file')
    .action(async (file: string, _opts: unknown, command: Command) => {
      const { runImport } = await import('./commands/import.js');
      await runImport(file, options(command));
    });

  program
    .command('rm')
    .description('delete a run and its events from the store')
    .argument('<run>', 'run id, unique id prefix, or run name')
    .action(async (run: string, _opts: unknown, command: Command) => {
      const { runRm } = await import('./commands/rm.js');
      await runRm(run, options(command));
    });

  program
    .command('diff')
    .description('compare two runs or tape files step by step and show where they first differ (timing ignored)')
    .argument('<a>', RUN_OR_FILE)
    .argument('<b>', RUN_OR_FILE)
    .option('--exit-code', 'exit 7 when the runs differ (default: exit 0 either way, like git diff)')
    .action(async (a: string, b: string, _opts: unknown, command: Command) => {
      const { runDiff } = await import('./commands/diff.js');
      await runDiff(a, b, options<{ exitCode?: boolean }>(command));
    });

  program
    .command('ci')
    .description('replay a corpus of golden tapes strictly and offline, and fail on drift; with --set, report what a change would do to every run')
    // Optional to commander, which would otherwise refuse `ci --bail tapes/` before --bail gives the path back: ci.ts asks for one itself.
    .argument('[paths...]', 'tape files, or directories searched for *.tape.jsonl[.gz]')
    .usage('[options] <paths...>')
    .option('--reporter <name[:file]>', 'text, json, junit or github, to standard output (or NAME:-) or a file (repeatable, one document per destination; default text, plus github under GitHub Actions)', collect)
    .option('-t, --filter <pattern>', 'run only the tapes whose path matches this regular expression (anywhere in it, RE2 syntax)')
    .option('--shard <i/n>', 'run only shard i of n (1-based; even shards, a stable split by tape path)')
    .option('--concurrency <n>', 'tapes replayed at once (default: the number of cores)')
    .option('-u, --update', 'rewrite drifted tapes from their replays (refused under CI unless given as --update=force)')
    .addOption(new Option('--update=force', '--update, under CI too').hideHelp())
    .option('--set <key=value>', 'what-if: replay every tape with this config override and report what changes (repeatable)', collect)
    .option('--config <file>', 'replay every tape with the fields this config file sets laid over its recorded config (your current agent)')
    .option('--config-replace', 'with --config: the file is the whole config, fields it leaves out at their defaults')
    .option('--fail-on-change', 'what-if: exit 7 when any tape changes')
    .option('--bail [n]', 'stop starting new tapes after the first failure, or after n')
    .addOption(new Option('--max-failures <n>', 'the same as --bail n').hideHelp())
    .option('--list', 'print the tapes this shard would run, and exit')
    .action(async (paths: string[], _opts: unknown, command: Command) => {
      const { runCiCommand } = await import('./commands/ci.js');
      await runCiCommand(paths, options(command));
    });

  program
    .command('analyze')
    .description('what the guardrails would have decided over recorded runs of any agent (library, proxy, run, or the built-in loop), and where they would have stopped each')
    .argument('[runs...]', 'tape files, directories searched for *.tape.jsonl[.gz], or runs in the store (id, id prefix or name)')
    .usage('[options] <runs...>')
    .option('--set <key=value>', 'a guardrails.* or limits.tokenBudget/costLimit setting, or guardrails.tools.<name>.idempotent|mutating=true|false (repeatable)', collect)
    .option('--config <file>', 'the guardrails, limits and prices of this agent config file')
    .action(async (runs: string[], _opts: unknown, command: Command) => {
      const { runAnalyze } = await import('./commands/analyze.js');
      await runAnalyze(runs, options(command));
    });

  program
    .command('proxy')
    .description('an OpenAI-compatible HTTP proxy: record an agent in any language through it, or serve it a recorded run (docs/proxy.md)')
    .option('--record <name|file>', 'record every call onto a new run with this name, or a tape file (*.jsonl[.gz], written when the proxy stops) (needs --upstream)')
    .option('--replay <run>', 'serve this run (id, id prefix, name, or a tape file: any existing path but a directory), with no upstream')
    .addOption(new Option('--mode <mode>', 'default: record with --record, replay with --replay; replay-or-record: replay the tape if it exists, else record onto it; new-episodes: serve what matches, the rest upstream, recorded as a new run (docs/proxy.md)').choices(TAPE_MODES))
    .option('--upstream <url>', 'the OpenAI-compatible API to forward to, e.g. https://api.openai.com/v1')
    .option('--port <n>', 'port to listen on (0: any free one)', '8377')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--api-key-env <name>', 'environment variable with the upstream API key (default: OPENAI_API_KEY)')
    .option('--max-body <size>', 'the largest request body answered, e.g. 4M or 512K (default and most when recording: 16M); a larger one gets an HTTP 413')
    .option('--allow-host <name>', 'a host name clients may reach the proxy by, besides IP addresses, localhost and --host (repeatable)', collect)
    .option('--strict', 'replay: answer a request the tape has no match for with an HTTP 400 (the default)')
    .option('--no-strict', 'replay: serve it the next recorded call instead, and report the divergence')
    .action(async (_opts: unknown, command: Command) => {
      const { runProxy } = await import('./commands/proxy.js');
      await runProxy(options(command));
    });

  program
    .command('run')
    .description('run a command (any language) with its OpenAI and Anthropic calls recorded onto a tape, or answered from one (docs/run.md)')
    .argument('[command...]', 'the command to run and its arguments, after --')
    .usage('--record <name|file> | --replay <run|file> | --tape <name|file> [--mode <mode>] [options] -- <command> [args...]')
    .option('--record <name|file>', 'record every call onto a new run with this name, or a tape file (*.jsonl[.gz], replaced when the command ends)')
    .option('--replay <run|file>', 'answer every call from this run (id, id prefix, name) or tape file, with nothing sent anywhere; exit 7 when the command departs from it')
    .option('--tape <name|file>', 'a run or tape file, used as --mode says')
    .addOption(new Option('--mode <mode>', 'with --tape: default replay-or-record (replay it if it exists, else record onto it), or $AGENTCTL_MODE when set').choices(TAPE_MODES))
    .option('--upstream <url>', 'where OpenAI calls go when recording (default: $OPENAI_BASE_URL, else https://api.openai.com/v1); Anthropic calls go to $ANTHROPIC_BASE_URL, else https://api.anthropic.com')
    .option('--strict', 'replay: answer a call the tape has no match for with an HTTP 400 (the default)')
    .option('--no-strict', 'replay: serve it the next recorded call instead (the divergence still exits 7)')
    .option('--mcp-url <name=url>', 'a streamable HTTP MCP server, served on the run\'s proxy at /mcp/<name> with its traffic on the tape; the command gets the address in $AGENTCTL_MCP_URL_<NAME> (repeatable)', collect)
    .action(async (command: string[], _opts: unknown, self: Command) => {
      const { runRun } = await import('./commands/run.js');
      await runRun(command, options(self));
    });

  program
    .command('mcp')
    .description("an MCP server's command wrapped for any MCP client: its traffic recorded onto a tape, or served from one without the server (docs/mcp.md)")
    .argument('[command...]', "the server's command and its arguments, after --")
    .usage('[--name <server>] --record <name|file> | --replay <run|file> | --tape <name|file> [options] -- <command> [args...] | --url <url> [--port n]')
    .option('--name <server>', "the server's name on the tape (1-48 of A-Z a-z 0-9 _ -); a replay finds its traffic by it", 'mcp')
    .option('--record <name|file>', 'record its traffic onto a new run with this name, or a tape file (*.jsonl[.gz], written when the client goes away)')
    .option('--replay <run|file>', 'answer the client from this run (id, id prefix, name) or tape file, without starting the server unless a call must run live; exit 7 when the client departs from it')
    .option('--tape <name|file>', 'a run or tape file, used as --mode says')
    .addOption(new Option('--mode <mode>', 'with --tape: default replay-or-record, or $AGENTCTL_MODE when set').choices(TAPE_MODES))
    .option('--strict', 'replay: a request the tape has no match for is a divergence that fails the replay (the default)')
    .option('--no-strict', 'replay: report such a request, without failing')
    .option('--allow-side-effects', 'replay: run tool calls the tape has no answer for even when the tool is not read-only')
    .option('--redact <regex>', 'also redact text matching this pattern from the tape (a replay needs the recording\'s) (repeatable)', collect)
    .option('--url <url>', 'a streamable HTTP server instead of a command: serve a local endpoint in front of it (http://127.0.0.1:<port>/mcp) until SIGINT/SIGTERM')
    .option('--port <n>', 'with --url: the local endpoint\'s port (default a free one, printed on standard error)')
    .option('--host <address>', 'with --url: the address the endpoint listens on (default 127.0.0.1)')
    .addHelpText('after', `
Standard output is the MCP channel: agentctl's own messages go to standard error.
Under \`agentctl run\` (or a library session's mcpServer()), the wrapper joins the run by itself
($AGENTCTL_MCP_LINK, or the private directory the run puts first on PATH, which clients that start
servers with a clean environment keep): the traffic goes onto the run's tape, beside its model calls,
and --record/--replay/--tape/--mode/--strict are ignored.`)
    .action(async (command: string[], _opts: unknown, self: Command) => {
      const { runMcp } = await import('./commands/mcp.js');
      await runMcp(command, options(self));
    });

  usageErrorsOf(program, 'agentctl');
  for (const command of program.commands) usageErrorsOf(command, `agentctl ${command.name()}`);
  return program;
}
