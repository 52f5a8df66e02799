/**
 * `agentctl mcp -- <command>`'s transport: the client speaks MCP's stdio framing to agentctl (one
 * JSON message per line on its input and output), and a conversation (conversation.ts) records or
 * replays what it says. A line that is not JSON gets JSON-RPC's parse error (id null); a batch (a
 * JSON array, from older clients) is taken apart into its messages. The output ends once the
 * conversation is over: the client closed its input (exit code 0), or the server ended on its own
 * — live, or where the replayed tape says it did (exit code 1).
 */
import type { Redactor } from '../core/redact.js';
import { openConversation, type McpConversation } from './conversation.js';
import type { McpLink } from './link.js';
import { errorReply, LineSplitter, readMessage, RPC_ERRORS, type JsonRpcMessage } from './protocol.js';
import type { McpUpstream } from './upstream.js';

export interface StdioWrapperOptions {
  /** The server's name on the tape. */
  server: string;
  link: McpLink;
  upstream: McpUpstream;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  redact: Redactor;
  /** A line for the user (stderr), without prefix. */
  note?(line: string): void;
}

/** The messages of one line: each one, or the error reply the client gets for it. */
function messagesOf(line: string): Array<JsonRpcMessage | { invalid: JsonRpcMessage }> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return [{ invalid: errorReply(null, RPC_ERRORS.parse, `Parse error: ${(error as Error).message}`) }];
  }
  const values = Array.isArray(value) ? value : [value];
  if (values.length === 0) return [{ invalid: errorReply(null, RPC_ERRORS.invalidRequest, 'Invalid Request: an empty batch') }];
  return values.map((item) => {
    const message = readMessage(item);
    if (typeof message !== 'string') return message;
    const id = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)['id'] : undefined;
    return { invalid: errorReply(typeof id === 'string' || typeof id === 'number' ? id : null, RPC_ERRORS.invalidRequest, `Invalid Request: ${message}`) };
  });
}

export async function runStdioWrapper(options: StdioWrapperOptions): Promise<number> {
  const { input, output } = options;
  let outputEnded = false;
  const toClient = (message: JsonRpcMessage): void => {
    if (!outputEnded) output.write(`${JSON.stringify(message)}\n`);
  };
  const conversation: McpConversation = await openConversation({
    server: options.server,
    link: options.link,
    upstream: options.upstream,
    toClient,
    redact: options.redact,
    ...(options.note === undefined ? {} : { note: options.note }),
  });

  let handled: Promise<void> = Promise.resolve();
  const take = (message: JsonRpcMessage): void => {
    const done = conversation.fromClient(message).catch((error: unknown) => {
      const why = error instanceof Error ? error.message : String(error);
      options.note?.(`MCP server '${options.server}': ${why}`);
      if ('id' in message && 'method' in message) toClient(errorReply(message.id, RPC_ERRORS.internal, `agentctl: ${why}`));
    });
    handled = handled.then(() => done);
  };
  const lines = new LineSplitter(
    (line) => {
      for (const message of messagesOf(line)) {
        if ('invalid' in message) toClient(message.invalid);
        else take(message);
      }
    },
    (bytes) => toClient(errorReply(null, RPC_ERRORS.invalidRequest, `Invalid Request: a message of ${bytes} bytes is longer than agentctl reads`)),
  );
  const onData = (chunk: Buffer | string): void => lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const inputClosed = new Promise<void>((closed) => {
    input.once('end', closed);
    input.once('close', closed);
  });
  input.on('data', onData);

  const first = await Promise.race([inputClosed.then(() => 'input' as const), conversation.ended.then(() => 'server' as const)]);
  input.off('data', onData);
  if (first === 'input') {
    lines.end();
    await handled;
  }
  await conversation.close();
  const end = await conversation.ended;
  outputEnded = true;
  await new Promise<void>((done) => output.end(done));
  await options.link.close();
  return first === 'server' && end.unexpected ? 1 : 0;
}
