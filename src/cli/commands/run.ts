/**
 * `agentctl run --record <name|file> | --replay <run|file> | --tape <name|file> [--mode m] -- <command…>`:
 * any program, in any language, recorded or replayed with no change to it (docs/run.md). The proxy
 * (src/proxy: the same server and modes as `agentctl proxy`) listens on 127.0.0.1, a free port;
 * the command runs with OPENAI_BASE_URL and ANTHROPIC_BASE_URL pointing at it, and AGENTCTL_MCP_LINK
 * at the run's MCP link (the `agentctl mcp` wrappers it starts put its MCP traffic on the same tape),
 * and AGENTCTL_MCP_URL_<NAME> at the proxy's /mcp/<name> for each streamable HTTP server of `--mcp-url`,
 * its standard streams its own; when it ends, the proxy stops, one line on standard error says what was recorded or
 * served, and agentctl exits with the command's code — or 7 when a replay diverged (8 when it only
 * ran past the end of the tape), so one line in any CI fails when the agent no longer does what the
 * tape recorded.
 */
import { UsageError } from '../../core/errors.js';
import { printableJson, printableLine } from '../../core/terminal-text.js';
import { checkMode, effectiveMode, type TapeMode } from '../../core/tape-modes.js';
import { keyRedactor } from '../../library/key-redactor.js';
import { mcpBroker } from '../../library/mcp-broker.js';
import { publishRunLink } from '../../mcp/run-link.js';
import { MAX_RECORDED_REQUEST } from '../../llm/transport/http-reply.js';
import { allowedHosts } from '../../proxy/admission.js';
import { parseUpstream } from '../../proxy/forward.js';
import { openMode, type ProxyMode } from '../../proxy/modes.js';
import type { Upstream } from '../../proxy/routes.js';
import { ProxyServer } from '../../proxy/server.js';
import { watchUpstreams } from '../../proxy/upstream-failures.js';
import { commandProblem, DENIED_EXIT_CODE, NOT_FOUND_EXIT_CODE, runChild, shellExitCode, type ChildExit } from '../child-command.js';
import { lowerHelperThreads } from '../helper-threads.js';
import { note, type GlobalOptions } from '../io.js';
import { storeDir } from '../store-dir.js';
import { mcpJson } from './run-mcp-summary.js';
import { mcpUrlMounts, parseMcpUrls, type McpUrl } from './run-mcp-urls.js';
import { runSummaryLine, runExitCode } from './run-summary.js';

export interface RunCommandOptions extends GlobalOptions {
  record?: string;
  replay?: string;
  tape?: string;
  mode?: string;
  upstream?: string;
  strict?: boolean;
  /** `--mcp-url <name>=<url>`, repeatable: streamable HTTP MCP servers served on the run's proxy. */
  mcpUrl?: string[];
}

/** Where calls go when nothing says otherwise. */
const OPENAI_DEFAULT = 'https://api.openai.com/v1';
const ANTHROPIC_DEFAULT = 'https://api.anthropic.com';
/** The key a replayed command is given when it has none: SDKs refuse to start without one, and the proxy needs none. */
const PLACEHOLDER_KEY = 'agentctl-replay-placeholder-key';
/** How long requests still in flight when the command has ended (its children's) may take. */
const GRACE_MS = 5_000;
const HOST = '127.0.0.1';

interface Plan {
  mode: TapeMode;
  tape: string;
  openai: Upstream;
  anthropic: Upstream;
  strict: boolean;
  mcpUrls: McpUrl[];
}

