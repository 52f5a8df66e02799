/**
 * `agentctl proxy`: an OpenAI-compatible HTTP proxy, so an agent in any language is recorded and
 * replayed by pointing its base URL at it (docs/proxy.md). Modes (core/tape-modes.ts): record (to
 * --upstream, onto a new run or a tape file), replay (a run or tape file, no upstream),
 * replay-or-record (replay the tape if it exists, else record onto it), new-episodes (serve what
 * matches, the rest upstream, all of it recorded as a new run), passthrough (forward only).
 *
 * Prints one line to standard error when it is listening (with --json also `{ url, port, mode,
 * runId, tape }` on standard output), runs until SIGINT/SIGTERM, then stops accepting, lets the
 * requests in flight finish (up to 5 s), cuts the rest, ends the run (COMPLETED, 'proxy stopped') and
 * prints a summary. Exit 0; 2 for a bad flag, a bad or unreachable upstream, or a port in use.
 */
import { connect, isIP } from 'node:net';
import { UsageError } from '../../core/errors.js';
import { printableJson, printableLine } from '../../core/terminal-text.js';
import { MAX_RECORDED_REQUEST, sizeText } from '../../llm/transport/http-reply.js';
import { allowedHosts } from '../../proxy/admission.js';
import { parseUpstream } from '../../proxy/forward.js';
import { TAPE_MODES, type TapeMode } from '../../core/tape-modes.js';
import { openMode, tapeExists, type ProxyMode, type ProxySummary } from '../../proxy/modes.js';
import { ProxyServer } from '../../proxy/server.js';
import { shownUrl } from '../../proxy/upstream-failures.js';
import { isTapePath } from '../../tape/tape-file.js';
import { TAPE_LIMITS } from '../../tape/tape-limits.js';
import { lowerHelperThreads } from '../helper-threads.js';
import { note, out, type GlobalOptions } from '../io.js';
import { storeDir } from '../store-dir.js';
import { count } from '../../core/plural.js';

export interface ProxyCommandOptions extends GlobalOptions {
  record?: string;
  replay?: string;
  mode?: TapeMode;
  upstream?: string;
  port: string;
  host: string;
  apiKeyEnv?: string;
  maxBody?: string;
  allowHost?: string[];
  strict?: boolean;
}

/** The port users point their agents at unless they pick one. */
export const DEFAULT_PROXY_PORT = 8377;
/** How long a stopping proxy waits for the requests in flight. */
const GRACE_MS = 5_000;
const DEFAULT_KEY_ENV = 'OPENAI_API_KEY';

interface Checked {
  mode: TapeMode;
  /** The tape: --record's or --replay's value. */
  tape: string | undefined;
  upstream: URL | undefined;
  port: number;
  apiKey: string | undefined;
  keyEnv: string;
  maxBody: number;
  hosts: ReadonlySet<string>;
}

