/**
 * HTTP plumbing for proxy tests: an upstream on 127.0.0.1 the test scripts request by request, and a
 * client request with exactly the headers given.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Upstream {
  /** The base URL to pass as `--upstream`. */
  url: string;
  requests: Array<{ path: string; headers: IncomingHttpHeaders; body: string }>;
  /** Resolves once `n` requests have been received whole. */
  arrived(n: number): Promise<void>;
  close(): Promise<void>;
}

/** An upstream on 127.0.0.1 that hands each request, read whole, to `answer` (which may never answer). */
export async function startUpstream(answer: (req: IncomingMessage & { body: unknown }, res: ServerResponse) => void): Promise<Upstream> {
  const requests: Upstream['requests'] = [];
  const waiting: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (part: string) => (body += part));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      for (const wake of waiting.splice(0)) wake();
      answer(Object.assign(req, { body }), res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    arrived: async (n) => {
      while (requests.length < n) await new Promise<void>((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export /** A request with exactly these headers (fetch will not send `host` or `cookie` as given). */
function raw(port: number, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (part: string) => (text += part));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
