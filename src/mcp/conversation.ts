/**
 * One client's MCP conversation with one server, recorded onto a tape or replayed from it
 * (docs/mcp.md). The transports (stdio-wrapper.ts, the HTTP proxy) only carry messages; this decides
 * what each one does to the tape and who answers it:
 *
 * - record: every message goes to the server, and onto the tape before it can matter: a
 *   `tools/call`'s tool_call is written before the server gets it, and every reply is written
 *   before the client gets it, so nothing the client saw is missing from the tape;
 * - replay: requests are answered from the tape, matched by content (replay-match.ts); one the tape
 *   lacks runs on the real server (started then) only when it may, else it is refused;
 * - new-episodes: as replay, but what the tape lacks runs, and everything is written onto the new run;
 * - passthrough: the server answers, nothing is written.
 *
 * Everything that touches the tape or the client runs one message at a time, in arrival order (a
 * queue), so the tape's order is the order things happened in.
 */
import { systemClock, type Clock } from '../core/clock.js';
import type { McpReply } from '../core/events.js';
import type { Redactor } from '../core/redact.js';
import { printableLine } from '../core/terminal-text.js';
import { callKey } from '../guardrails/call-key.js';
import { replaySafe } from './annotations.js';
import type { McpDivergence, McpLink, McpReplayNote } from './link.js';
import { DEFAULT_INITIALIZE, LiveServer } from './live-server.js';
import {
  errorReply,
  isReply,
  isRequest,
  RPC_ERRORS,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcReply,
  type JsonRpcRequest,
} from './protocol.js';
import { looseAfter, readRecordedTape, SERVER_ENDED, type RecordedTape, type TapeEntry } from './recorded-tape.js';
import { matchCall, matchRequest } from './replay-match.js';
import { callInput, callOf, exchangeInput, notificationOf, replyOf, resultInput, type Notification } from './tape-writes.js';
import type { McpUpstream } from './upstream.js';

export interface ConversationOptions {
  /** The server's name on the tape. */
  server: string;
  link: McpLink;
  /** The real server; in replay opened only when a call must run live. */
  upstream: McpUpstream;
  /** Deliver to the client (replies carry the client's own ids). */
  toClient(message: JsonRpcMessage): void;
  /** A line for the user (stderr), without prefix. */
  note?(line: string): void;
  /** The tape's redactor (the caller builds it: library keyRedactor(link.redact)). */
  redact: Redactor;
  /** What durations are measured with (default the wall clock). */
  clock?: Clock;
}

export interface McpConversation {
  /** One message from the client; resolves once handled as far as the tape is concerned (written, answered or forwarded). */
  fromClient(message: JsonRpcMessage): Promise<void>;
  /** The client went away: stop the server, write what is still open, report the end (replay: unused). Idempotent. The link stays open: its opener closes it. */
  close(): Promise<void>;
  /** Settles when the server side is over (the server ended; in replay: the recorded end was served): the transport ends its output. */
  readonly ended: Promise<{ reason: string; unexpected: boolean }>;
}

/** A client request the server has, waiting for its answer. */
interface Pending {
  request: JsonRpcRequest;
  started: number;
  notifications: Notification[];
  /** A tools/call's tool and the id its written tool_call got. */
  call?: { tool: string; callId?: string };
}

const idKey = (id: JsonRpcId): string => `${typeof id}:${String(id)}`;

function progressTokenOf(params: Record<string, unknown> | undefined): unknown {
  const meta = params?.['_meta'];
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)['progressToken'] : undefined;
}

export async function openConversation(options: ConversationOptions): Promise<McpConversation> {
  const conversation = new Conversation(options);
  await conversation.open();
  return conversation;
}

class Conversation implements McpConversation {
  readonly ended: Promise<{ reason: string; unexpected: boolean }>;
  private settleEnded: (end: { reason: string; unexpected: boolean }) => void = () => undefined;
  private over = false;
  private closed: Promise<void> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly pending = new Map<string, Pending>();
  private readonly serverRequests = new Map<string, JsonRpcRequest>();
  private readonly live: LiveServer;
  private readonly writes: boolean;
  private readonly serves: boolean;
  private readonly clock: Clock;
  private tape: RecordedTape | undefined;
  private clientInitialize: Record<string, unknown> | undefined;