export async function runProxy(options: ProxyCommandOptions): Promise<void> {
  const checked = checkOptions(options, process.env);
  const say = (line: string): void => {
    if (!options.quiet) note(line);
  };
  // replay-or-record with a tape there is replays: offline, as a CI run with no upstream is.
  const live = checked.mode !== 'replay-or-record' || !(await tapeExists(checked.tape as string, storeDir(options.store)));
  if (checked.mode === 'replay-or-record' && live) checkLive(checked, options);
  if (checked.upstream !== undefined && live) {
    await checkReachable(checked.upstream);
    if (checked.apiKey === undefined) say(`agentctl proxy: $${checked.keyEnv} is not set; requests go upstream without an API key`);
  }
  const server = await ProxyServer.listen(options.host, checked.port, { maxBody: checked.maxBody, hosts: checked.hosts, note: say });
  const url = `http://${hostForUrl(options.host)}:${server.port}/v1`;
  let mode: ProxyMode;
  try {
    mode = await openMode({
      mode: checked.mode,
      store: storeDir(options.store),
      ...(checked.tape === undefined ? {} : { tape: checked.tape }),
      ...(checked.upstream === undefined ? {} : { upstream: checked.upstream }),
      apiKey: checked.apiKey,
      strict: options.strict ?? true,
      self: new URL(url),
      note: (line) => say(`agentctl proxy: ${line}`),
    });
  } catch (error) {
    await server.close(0);
    throw error;
  }
  // Recording: each upstream reply is synced before its client gets it; the serving thread goes first.
  if (mode.runId !== null) lowerHelperThreads();
  const stop = stopSignal();
  server.serve(mode);
  if (!isLoopback(options.host)) say(`agentctl proxy: warning: listening on ${options.host}, not only this machine; anyone who can reach it uses your upstream key`);
  say(`agentctl proxy: ${printableLine(banner(mode, checked, options))} — set OPENAI_BASE_URL=${url}`);
  if (options.json) out(printableJson({ url, port: server.port, mode: mode.mode, runId: mode.runId, tape: mode.tapeRun?.id ?? null }));

  const signal = await stop.requested;
  say(`agentctl proxy: ${signal}: stopping; requests in flight may finish (up to ${GRACE_MS / 1000} s)`);
  const { cut } = await server.close(GRACE_MS);
  if (cut) say('agentctl proxy: requests still in flight were cut off (recorded as far as their clients got)');
  const summary = await mode.finish(server.requests);
  stop.dispose();
  say(`agentctl proxy: stopped; ${summaryText(summary, server.failed, options.strict !== false)}`);
  if (options.json) out(printableJson({ stopped: true, ...summary, upstreamFailures: server.failed, cutOff: cut }));
}

/** The mode and its inputs from the flags; every bad combination is a one-line usage error. */
export function checkOptions(options: ProxyCommandOptions, env: NodeJS.ProcessEnv): Checked {
  if (!isHostName(options.host)) {
    throw new UsageError(`--host must be an IP address or a host name, got '${options.host}'`);
  }
  if (options.mode !== undefined && !(TAPE_MODES as readonly string[]).includes(options.mode)) {
    throw new UsageError(`--mode must be one of ${TAPE_MODES.join(', ')}, got '${options.mode}'`);
  }
  if (options.record !== undefined && options.replay !== undefined) {
    throw new UsageError('--record and --replay do not go together', { hint: 'to serve a run and record what is new: --mode new-episodes --replay <run> --upstream <url>' });
  }
  const mode = options.mode ?? (options.record !== undefined ? 'record' : options.replay !== undefined ? 'replay' : undefined);
  if (mode === undefined) {
    throw new UsageError('say what to proxy: --record <name> --upstream <url>, --replay <run|file>, or --mode passthrough --upstream <url>');
  }
  const upstream = options.upstream === undefined ? undefined : parseUpstream(options.upstream);
  if (mode === 'replay' && upstream !== undefined) {
    throw new UsageError('replay mode sends nothing upstream: drop --upstream', { hint: 'to send what the tape has no answer for upstream: --mode new-episodes' });
  }
  const tape = checkTape(mode, options);
  if (options.strict !== undefined && mode !== 'replay' && mode !== 'replay-or-record') {
    throw new UsageError(
      mode === 'new-episodes'
        ? '--strict/--no-strict do not go with new-episodes: it always matches by content, and what does not match goes upstream'
        : `--strict/--no-strict apply to replay (and replay-or-record) only, not ${mode}`,
    );
  }
  if (!/^\d+$/.test(options.port) || Number(options.port) > 65_535) throw new UsageError(`--port must be a port number (0 for any free one), got '${options.port}'`);
  const keyEnv = options.apiKeyEnv ?? DEFAULT_KEY_ENV;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyEnv)) throw new UsageError(`--api-key-env must be an environment variable name, got '${keyEnv}'`);
  const value = env[keyEnv];
  const apiKey = value === undefined || value === '' ? undefined : value;
  // replay-or-record needs an upstream only when it records: checked once the tape is known to be missing (runProxy).
  if (mode !== 'replay' && mode !== 'replay-or-record') checkLive({ mode, upstream, apiKey, keyEnv }, options);
  const maxBody = options.maxBody === undefined ? MAX_RECORDED_REQUEST : parseSize(options.maxBody, '--max-body');
  if (maxBody > MAX_RECORDED_REQUEST && mode !== 'replay' && mode !== 'passthrough') {
    throw new UsageError(`--max-body can be at most ${sizeText(MAX_RECORDED_REQUEST)} when recording, got '${options.maxBody ?? ''}'`, {
      hint: `a tape line holds ${sizeText(TAPE_LIMITS.maxLineBytes)}, and a recorded call's request shares its line with the reply`,
    });
  }
  for (const name of options.allowHost ?? []) {
    if (!isHostName(name)) throw new UsageError(`--allow-host must be a host name or an IP address, got '${name}'`);
  }
  return { mode, tape, upstream, port: Number(options.port), apiKey, keyEnv, maxBody, hosts: allowedHosts(options.host, options.allowHost ?? []) };
}

