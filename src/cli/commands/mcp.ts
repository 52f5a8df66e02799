/**
 * `agentctl mcp [--name <server>] [--record <name|file> | --replay <run|file> | --tape <name|file>]
 * -- <command> [args…]`: a stdio MCP server's command, wrapped, for any MCP client's config. Its
 * standard input and output are the client's MCP channel (src/mcp/stdio-wrapper.ts): the server's
 * traffic is recorded onto a tape, or served from one without starting the server (docs/mcp.md).
 * With `--url <url>` instead of a command: a local endpoint in front of a streamable HTTP server
 * (mcp-http.ts), serving until SIGINT or SIGTERM.
 *
 * The tape: the run that launched the agent when it finds one (`AGENTCTL_MCP_LINK`, or the link directory on PATH: mcp/run-link.ts) (`agentctl run`, a
 * library session's `mcpServer()`: the traffic lands on the run's tape beside its model calls, and
 * the tape flags here are ignored), else the one the flags name (a run in the store, or a tape file).
 * Standard output carries MCP messages only: everything agentctl says goes to standard error, as
 * `agentctl mcp: …` lines, and the summary when the client goes away is one of them.
 */
import { UsageError } from '../../core/errors.js';
import { printableJson, printableLine } from '../../core/terminal-text.js';
import { checkMode, effectiveMode, type TapeMode } from '../../core/tape-modes.js';
import { mcpServerNameSchema } from '../../core/tool-spec-schema.js';
import { keyRedactor } from '../../library/key-redactor.js';
import { localLink, mcpNotReproduced, recordedServers, type McpSummary } from '../../library/mcp-link.js';
import type { TapeSession } from '../../library/tape-options.js';
import { openTapeSession } from '../../library/tape-session.js';
import { endpointOf } from '../../mcp/http-upstream.js';
import type { McpLink } from '../../mcp/link.js';
import { remoteLink } from '../../mcp/remote-link.js';
import { findRunLink, MCP_LINK_ENV } from '../../mcp/run-link.js';
import { isTapePath } from '../../tape/tape-file.js';
import { note, type GlobalOptions } from '../io.js';
import { storeDir } from '../store-dir.js';
import { mcpJson, mcpParts } from './run-mcp-summary.js';
import { DIVERGED_EXIT_CODE } from './run-summary.js';
import { wrapStdio } from './mcp-stdio.js';
import { portOf, serveMcpUrl } from './mcp-http.js';

export interface McpCommandOptions extends GlobalOptions {
  name?: string;
  record?: string;
  replay?: string;
  tape?: string;
  mode?: string;
  strict?: boolean;
  allowSideEffects?: boolean;
  redact?: string[];
  /** A streamable HTTP server's URL: agentctl serves a local endpoint in front of it (mcp-http.ts) instead of wrapping a command. */
  url?: string;
  port?: string;
  host?: string;
}

/** Where the wrapper's traffic goes. */
export type McpTapePlan =
  | { kind: 'joined'; url: string; source: string; ignored: string[] }
  | { kind: 'own'; mode: TapeMode; tape: string };

export interface McpPlan {
  name: string;
  /** `--url`: the server reached by its URL (no command). */
  url?: string;
  command: string;
  args: string[];
  tape: McpTapePlan;
  strict: boolean | undefined;
}

const USAGE = 'agentctl mcp --name <server> --record <name|file> | --replay <run|file> | --tape <name|file> -- <command> [args…] | --url <url> [--port n]';
const TAPE_FLAGS = ['record', 'replay', 'tape'] as const;

export async function runMcp(command: readonly string[], options: McpCommandOptions): Promise<void> {
  const plan = checkMcpOptions(command, options, process.env);
  const say = (line: string): void => note(`agentctl mcp: ${printableLine(line)}`);
  if (plan.tape.kind === 'joined' && plan.tape.ignored.length > 0) say(`joined the run in ${plan.tape.source}: ${plan.tape.ignored.join(', ')} ignored`);
  const { link, session } = await openLink(plan, options);
  if (session?.mode === 'replay') {
    // A replay of a tape that holds none of this server's traffic answers nothing from it: most often a --name that is not the recorded one.
    const servers = recordedServers(session);
    if (!servers.includes(plan.name)) {
      say(servers.length === 0
        ? 'warning: the tape holds no MCP traffic: nothing can be answered from it'
        : `warning: the tape holds no traffic of MCP server '${plan.name}', only of ${servers.join(', ')}: --name names the server as it was recorded`);
    }
  }
  let code: number;
  try {
    const allow = options.allowSideEffects === true && !link.allowSideEffects;
    const served = allow ? { ...link, allowSideEffects: true } : link;
    if (plan.url !== undefined) {
      const where = { ...(options.host === undefined ? {} : { host: options.host }), ...(options.port === undefined ? {} : { port: options.port }) };
      await serveMcpUrl({ server: plan.name, url: plan.url, link: served, redact: keyRedactor(link.redact), note: say, ...where });
      code = 0;
    } else {
      code = await wrapStdio({
        server: plan.name,
        command: plan.command,
        args: plan.args,
        link: served,
        redact: keyRedactor(link.redact),
        env: serverEnv(process.env),
        note: say,
      });
    }
  } catch (error) {
    // The server could not be started (or the link failed): what was recorded still ends as a whole run.
    await session?.finish({ state: 'ERROR', reason: error instanceof Error ? error.message : String(error) }).catch(() => undefined);
    throw error;
  } finally {
    await link.close().catch(() => undefined);
  }
  if (session === undefined) {
    process.exitCode = code;
    return;
  }
  await session.finish({ reason: 'the MCP client went away' });
  const summary = localLink(session).summary();
  const why = mcpNotReproduced(summary);
  const exitCode = why === undefined ? code : DIVERGED_EXIT_CODE;
  if (options.json) note(printableJson({ server: plan.name, mode: summary.mode, tape: session.tape, ...mcpJson(summary), exitCode }));
  else if (!options.quiet || why !== undefined) say(summaryLine(summary, session.tape, why));
  process.exitCode = exitCode;
}

