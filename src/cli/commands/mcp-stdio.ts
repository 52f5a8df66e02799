/**
 * The stdio side of `agentctl mcp`: the client on agentctl's own standard input and output, the
 * server a child process (src/mcp/stdio-upstream.ts), the conversation between them kept on the
 * tape through the link (src/mcp/stdio-wrapper.ts).
 */
import { UnexpectedError } from '../../core/errors.js';
import type { Redactor } from '../../core/redact.js';
import type { McpLink } from '../../mcp/link.js';

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

/** Serve the client until it goes away (or the server ends); resolves to the code to exit with. */
export function wrapStdio(options: WrapStdioOptions): Promise<number> {
  return Promise.reject(new UnexpectedError(`the stdio wrapper of ${options.server} is not built in`));
}