/** What a mode that sends calls upstream needs: an upstream, and the key --api-key-env names when it is given. */
function checkLive(checked: Pick<Checked, 'mode' | 'upstream' | 'apiKey' | 'keyEnv'>, options: ProxyCommandOptions): void {
  if (checked.upstream === undefined) throw new UsageError(`${checked.mode} mode needs --upstream <url>, the API to forward to (e.g. https://api.openai.com/v1)`);
  if (checked.apiKey === undefined && options.apiKeyEnv !== undefined) throw new UsageError(`$${checked.keyEnv} is not set (--api-key-env ${checked.keyEnv})`);
}

/** The tape a mode takes: --record <name|file> to record onto, --replay <run|file> to serve; replay-or-record either. */
function checkTape(mode: TapeMode, options: ProxyCommandOptions): string | undefined {
  switch (mode) {
    case 'record':
      if (options.replay !== undefined) throw new UsageError('--replay does not go with record mode');
      if (options.record === undefined) throw new UsageError('record mode needs a name for the run, or a tape file: --record <name|file>');
      return options.record;
    case 'replay':
    case 'new-episodes':
      if (options.record !== undefined) {
        throw new UsageError(
          mode === 'new-episodes'
            ? '--record does not go with new-episodes: its new run is linked to the tape\'s run (agentctl ls shows it), and a tape file is replaced'
            : '--record does not go with replay mode',
        );
      }
      if (options.replay === undefined) throw new UsageError(`${mode} mode needs a tape: --replay <run|file>`);
      return options.replay;
    case 'replay-or-record': {
      const tape = options.replay ?? options.record;
      if (tape === undefined) throw new UsageError('replay-or-record mode needs a tape: --replay <run|file> (recorded onto when it does not exist)');
      return tape;
    }
    case 'passthrough':
      if (options.record !== undefined || options.replay !== undefined) throw new UsageError(`--${options.record === undefined ? 'replay' : 'record'} does not go with passthrough mode`);
      return undefined;
  }
}

/** A size in bytes: a whole number, with `K` or `M` (KiB, MiB) after it or not. */
function parseSize(value: string, flag: string): number {
  const match = /^(\d+)\s*(k|kb|kib|m|mb|mib)?$/i.exec(value.trim());
  const size = match === null ? 0 : Number(match[1]) * (match[2] === undefined ? 1 : /^k/i.test(match[2]) ? 1024 : 1024 * 1024);
  if (!Number.isSafeInteger(size) || size < 1) throw new UsageError(`${flag} must be a size in bytes, like 4M or 512K, got '${value}'`);
  return size;
}

function isHostName(value: string): boolean {
  return isIP(value) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(value);
}

