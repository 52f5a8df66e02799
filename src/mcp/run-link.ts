/**
 * How an `agentctl mcp` wrapper finds the run that launched its agent. The run (`agentctl run`, a
 * library session's `mcpServer()`) gives its command the link's URL in AGENTCTL_MCP_LINK — but most
 * MCP clients start a stdio server with a clean environment (the official SDK passes only HOME,
 * LOGNAME, PATH, SHELL, TERM and USER unless told otherwise), so the variable rarely reaches the
 * wrapper. PATH always does: a client must keep it to start `npx`. So the run also puts a private
 * directory first on its command's PATH (mode 0700, named `agentctl-mcp-…`, holding no programs)
 * with one file, `link` (mode 0600), that holds the same URL. The wrapper takes the variable when it
 * has it, else the first such directory on its PATH whose `link` belongs to this user and no one
 * else can read — the token in the URL is what lets a process write onto the run.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';

/** The environment variable that names the run's MCP link. */
export const MCP_LINK_ENV = 'AGENTCTL_MCP_LINK';
/** How the directory that carries the link on PATH is named. */
export const LINK_DIR_PREFIX = 'agentctl-mcp-';
const LINK_FILE = 'link';
/** A link is a URL on the loopback interface, as the broker serves it. */
const LINK_URL = /^http:\/\/127\.0\.0\.1:\d{1,5}\/\S+$/;

export interface FoundLink {
  url: string;
  /** Where it was found, for messages: `$AGENTCTL_MCP_LINK`, or the link file's path. */
  source: string;
}

/** The run's link for a wrapper with this environment, or undefined when it was not started under one. */
export function findRunLink(env: NodeJS.ProcessEnv): FoundLink | undefined {
  const named = env[MCP_LINK_ENV];
  if (named !== undefined && named !== '') return { url: named, source: `$${MCP_LINK_ENV}` };
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!basename(dir).startsWith(LINK_DIR_PREFIX)) continue;
    const file = join(dir, LINK_FILE);
    const url = privateText(dir, file);
    if (url !== undefined && LINK_URL.test(url)) return { url, source: file };
  }
  return undefined;
}

/** The text of `file` in `dir` when both are this user's and private; else undefined. */
function privateText(dir: string, file: string): string | undefined {
  try {
    const folder = lstatSync(dir);
    const link = lstatSync(file);
    const uid = process.getuid?.();
    if (!folder.isDirectory() || !link.isFile()) return undefined;
    if (uid !== undefined && (folder.uid !== uid || link.uid !== uid)) return undefined;
    if ((folder.mode & 0o077) !== 0 || (link.mode & 0o077) !== 0) return undefined;
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

export interface PublishedLink {
  /** The command's environment: `env` with the link in AGENTCTL_MCP_LINK and its directory first on PATH. */
  env(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /** Remove the directory (when the run ends). */
  remove(): Promise<void>;
}

/** Make the link findable by the wrappers a command starts (see the module comment). */
export async function publishRunLink(url: string): Promise<PublishedLink> {
  const dir = await mkdtemp(join(tmpdir(), LINK_DIR_PREFIX));
  await writeFile(join(dir, LINK_FILE), `${url}\n`, { mode: 0o600 });
  return {
    env: (env) => {
      const path = env['PATH'];
      return { ...env, [MCP_LINK_ENV]: url, PATH: path === undefined || path === '' ? dir : `${dir}${delimiter}${path}` };
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