  constructor(private readonly options: ConversationOptions) {
    const { mode } = options.link;
    this.writes = mode === 'record' || mode === 'new-episodes';
    this.serves = mode === 'replay' || mode === 'new-episodes';
    this.clock = options.clock ?? systemClock;
    this.ended = new Promise((settle) => (this.settleEnded = settle));
    this.live = new LiveServer(options.upstream, {
      message: (message) => void this.enqueue(() => this.fromServer(message)).catch((error: unknown) => this.trouble(error)),
      ended: (reason, expected) => void this.enqueue(() => this.serverEnded(reason, expected)).catch((error: unknown) => this.trouble(error)),
    });
  }

  async open(): Promise<void> {
    if (!this.serves) {
      await this.live.start();
      return;
    }
    this.tape = readRecordedTape(await this.options.link.recorded(this.options.server));
    this.checkRecordedEnd();
  }

  fromClient(message: JsonRpcMessage): Promise<void> {
    // Asked when its turn comes: a message that came while the end was being written goes nowhere either.
    return this.enqueue(() => (this.over ? Promise.resolve() : this.handle(message)));
  }

  close(): Promise<void> {
    this.closed ??= this.shutDown();
    return this.closed;
  }

  // ---- the queue ----

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A line for the user: the server's and the tape's words in it shown, never obeyed, by a terminal. */
  private say(line: string): void {
    this.options.note?.(printableLine(line));
  }

  private trouble(error: unknown): void {
    this.say(`MCP server '${this.options.server}': ${error instanceof Error ? error.message : String(error)}`);
  }

  private send(message: JsonRpcMessage): void {
    if (!this.over) this.options.toClient(message);
  }

  // ---- the client's messages ----

  private async handle(message: JsonRpcMessage): Promise<void> {
    if (isReply(message)) return this.answerToServer(message);
    if (!isRequest(message)) {
      if (this.writes) await this.options.link.write(exchangeInput(this.options.server, 'client', message.method, this.redacted(message.params)));
      if (this.live.started) await this.live.send(message);
      return;
    }
    if (message.method === 'initialize') this.clientInitialize = message.params;
    if (this.serves) {
      if (message.method === 'ping') {
        this.send({ jsonrpc: '2.0', id: message.id, result: {} });
        return;
      }
      if (await this.fromTape(message)) return;
    }
    await this.forward(message);
  }

  /** The client's answer to a request of the server's own. */
  private async answerToServer(message: JsonRpcReply): Promise<void> {
    if (message.id === null) return;
    const request = this.serverRequests.get(idKey(message.id));
    if (request === undefined) return;
    this.serverRequests.delete(idKey(message.id));
    if (this.writes) {
      await this.options.link.write(exchangeInput(this.options.server, 'server', request.method, this.redacted(request.params), this.options.redact(replyOf(message, []))));
    }
    await this.live.send(message);
  }

  private redacted(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    return params === undefined ? undefined : this.options.redact(params);
  }

  /** Send a request to the server (started now if it is not yet), its tool_call written first when recording. */
  private async forward(request: JsonRpcRequest): Promise<void> {
    const pending: Pending = { request, started: this.clock.now(), notifications: [] };
    if (request.method === 'tools/call') {
      const { tool, args } = callOf(request.params);
      pending.call = { tool };
      if (this.writes) pending.call.callId = await this.options.link.writeCall(callInput(this.options.server, tool, this.options.redact(args)));
    }
    this.pending.set(idKey(request.id), pending);
    // The server has ended (or ends as this is sent): the client gets the error the others got.
    if (!(await this.live.send(request)) && this.live.gone !== undefined) await this.answerClosed(pending, this.live.gone);
  }

  // ---- the server's messages ----

  private async fromServer(message: JsonRpcMessage): Promise<void> {
    if (isReply(message)) {
      if (message.id === null) return;
      const pending = this.pending.get(idKey(message.id));
      if (pending === undefined) return;
      this.pending.delete(idKey(message.id));
      try {
        await this.writeAnswer(pending, message);
      } catch (error) {
        // The client gets no answer the tape does not have: it learns why instead.
        const why = error instanceof Error ? error.message : String(error);
        this.say(`MCP server '${this.options.server}': an answer could not be written onto the tape: ${why}`);
        this.send(errorReply(message.id, RPC_ERRORS.internal, `agentctl: the answer could not be written onto the tape: ${why}`));
        return;
      }
      this.send(message);
      return;
    }
    if (!isRequest(message)) {
      const target = this.pendingFor(message.params);
      if (target !== undefined) target.notifications.push(notificationOf(message));
      else if (this.writes) await this.options.link.write(exchangeInput(this.options.server, 'server', message.method, this.redacted(message.params)));
      this.send(message);
      return;
    }
    this.serverRequests.set(idKey(message.id), message);
    this.send(message);
  }