/** Fail early, and clearly, when nothing listens at the upstream's address. */
function checkReachable(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const fail = (reason: string): void => {
      socket.destroy();
      reject(new UsageError(`the upstream ${url.origin} is not reachable (${reason})`, { hint: 'start it first, or check --upstream' }));
    };
    socket.setTimeout(3_000, () => fail('no answer in 3 s'));
    socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
  });
}

/** SIGINT or SIGTERM asks for a graceful stop; a second one exits at once (the run stays incomplete). */
function stopSignal(): { requested: Promise<string>; dispose(): void } {
  let resolve: (signal: string) => void = () => undefined;
  const requested = new Promise<string>((r) => (resolve = r));
  let stopping = false;
  const on = (signal: NodeJS.Signals): void => {
    if (stopping) {
      note(`agentctl proxy: ${signal} again, exiting now; the run stays incomplete`);
      process.exit(130);
    }
    stopping = true;
    resolve(signal);
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return {
    requested,
    dispose: () => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    },
  };
}

function banner(mode: ProxyMode, checked: Checked, options: ProxyCommandOptions): string {
  const upstream = checked.upstream === undefined ? '' : shownUrl(checked.upstream);
  const run = mode.tapeRun;
  const named = run === undefined ? '' : `run ${run.id}${run.name === undefined ? '' : ` (${run.name})`}`;
  const file = checked.tape !== undefined && isTapePath(checked.tape) ? checked.tape : undefined;
  const tape = file === undefined ? named : `${file} (${named})`;
  const absent = checked.mode === 'replay-or-record' ? ' (no such tape yet)' : '';
  switch (mode.mode) {
    case 'record':
      return file === undefined
        ? `recording run ${mode.runId ?? ''} (${checked.tape ?? ''})${absent} from ${upstream}`
        : `recording onto ${file}${absent} (run ${mode.runId ?? ''}) from ${upstream}`;
    case 'replay':
      return `replaying ${tape}, ${options.strict === false ? 'lenient (unmatched requests served by position)' : 'strict'}`;
    case 'new-episodes':
      return `replaying ${tape}, what it has no match for goes to ${upstream}; recording run ${mode.runId ?? ''}${file === undefined ? '' : `, then ${file}`}`;
    case 'passthrough':
      return `forwarding to ${upstream}, recording nothing`;
  }
}

function summaryText(s: ProxySummary, failed: number, strict: boolean): string {
  const parts: string[] = [];
  switch (s.mode) {
    case 'record':
      parts.push(`run ${s.runId ?? ''} complete: ${count(s.recorded ?? 0, 'model call')} recorded, ${count(s.requests, 'request')}`);
      if (s.file !== null) parts.push(`written to ${s.file}`);
      break;
    case 'replay':
      parts.push(`${count(s.served ?? 0, 'call')} served from the tape`, `${s.refused ?? 0} refused`);
      // Strict: a divergence is a refusal, already counted.
      if (!strict) parts.push(`${count(s.divergences ?? 0, 'divergence')} served by position`);
      parts.push(`${count(s.unused ?? 0, 'recorded call')} not asked for`);
      break;
    case 'new-episodes':
      parts.push(`run ${s.runId ?? ''} complete (a replay of ${s.tapeRunId ?? ''}): ${count(s.served ?? 0, 'call')} served from the tape`);
      parts.push(`${s.upstream ?? 0} sent upstream`, `${count(s.recorded ?? 0, 'model call')} recorded`);
      if (s.file !== null) parts.push(`written to ${s.file}`);
      break;
    case 'passthrough':
      parts.push(`${count(s.requests, 'request')} forwarded, nothing recorded`);
      break;
  }
  if (failed > 0) parts.push(`${count(failed, 'request')} got no reply from upstream`);
  return parts.join(', ');
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** The address clients use: a wildcard listen is reached on loopback. */
function hostForUrl(host: string): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return shown.includes(':') ? `[${shown}]` : shown;
}
