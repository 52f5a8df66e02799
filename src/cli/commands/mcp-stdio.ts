/**
 * The stdio side of `agentctl mcp`: the client on agentctl's own standard input and output, the
 * server a child process (src/mcp/stdio-upstream.ts; in a replay started only when a call must run
 * live), the conversation between them kept on the tape through the link (src/mcp/stdio-wrapper.ts).
 *
 * A client that stops its server with SIGTERM or SIGINT (the SDK's, once its input closing has not
 * ended it) ends the conversation as closing the input does: the server is stopped and what is still
 * open is written, so the tape holds everything the client saw.
 */
import type { Redactor } from '../../core/redact.js';
import type { McpLink } from '../../mcp/link.js';
import { runStdioWrapper } from '../../mcp/stdio-wrapper.js';
import { stdioUpstream } from '../../mcp/stdio-upstream.js';

export interface WrapStdioOptions {
  server: string;
  command: string;
  args: readonly string[];
  link: McpLink;
  redact: Redactor;
  /** The server's whole environment. */
  env: NodeJS.ProcessEnv;
  /** A line for the user (standard error), without the prefix. */
  note(line: string): void;
}

/** How long each step of stopping the server waits: the client gives its wrapper 2 s before SIGTERM. */
const STOP_GRACE_MS = 1_000;

/** Serve the client until it goes away (or the server ends); resolves to the code to exit with. */
export async function wrapStdio(options: WrapStdioOptions): Promise<number> {
  const stop = (): void => {
    process.stdin.destroy();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    return await runStdioWrapper({
      server: options.server,
      link: options.link,
      upstream: stdioUpstream({ command: options.command, args: options.args, env: options.env, stopGraceMs: STOP_GRACE_MS }),
      input: process.stdin,
      output: process.stdout,
      redact: options.redact,
      note: options.note,
    });
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
}