  /** The open request a server notification belongs to: the one its progress token names, else the oldest. */
  private pendingFor(params: Record<string, unknown> | undefined): Pending | undefined {
    const token = params?.['progressToken'];
    if (token !== undefined) {
      for (const pending of this.pending.values()) if (progressTokenOf(pending.request.params) === token) return pending;
    }
    return this.pending.values().next().value;
  }

  /** Write a request's outcome (recording): `message` its answer, none when the conversation ends without one. */
  private async writeAnswer(pending: Pending, message: JsonRpcReply | undefined): Promise<void> {
    if (!this.writes) return;
    const { server, redact, link } = this.options;
    const reply = redact(replyOf(message, pending.notifications));
    const durationMs = Math.max(0, this.clock.now() - pending.started);
    if (pending.call?.callId !== undefined) {
      const missing = `agentctl: the client went away before MCP server '${server}' answered`;
      await link.write(resultInput(server, pending.call.callId, pending.call.tool, reply, durationMs, missing));
      return;
    }
    const { method, params } = pending.request;
    const written = message === undefined && reply.notifications === undefined ? undefined : reply;
    await link.write(exchangeInput(server, 'client', method, this.redacted(params), written, durationMs));
  }

  private async answerClosed(pending: Pending, reason: string): Promise<void> {
    this.pending.delete(idKey(pending.request.id));
    const answer = errorReply(pending.request.id, RPC_ERRORS.connectionClosed, `agentctl: MCP server '${this.options.server}' ${reason} before it answered`);
    await this.writeAnswer(pending, answer);
    this.send(answer);
  }

  private async serverEnded(reason: string, expected: boolean): Promise<void> {
    if (expected) {
      this.finish({ reason, unexpected: false });
      return;
    }
    for (const pending of [...this.pending.values()]) await this.answerClosed(pending, reason);
    for (const request of this.serverRequests.values()) {
      if (this.writes) await this.options.link.write(exchangeInput(this.options.server, 'server', request.method, this.redacted(request.params)));
    }
    this.serverRequests.clear();
    this.say(`MCP server '${this.options.server}' ${reason}`);
    // On replay and new-episodes the tape still answers: only the live part is over, and the run
    // written goes on past it too, so it has no end of the server for its own replay to stop at.
    if (this.serves) return;
    if (this.writes) await this.options.link.write(exchangeInput(this.options.server, 'server', SERVER_ENDED, { reason }));
    this.finish({ reason, unexpected: true });
  }

  private finish(end: { reason: string; unexpected: boolean }): void {
    this.over = true;
    this.settleEnded(end);
  }

  // ---- replay ----

  /** Answer a request from the tape, or refuse it; false when it is to run on the server. */
  private async fromTape(request: JsonRpcRequest): Promise<boolean> {
    const tape = this.tape as RecordedTape;
    const { server, redact } = this.options;
    let matched;
    let tool: string | undefined;
    if (request.method === 'tools/call') {
      const call = callOf(request.params);
      tool = call.tool;
      const args = redact(call.args);
      matched = matchCall(tape, call.tool, callKey(call.tool, args), args);
    } else {
      matched = matchRequest(tape, request.method, this.redacted(request.params));
    }
    const about = tool === undefined ? {} : { tool };
    if ('entry' in matched) {
      await this.serve(request, matched.entry);
      await this.report({ kind: 'request', server, method: request.method, ...about, outcome: 'served' });
      this.checkRecordedEnd();
      return true;
    }
    const { divergence } = matched;
    const what = tool === undefined ? request.method : `tools/call ${tool}`;
    if (tool !== undefined && !this.mayRun(tool)) {
      this.send(errorReply(request.id, RPC_ERRORS.notReplayed, `agentctl: ${what} is not on the tape, and ${tool} is not read-only, so it is not run again on replay`));
      await this.refused(request, about, divergence, `${tool} is not read-only: refused`);
      return true;
    }
    try {
      await this.live.start(this.clientInitialize ?? this.recordedInitialize() ?? DEFAULT_INITIALIZE);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.send(errorReply(request.id, RPC_ERRORS.notReplayed, `agentctl: ${what} is not on the tape, and MCP server '${server}' could not be started to run it: ${why}`));
      await this.refused(request, about, divergence, `the server could not be started: ${why}`);
      return true;
    }
    this.noteDivergence(divergence, 'run on the server');
    await this.report({ kind: 'request', server, method: request.method, ...about, outcome: 'live', divergence });
    return false;
  }

  /** Whether a call the tape lacks may run: new-episodes and --allow-side-effects run all; else only a read-only tool (its recorded annotations). */
  private mayRun(tool: string): boolean {
    const { link } = this.options;
    if (link.mode === 'new-episodes' || link.allowSideEffects) return true;
    return replaySafe(this.tape?.annotations.get(tool));
  }

