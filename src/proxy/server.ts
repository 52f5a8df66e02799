/**
 * The HTTP server of `agentctl proxy`: every request is checked (admission.ts: programs on this
 * machine, not web pages; a body no larger than `maxBody`), read, turned into a fetch `Request` for
 * the upstream URL (forward.ts), handed to the mode's `fetch` (recording, replaying or plain), and
 * the `Response` is written back as it arrives. It keeps the requests in flight so a shutdown can
 * let them finish (bounded), then cut the rest, before the run is ended.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UnexpectedError, UsageError } from '../core/errors.js';
import type { FetchLike } from '../library/fetch-like.js';
import { StreamCut } from '../library/recording-stream.js';
import { sizeText } from '../llm/transport/http-reply.js';
import { refusal } from './admission.js';
import { CUT, outgoingRequest, readBody, sendError, sendResponse, type Outgoing } from './forward.js';
import type { Route } from './routes.js';

/** What a mode gives the server. */
export interface ProxyHandler {
  /** Where a client's request (path and query) is sent, and the key it carries (the client's own is dropped). */
  route(path: string): Route;
  fetch: FetchLike;
  /** Told about every reply before it is passed back (notes, counts). */
  observe?(request: Outgoing, response: Response): Promise<void>;
}

/** Requests the server answers itself, apart from the proxied ones (the MCP broker of `agentctl run`). */
export interface LocalHandler {
  /** Whether a request's path (`req.url`) is this handler's. */
  owns(url: string | undefined): boolean;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export interface ServerOptions {
  /** The largest request body answered; a larger one gets an HTTP 413. */
  maxBody: number;
  /** Host names requests may name besides IP addresses and `localhost` (see admission.ts). */
  hosts: ReadonlySet<string>;
  /** A line for the user (standard error): a refused request. */
  note(line: string): void;
}

/** A request being answered: its work, and the controller that cancels its call upstream. */
interface InFlight {
  done: Promise<void>;
  controller: AbortController;
}

export class ProxyServer {
  /** Requests received. */
  requests = 0;
  /** Requests that got no reply from upstream (answered 502). */
  failed = 0;
  private readonly inFlight = new Set<InFlight>();
  /** Set when close() cuts what did not finish in time. */
  private cutting = false;
  private handler: ProxyHandler | undefined;
  private readonly locals: LocalHandler[] = [];
  private readonly waiting: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    private readonly options: ServerOptions,
  ) {}

  /** Listen on host:port (0: any free port). A port in use is a usage error. */
  static async listen(host: string, port: number, options: ServerOptions): Promise<ProxyServer> {
    const server = createServer();
    const proxy = new ProxyServer(server, options);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => proxy.track(req, res));
    await new Promise<void>((resolve, reject) => {
      const failed = (error: NodeJS.ErrnoException): void => {
        if (error.code === 'EADDRINUSE') {
          reject(new UsageError(`port ${port} on ${host} is already in use`, { hint: 'pick another with --port <n>, or --port 0 for any free one' }));
        } else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EACCES') {
          reject(new UsageError(`cannot listen on ${host}:${port} (${error.code})`, { hint: 'pass --host 127.0.0.1, and a --port above 1023' }));
        } else {
          reject(new UnexpectedError(`cannot listen on ${host}:${port}: ${error.message}`));
        }
      };
      server.once('error', failed);
      server.listen(port, host, () => {
        server.off('error', failed);
        resolve();
      });
    });
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Answer the requests `local` owns with it (besides those mounted before): they are not proxied, nor counted among the requests. */
  mount(local: LocalHandler): void {
    this.locals.push(local);
  }

  /** Start answering: requests that arrived before wait for this. */
  serve(handler: ProxyHandler): void {
    this.handler = handler;
    for (const wake of this.waiting.splice(0)) wake();
  }

  private track(req: IncomingMessage, res: ServerResponse): void {
    const local = this.locals.find((candidate) => candidate.owns(req.url));
    if (local === undefined) this.requests++;
    const controller = new AbortController();
    const call: InFlight = {
      controller,
      done: this.handle(req, res, controller.signal, local)
        .catch((error: unknown) => sendError(res, 500, 'agentctl_proxy_error', `agentctl proxy: ${describe(error)}`))
        .finally(() => this.inFlight.delete(call)),
    };
    this.inFlight.add(call);
    // The client went away before its reply was complete: the call upstream is cancelled too.
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse, signal: AbortSignal, local: LocalHandler | undefined): Promise<void> {
    req.socket.setNoDelay(true);
    const refused = refusal(req.headers, this.options.hosts);
    if (refused !== undefined) {
      this.options.note(refused.message);
      sendError(res, 403, refused.code, refused.message, { close: true });
      return;
    }
    if (local !== undefined) {
      await local.handle(req, res);
      return;
    }
    const body = await readBody(req, this.options.maxBody);
    if (body === undefined) {
      const message = `agentctl proxy: the request body is larger than ${sizeText(this.options.maxBody)} (--max-body)`;
      // The rest of the body is read and dropped, so the client, still sending it, gets this answer.
      sendError(res, 413, 'agentctl_request_too_large', message);
      return;
    }
    if (this.handler === undefined) await new Promise<void>((resolve) => this.waiting.push(resolve));
    const handler = this.handler as ProxyHandler;
    const request = outgoingRequest(req, body, handler.route(req.url ?? '/'), signal);
    let response: Response;
    try {
      response = await handler.fetch(request.url, request.init);
    } catch (error) {
      if (signal.aborted) return;
      this.failed++;
      // What a client of the real API sees when the connection fails: an error it may retry.
      sendError(res, 502, 'agentctl_upstream_error', `agentctl proxy: no reply from upstream: ${describe(error)}`, { retry: true });
      return;
    }
    await handler.observe?.(request, response);
    await sendResponse(res, response, () => this.cutting);
  }

  /**
   * Stop accepting; let the requests in flight finish for up to `graceMs`, then cut the rest: each
   * call still under way is aborted (a call upstream fails, a stream breaks, and a recording records
   * each as its client saw it) and its connection closed. Resolves once every request has settled.
   */
  async close(graceMs: number): Promise<{ cut: boolean }> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const cut = !(await settles([...this.inFlight].map((call) => call.done), graceMs));
    if (cut) {
      this.cutting = true;
      for (const call of this.inFlight) call.controller.abort(new StreamCut(CUT));
    }
    this.server.closeAllConnections();
    // Cut requests settle at once (their calls are aborted); the bound only guards against a hang.
    if (cut) await settles([...this.inFlight].map((call) => call.done), 2_000);
    await closed;
    return { cut };
  }
}

/** Whether all of `promises` settled within `ms`. */
async function settles(promises: Array<Promise<unknown>>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([Promise.allSettled(promises).then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? `${cause.message}` : '';
  return detail === '' || error.message.includes(detail) ? error.message : `${error.message} (${detail})`;
}