/** The plan from the flags and the environment; every bad combination is a one-line usage error. */
export function checkMcpOptions(command: readonly string[], options: McpCommandOptions, env: NodeJS.ProcessEnv): McpPlan {
  const [program, ...args] = command;
  if (options.url !== undefined) {
    if (program !== undefined) throw new UsageError('--url and a command after -- do not go together: the server is reached by its URL');
    endpointOf(options.url);
    portOf(options.port);
  } else if (options.port !== undefined || options.host !== undefined) {
    throw new UsageError('--port and --host go with --url');
  } else if (program === undefined || program === '') {
    throw new UsageError('no MCP server to run: give its command after --, or its URL with --url', { hint: USAGE });
  }
  const name = options.name ?? 'mcp';
  if (!mcpServerNameSchema.safeParse(name).success) throw new UsageError(`--name ${JSON.stringify(name)}: a server name is 1-48 of A-Z a-z 0-9 _ -`);
  const given = TAPE_FLAGS.filter((flag) => options[flag] !== undefined);
  const joined = findRunLink(env);
  if (joined !== undefined) {
    const ignored = [...given, ...(options.mode === undefined ? [] : ['mode']), ...(options.strict === undefined ? [] : ['strict'])].map((flag) => `--${flag}`);
    return { name, ...urlOf(options), command: program ?? '', args, tape: { kind: 'joined', url: joined.url, source: joined.source, ignored }, strict: undefined };
  }
  if (given.length === 0) throw new UsageError('say what to do with the tape: --record <name|file>, --replay <run|file> or --tape <name|file>', {
    hint: `${USAGE}; under agentctl run, the wrapper joins the run by itself (its PATH or $${MCP_LINK_ENV} names it)`,
  });
  if (given.length > 1) throw new UsageError(`${given.map((flag) => `--${flag}`).join(' and ')} do not go together`);
  const flag = given[0] as (typeof TAPE_FLAGS)[number];
  if (options.mode !== undefined && flag !== 'tape') throw new UsageError(`--mode goes with --tape, not --${flag}`);
  const mode: TapeMode = flag === 'tape' ? (options.mode === undefined ? effectiveMode('replay-or-record', env) : checkMode(options.mode, '--mode')) : flag;
  if (options.strict !== undefined && mode !== 'replay' && mode !== 'replay-or-record') throw new UsageError(`--strict/--no-strict apply to a replay, not ${mode} mode`);
  return { name, ...urlOf(options), command: program ?? '', args, tape: { kind: 'own', mode, tape: options[flag] as string }, strict: options.strict };
}

const urlOf = (options: McpCommandOptions): { url?: string } => (options.url === undefined ? {} : { url: options.url });

/** The link to the run that launched the agent, or to a session on the wrapper's own tape. */
async function openLink(plan: McpPlan, options: McpCommandOptions): Promise<{ link: McpLink; session?: TapeSession }> {
  if (plan.tape.kind === 'joined') return { link: await remoteLink(plan.tape.url, plan.tape.source) };
  const { mode, tape } = plan.tape;
  const session = await openTapeSession(
    {
      tape: isTapePath(tape) ? tape : { store: storeDir(options.store), run: tape },
      mode,
      task: `MCP server ${plan.name}`,
      ...(plan.strict === undefined ? {} : { strict: plan.strict }),
      ...(options.allowSideEffects === true ? { allowSideEffects: true } : {}),
      ...(options.redact === undefined ? {} : { redact: options.redact }),
    },
    { defaultMode: mode, source: 'mcp', environment: false, warn: (line) => note(`agentctl mcp: warning: ${printableLine(line)}`) },
  );
  return { link: localLink(session), session };
}

/** The server's environment: the wrapper's own, without the link (the server is not a wrapper). */
function serverEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  delete out[MCP_LINK_ENV];
  return out;
}

/** The wrapper's last line on its own tape. */
function summaryLine(summary: McpSummary, tape: string, why: string | undefined): string {
  const parts = why === undefined ? [] : [`diverged: ${why}`];
  parts.push(...mcpParts(summary, why));
  if (parts.length === 0) parts.push(summary.mode === 'record' ? 'recorded no MCP tool call' : 'no MCP tool call');
  return `${parts.join(', ')} (${tape})`;
}
