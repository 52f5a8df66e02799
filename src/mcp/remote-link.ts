/**
 * The wrapper's side of a run's MCP broker (src/library/mcp-broker.ts): an McpLink whose every call
 * is one JSON request to the run that launched the agent, at the URL `agentctl run` (or a library
 * session's `mcpServer()`) put in `AGENTCTL_MCP_LINK`. The run keeps the tape; the wrapper only
 * talks to it, on this machine (127.0.0.1).
 */
import { Agent, request } from 'node:http';
import { InvalidOptionError, IoError, UnexpectedError } from '../core/errors.js';
import type { McpLink, McpLinkMode, McpRecordedEvent } from './link.js';

/** What the broker says of its run when a wrapper joins. */
interface Setup {
  mode: McpLinkMode;
  strict: boolean;
  allowSideEffects: boolean;
  redact: string[];
}

const MODES: readonly McpLinkMode[] = ['record', 'replay', 'new-episodes', 'passthrough'];

/** Join the run at `url` (`http://127.0.0.1:<port>/agentctl/mcp/<token>`); `source` names where the URL came from, for messages. */
export async function remoteLink(url: string, source = 'AGENTCTL_MCP_LINK'): Promise<McpLink> {
  const base = checkUrl(url, source);
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const call = (op: string, body: unknown): Promise<unknown> => post(agent, base, op, body, source);
  let setup: Setup;
  try {
    setup = checkSetup(await call('setup', {}), source);
  } catch (error) {
    agent.destroy();
    throw error;
  }
  let closed: Promise<void> | undefined;
  return {
    ...setup,
    recorded: async (server) => ((await call('recorded', { server })) as { events: McpRecordedEvent[] }).events,
    writeCall: async (input) => ((await call('writeCall', { call: input })) as { callId: string }).callId,
    write: async (event) => {
      await call('write', { event });
    },
    report: async (note) => {
      await call('report', { note });
    },
    close: () => {
      closed ??= call('close', {}).then(
        () => agent.destroy(),
        (error: unknown) => {
          agent.destroy();
          throw error;
        },
      );
      return closed;
    },
  };
}

function checkUrl(url: string, source: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidOptionError(`${source}: not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname)) {
    throw new InvalidOptionError(`${source}: the run's MCP link is on this machine, an http://127.0.0.1 URL (got ${parsed.origin})`);
  }
  parsed.search = '';
  parsed.hash = '';
  parsed.pathname = parsed.pathname.replace(/\/+$/, '');
  return parsed;
}

function checkSetup(value: unknown, source: string): Setup {
  const setup = value as Partial<Setup> | null;
  if (
    setup === null || typeof setup !== 'object' || !MODES.includes(setup.mode as McpLinkMode) || typeof setup.strict !== 'boolean' ||
    typeof setup.allowSideEffects !== 'boolean' || !Array.isArray(setup.redact) || !setup.redact.every((p) => typeof p === 'string')
  ) {
    throw new UnexpectedError(`the run at ${source} answered with something that is not an MCP link`);
  }
  return { mode: setup.mode as McpLinkMode, strict: setup.strict, allowSideEffects: setup.allowSideEffects, redact: setup.redact };
}

/** One link call: its JSON answer's `value`, or the error it reports. */
function post(agent: Agent, base: URL, op: string, body: unknown, source: string): Promise<unknown> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(`${base.pathname}/${op}`, base),
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          let answer: { value?: unknown; error?: { message?: unknown } };
          try {
            answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof answer;
          } catch {
            answer = {};
          }
          if (status === 200 && 'value' in answer) resolve(answer.value);
          else if (status === 404) reject(new InvalidOptionError(`${source}: no run of agentctl has that MCP link (it ended, or the URL is not its own)`));
          else reject(new UnexpectedError(typeof answer.error?.message === 'string' ? answer.error.message : `the run's MCP link answered HTTP ${status} to ${op}`));
        });
      },
    );
    req.on('error', (error) => reject(new IoError(`cannot reach the run's MCP link (${source}, ${base.origin}): ${error.message}`, { cause: error })));
    req.end(text);
  });
}