export async function runRun(command: readonly string[], options: RunCommandOptions): Promise<void> {
  const plan = checkRunOptions(command, options, process.env);
  const problem = commandProblem(command[0] as string, process.env);
  if (problem !== undefined) {
    note(`agentctl: ${printableLine(command[0] as string)}: ${problem.message}`);
    process.exitCode = problem.code;
    return;
  }
  const say = (line: string): void => {
    if (!options.quiet) note(`agentctl run: ${printableLine(line)}`);
  };
  const server = await ProxyServer.listen(HOST, 0, { maxBody: MAX_RECORDED_REQUEST, hosts: allowedHosts(HOST, []), note: say });
  const self = new URL(`http://${HOST}:${server.port}/v1`);
  let mode: ProxyMode;
  try {
    mode = await openMode({
      mode: plan.mode,
      store: storeDir(options.store),
      tape: plan.tape,
      upstream: plan.openai.url,
      apiKey: plan.openai.apiKey,
      anthropic: plan.anthropic,
      strict: plan.strict,
      self,
      note: say,
    });
  } catch (error) {
    await server.close(0);
    throw error;
  }
  if (mode.runId !== null) lowerHelperThreads();
  const watched = watchUpstreams(mode, [plan.openai, plan.anthropic]);
  // `agentctl mcp` wrappers the command starts join the run here: their traffic goes on its tape.
  const broker = mcpBroker(mode.mcp);
  server.mount(broker);
  // Streamable HTTP servers of `--mcp-url`: at /mcp/<name> on this proxy, their sessions on the run's tape.
  const mcpUrls = mcpUrlMounts(plan.mcpUrls, mode.mcp, keyRedactor(mode.mcp.redact), say);
  server.mount(mcpUrls);
  server.serve(watched.handler);
  // The link goes in AGENTCTL_MCP_LINK and on PATH: most MCP clients start a server with a clean environment.
  const link = await publishRunLink(`${self.origin}${broker.path}`);
  let exit: ChildExit;
  try {
    exit = await runChild(command, link.env({ ...commandEnv(process.env, self, mode.mode === 'replay'), ...mcpUrls.env(self.origin) }));
  } catch (error) {
    // Found on PATH a moment ago, yet it could not be started: a shell's 126 when it may not be executed, else 127.
    exit = { code: (error as NodeJS.ErrnoException).code === 'EACCES' ? DENIED_EXIT_CODE : NOT_FOUND_EXIT_CODE, signal: null };
    note(`agentctl: ${printableLine(command[0] as string)}: ${printableLine((error as Error).message)}`);
  } finally {
    await link.remove();
  }
  // Sessions the command left open end now, what is under way written, before the tape is finished.
  await mcpUrls.close();
  const { cut } = await server.close(GRACE_MS);
  if (cut) say('requests still in flight when the command ended were cut off');
  const summary = await mode.finish(server.requests);
  const mcp = mode.mcp.summary();
  const commandExit = shellExitCode(exit);
  const exitCode = runExitCode(summary, exit, commandExit, mcp);
  if (options.json) {
    note(printableJson({ ...summary, mcp: mcpJson(mcp), tape: plan.tape, upstreamFailures: server.failed, cutOff: cut, commandExit, exitCode }));
  } else if (!options.quiet || exitCode !== commandExit) {
    const failures = { count: server.failed, upstreams: watched.unreachable() };
    note(`agentctl run: ${printableLine(runSummaryLine(summary, plan.tape, { commandExit, exitCode }, failures, mcp))}`);
  }
  process.exitCode = exitCode;
}

/** The mode, tape and upstreams from the flags and the environment; every bad combination is a one-line usage error. */
export function checkRunOptions(command: readonly string[], options: RunCommandOptions, env: NodeJS.ProcessEnv): Plan {
  const given = (['record', 'replay', 'tape'] as const).filter((flag) => options[flag] !== undefined);
  if (given.length === 0) throw new UsageError('say what to do with the tape: --record <name|file>, --replay <run|file> or --tape <name|file>', { hint: USAGE });
  if (given.length > 1) throw new UsageError(`${given.map((flag) => `--${flag}`).join(' and ')} do not go together`, { hint: 'one tape per run: --tape <name|file> --mode <mode> picks what happens to it' });
  const flag = given[0] as 'record' | 'replay' | 'tape';
  if (options.mode !== undefined && flag !== 'tape') throw new UsageError(`--mode goes with --tape, not --${flag}`);
  const mode: TapeMode = flag === 'tape' ? (options.mode === undefined ? effectiveMode('replay-or-record', env) : checkMode(options.mode, '--mode')) : flag;
  if (command.length === 0 || command[0] === '') throw new UsageError('no command to run: give it after --', { hint: USAGE });
  if (options.strict !== undefined && mode !== 'replay' && mode !== 'replay-or-record') throw new UsageError(`--strict/--no-strict apply to a replay, not ${mode} mode`);
  if (options.upstream !== undefined && mode === 'replay') {
    throw new UsageError('a replay sends nothing upstream: drop --upstream', { hint: 'to send what the tape has no answer for upstream: --tape <run|file> --mode new-episodes' });
  }
  const openai = options.upstream === undefined ? fromEnv(env, 'OPENAI_BASE_URL', OPENAI_DEFAULT) : parseUpstream(options.upstream);
  return {
    mode,
    tape: options[flag] as string,
    openai: { url: openai, apiKey: nonEmpty(env['OPENAI_API_KEY']) },
    anthropic: { url: fromEnv(env, 'ANTHROPIC_BASE_URL', ANTHROPIC_DEFAULT), apiKey: nonEmpty(env['ANTHROPIC_API_KEY']) },
    strict: options.strict ?? true,
    mcpUrls: parseMcpUrls(options.mcpUrl ?? []),
  };
}

const USAGE = 'agentctl run --record <name|file> | --replay <run|file> | --tape <name|file> [--mode <mode>] -- <command> [args…]';

function fromEnv(env: NodeJS.ProcessEnv, name: string, fallback: string): URL {
  const value = nonEmpty(env[name]);
  return parseUpstream(value ?? fallback, `$${name}`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The command's environment: the user's, with both SDKs' base URLs on the proxy (the Anthropic SDK
 * appends `/v1/messages` to a base URL without `/v1`), and in a replay a placeholder for a key that
 * is not set. The user's own keys are passed on unchanged; the proxy drops what clients send and
 * sets the upstream's key itself.
 */
export function commandEnv(env: NodeJS.ProcessEnv, self: URL, replaying: boolean): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, OPENAI_BASE_URL: self.href.replace(/\/$/, ''), ANTHROPIC_BASE_URL: self.origin };
  if (replaying) {
    for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY']) if (nonEmpty(out[name]) === undefined) out[name] = PLACEHOLDER_KEY;
  }
  return out;
}