  private async refused(request: JsonRpcRequest, about: { tool?: string }, divergence: McpDivergence, why: string): Promise<void> {
    this.noteDivergence(divergence, why);
    await this.report({ kind: 'request', server: this.options.server, method: request.method, ...about, outcome: 'refused', divergence });
  }

  private noteDivergence(divergence: McpDivergence, outcome: string): void {
    const strictness = this.options.link.strict ? 'replay diverged' : 'not on the tape (not strict)';
    this.say(`MCP server '${this.options.server}': ${strictness}: ${divergence.message}; ${outcome}`);
  }

  private report(note: McpReplayNote): Promise<void> {
    return this.options.link.report(note);
  }

  private recordedInitialize(): Record<string, unknown> | undefined {
    const entry = this.tape?.entries.find((candidate) => candidate.kind === 'request' && candidate.method === 'initialize');
    return entry?.kind === 'request' ? entry.params : undefined;
  }

  /** Serve a recorded answer: its notifications first, then the answer under the client's id, then what the server said after it. */
  private async serve(request: JsonRpcRequest, entry: TapeEntry): Promise<void> {
    entry.used = true;
    if (this.writes) await this.writeServed(request, entry);
    const reply = entry.reply;
    const token = progressTokenOf(request.params);
    const notifications = reply?.notifications ?? [];
    for (const notification of notifications) {
      const params = notification.params;
      const retokened = token !== undefined && params !== undefined && 'progressToken' in params ? { ...params, progressToken: token } : params;
      this.send(retokened === undefined ? { jsonrpc: '2.0', method: notification.method } : { jsonrpc: '2.0', method: notification.method, params: retokened });
    }
    // A client may take a notification in a tick after the message that carried it (the SDK's do),
    // and forget a call's progress token once its answer is in: the answer waits for the next turn
    // of the event loop, as it would have come later from the server.
    if (notifications.length > 0) await new Promise<void>((next) => setImmediate(next));
    if (reply?.result !== undefined) this.send({ jsonrpc: '2.0', id: request.id, result: reply.result });
    else if (reply?.error !== undefined) this.send({ jsonrpc: '2.0', id: request.id, error: reply.error });
    for (const loose of looseAfter(this.tape as RecordedTape, entry)) {
      loose.sent = true;
      this.send(loose.params === undefined ? { jsonrpc: '2.0', method: loose.method } : { jsonrpc: '2.0', method: loose.method, params: loose.params });
    }
  }

  /** new-episodes: a served answer goes onto the new run as it would have been recorded. */
  private async writeServed(request: JsonRpcRequest, entry: TapeEntry): Promise<void> {
    const { server, link } = this.options;
    const reply: McpReply = entry.reply ?? {};
    if (entry.kind === 'call') {
      const callId = await link.writeCall({ type: 'tool_call', tool: entry.tool, arguments: entry.argumentsText, key: entry.key, server });
      await link.write(resultInput(server, callId, entry.tool, reply, entry.durationMs ?? 0, `agentctl: the recording ended before MCP server '${server}' answered`));
      return;
    }
    await link.write(exchangeInput(server, 'client', request.method, this.redacted(request.params), entry.reply, entry.durationMs));
  }

  /** replay: once every request before the recorded end of the server has been served, the conversation ends as it did. */
  private checkRecordedEnd(): void {
    const end = this.tape?.end;
    if (end === undefined || this.options.link.mode !== 'replay') return;
    if (this.tape?.entries.some((entry) => entry.at < end.at && !entry.used)) return;
    this.say(`MCP server '${this.options.server}' ${end.reason} (as recorded)`);
    this.finish({ reason: end.reason, unexpected: true });
  }

  // ---- the end ----

  private async shutDown(): Promise<void> {
    await this.queue;
    await this.live.close();
    await this.enqueue(async () => {
      for (const pending of [...this.pending.values()]) {
        this.pending.delete(idKey(pending.request.id));
        await this.writeAnswer(pending, undefined);
      }
      if (this.serves) {
        const unused = this.tape?.entries.filter((entry) => entry.kind === 'call' && !entry.used).length ?? 0;
        if (unused > 0) this.say(`MCP server '${this.options.server}': ${unused} recorded tool ${unused === 1 ? 'call was' : 'calls were'} never made`);
        await this.report({ kind: 'end', server: this.options.server, unused });
      }
    });
    this.finish({ reason: 'the client closed', unexpected: false });
  }
}
