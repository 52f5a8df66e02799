/**
 * `agentctl proxy` under abuse, end to end (the real binary, upstreams on 127.0.0.1 the test
 * controls): a stream longer than a tape keeps, SIGTERM with calls in flight to an upstream that
 * never answers, request bodies over the limit, a reply over the limit, the client's credential
 * headers, requests from web pages or for other host names, and malformed requests — each must leave
 * a run that exports, imports and replays.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../src/core/events.js';
import { MAX_RECORDED_BODY, MAX_RECORDED_REQUEST, MAX_RECORDED_STREAM } from '../src/llm/transport/http-reply.js';
import { runCli } from './support/cli.js';
import { filesUnder } from './support/files.js';
import { killProxies, startProxy, type RunningProxy } from './support/proxy.js';
import { storedEvents } from './support/stored-events.js';
import { raw, startUpstream } from './support/upstream.js';

const UPSTREAM_KEY = 'upstream-marker-5b8e2d7c9a13';
const KEY_ENV = 'MY_LLM_AUTH';
const ENV = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, AGENTCTL_STORE: undefined, [KEY_ENV]: UPSTREAM_KEY };
/** What a client sees of a call cut by a stopping proxy, and what the tape says of it. */
const CUT = 'agentctl proxy stopped before the reply was complete';

let dir: string;
let store: string;
let files = 0;

const proxy = (args: string[]): Promise<RunningProxy> => startProxy(args, { store, env: ENV });
const cli = (args: string[], at = store): ReturnType<typeof runCli> => runCli(['--store', at, ...args], { env: ENV });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-proxy-limits-'));
  store = join(dir, 'store');
});
afterEach(killProxies);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('agentctl proxy holds its ground', () => {
  it('a stream longer than a tape keeps breaks there for its client, is recorded as far and as broken, and SIGTERM then ends a sound run', async () => {
    const event = sseChunk('x'.repeat(60_000));
    // Well past what a tape keeps, then silence: the stream never ends by itself.
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const pump = (): void => {
        while (!res.destroyed && sent < MAX_RECORDED_STREAM + 16 * 1024 * 1024) {
          sent += event.length;
          if (!res.write(event)) {
            res.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
    try {
      const running = await proxy(['--record', 'long', '--upstream', upstream.url, '--api-key-env', KEY_ENV]);
      const reply = await postJson(running.url, { model: 'm', stream: true, messages: [{ role: 'user', content: 'go on forever' }] });
      const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
      let got = 0;
      const outcome = await (async () => {
        for (;;) {
          const next = await reader.read();
          if (next.done) return 'ended';
          got += next.value.length;
          if (got > MAX_RECORDED_STREAM) return 'read past what a tape keeps';
        }
      })().catch(() => 'broke');
      expect(outcome).toBe('broke');
      await reader.cancel().catch(() => undefined);

      const stopped = await running.stop('SIGTERM');
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(stopped.stderr).not.toMatch(/internal error|\n\s+at /);

      const events = await storedEvents(store, running.runId as string);
      const chunks = events.filter((e) => e.type === 'llm_chunk');
      // The tape holds exactly what the client was given, and no more than a tape keeps.
      const recorded = chunks.reduce((n, e) => n + (e.raw?.length ?? 0), 0);
      expect(recorded).toBe(got);
      expect(recorded).toBeLessThanOrEqual(MAX_RECORDED_STREAM);
      expect(chunks.at(-1)?.chunk).toMatchObject({ finished: true, error: expect.stringContaining('longer than a tape keeps') });
      expect(events.filter((e) => e.type === 'llm_error').map((e) => e.message)).toEqual([expect.stringContaining('longer than a tape keeps (32 MiB)')]);
      expect(events.filter((e) => e.type === 'llm_response')).toEqual([]);

      // Exported, it imports; replayed, the stream breaks after the same bytes.
      const file = await exportAndImport('long');
      const replaying = await proxy(['--replay', file]);
      const again = await postJson(replaying.url, { model: 'm', stream: true, messages: [{ role: 'user', content: 'go on forever' }] });
      const replayed = await readAll(again);
      expect(replayed).toEqual({ bytes: got, broke: true });
      expect((await replaying.stop()).code).toBe(0);
    } finally {
      await upstream.close();
    }
  }, 120_000);

  it('SIGTERM cuts every call still in flight at the end of the grace period, records each as the error its client saw, and exits', async () => {
    // `headers`: the reply's headers, then nothing; anything else: no answer at all.
    const upstream = await startUpstream((req, res) => {
      if ((req.body as string).includes('headers')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
      }
    });
    try {
      const running = await proxy(['--record', 'inflight', '--upstream', upstream.url]);
      const chat = (content: string, signal?: AbortSignal): Promise<string> =>
        postJson(running.url, { model: 'm', messages: [{ role: 'user', content }] }, signal).then(async (r) => `${r.status} ${await r.text()}`, () => 'broke');

      const abandoning = new AbortController();
      const abandoned = chat('abandoned', abandoning.signal);
      await upstream.arrived(1);
      abandoning.abort();
      expect(await abandoned).toBe('broke');
      const headersOnly = chat('headers, then nothing');
      const silent = chat('silence');
      await upstream.arrived(3);

      const stopped = await running.stop('SIGTERM');
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(stopped.stderr).toContain('requests still in flight were cut off');
      expect(await headersOnly).toBe('broke');
      expect(await silent).toBe('broke');

      const events = await storedEvents(store, running.runId as string);
      expect(errorsByRequest(events)).toEqual({
        abandoned: ['the client closed the connection'],
        'headers, then nothing': [CUT],
        silence: [CUT],
      });
      expect(events.at(-1)).toMatchObject({ type: 'run_end', state: 'COMPLETED' });
      await exportAndImport('inflight');
    } finally {
      await upstream.close();
    }
  }, 60_000);

  it('a request body over --max-body gets an HTTP 413 and goes nowhere; the default is 16 MiB, and no more when recording', async () => {
    const upstream = await startUpstream((_req, res) => json(res, 200, { object: 'list', data: [] }));
    try {
      const running = await proxy(['--record', 'bodies', '--upstream', upstream.url, '--max-body', '64K']);
      const at = (size: number): Promise<Response> => fetch(`${running.url}/embeddings`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'a'.repeat(size) });
      expect((await at(64 * 1024)).status).toBe(200);
      const over = await at(64 * 1024 + 1);
      expect(over.status).toBe(413);
      expect(((await over.json()) as { error: { code: string; message: string } }).error).toMatchObject({
        code: 'agentctl_request_too_large',
        message: 'agentctl proxy: the request body is larger than 64 KiB (--max-body)',
      });
      // Without a length up front: refused once the limit is passed.
      let sent = 0;
      const streamed = await fetch(`${running.url}/embeddings`, {
        method: 'POST',
        body: new ReadableStream<Uint8Array>({
          pull(controller) {
            sent += 16 * 1024;
            if (sent > 1024 * 1024) controller.close();
            else controller.enqueue(new Uint8Array(16 * 1024));
          },
        }),
        duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
      expect(upstream.requests).toHaveLength(1);
      expect((await running.stop()).code).toBe(0);

      const defaults = await proxy(['--record', 'default-bodies', '--upstream', upstream.url]);
      const tooBig = await fetch(`${defaults.url}/embeddings`, { method: 'POST', body: new Uint8Array(MAX_RECORDED_REQUEST + 1) });
      expect(tooBig.status).toBe(413);
      expect(await tooBig.text()).toContain(`larger than ${MAX_RECORDED_REQUEST / (1024 * 1024)} MiB`);
      expect(upstream.requests).toHaveLength(1);
      expect((await defaults.stop()).code).toBe(0);
    } finally {
      await upstream.close();
    }
    const tooMuch = await cli(['proxy', '--record', 'x', '--upstream', 'http://127.0.0.1:9/v1', '--max-body', '17M']);
    expect(tooMuch.code).toBe(2);
    expect(tooMuch.stderr).toContain('--max-body can be at most 16 MiB when recording');
    const notASize = await cli(['proxy', '--replay', 'x', '--max-body', 'lots']);
    expect(notASize.code).toBe(2);
    expect(notASize.stderr).toContain("--max-body must be a size in bytes, like 4M or 512K, got 'lots'");
  }, 60_000);

  it('drops every header that carries the client\'s credentials: the upstream sees only its own key, and the store none of them', async () => {
    const upstream = await startUpstream((_req, res) => json(res, 200, completion('fine')));
    const credentials: Record<string, string> = {};
    for (const name of ['authorization', 'proxy-authorization', 'cookie', 'api-key', 'x-api-key', 'x-goog-api-key', 'x-auth-token', 'ocp-apim-subscription-key']) {
      credentials[name] = `client-secret-${name}-4c1f9e`;
    }
    try {
      const running = await proxy(['--record', 'headers', '--upstream', upstream.url, '--api-key-env', KEY_ENV]);
      const reply = await raw(running.port, '/v1/chat/completions', { ...credentials, 'content-type': 'application/json' }, JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
      expect(reply.status).toBe(200);
      expect((await running.stop()).code).toBe(0);
    } finally {
      await upstream.close();
    }
    const seen = upstream.requests[0]?.headers ?? {};
    expect(seen.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    for (const [name, value] of Object.entries(credentials)) {
      if (name !== 'authorization') expect(seen[name], name).toBeUndefined();
      expect(JSON.stringify(seen)).not.toContain(value);
    }
    for (const file of await filesUnder(store)) {
      const bytes = await readFile(file);
      for (const value of Object.values(credentials)) expect(bytes.includes(value), `${value} in ${file}`).toBe(false);
    }
  });

  it('refuses with an HTTP 403 a request for another host name (DNS rebinding) or from a web page, and answers programs on this machine', async () => {
    const upstream = await startUpstream((_req, res) => json(res, 200, { object: 'list', data: [] }));
    try {
      const running = await proxy(['--record', 'hosts', '--upstream', upstream.url, '--allow-host', 'proxy.internal']);
      const port = running.port;
      const get = (headers: Record<string, string>): Promise<{ status: number; body: string }> => raw(port, '/v1/models', headers);
      const host = 'agentctl_forbidden_host';
      const page = 'agentctl_forbidden_origin';
      const refused: Array<[string, string, { status: number; body: string }]> = [
        ['another name', host, await get({ host: `evil.example:${port}` })],
        ['another name, no port', host, await get({ host: 'evil.example' })],
        ['a localhost look-alike', host, await get({ host: `localhost.evil.example:${port}` })],
        ['an Origin', page, await get({ host: `127.0.0.1:${port}`, origin: 'https://evil.example' })],
        ['a text/plain POST from a page', page, await raw(port, '/v1/chat/completions', { host: `127.0.0.1:${port}`, origin: 'null', 'content-type': 'text/plain' }, '{}')],
        ['Sec-Fetch-Site: cross-site', page, await get({ host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site' })],
      ];
      for (const [what, code, reply] of refused) {
        expect(reply.status, what).toBe(403);
        expect((JSON.parse(reply.body) as { error: { code: string } }).error.code, what).toBe(code);
      }
      expect(upstream.requests).toHaveLength(0);

      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `proxy.internal:${port}`, 'LOCALHOST']) {
        expect((await get({ host })).status, host).toBe(200);
      }
      expect((await get({ host: `127.0.0.1:${port}`, 'sec-fetch-site': 'none' })).status).toBe(200);
      expect(upstream.requests).toHaveLength(6);

      const stopped = await running.stop();
      expect(stopped.code).toBe(0);
      expect(stopped.stderr).toContain(`agentctl proxy: refused a request for host 'evil.example:${port}': not a name of this proxy`);
      expect(stopped.stderr).toContain('agentctl proxy: refused a request from a web page (Origin: https://evil.example)');
    } finally {
      await upstream.close();
    }
  });

  it('records a malformed request so that its export imports and `proxy --replay` of the file answers it as recorded', async () => {
    const upstream = await startUpstream((_req, res) => json(res, 400, { error: { message: 'Invalid messages', type: 'invalid_request_error' } }));
    let nested: unknown = 'deep';
    for (let i = 0; i < 70; i++) nested = { a: nested };
    const bodies = [
      { model: 'm', messages: [null] },
      { model: 'm', messages: [{ role: 'tool', content: 'a result with no call id' }] },
      { model: 'm', messages: [{ role: 'narrator', content: 'no such role' }] },
      { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 7 } }] },
      { model: 'm', messages: [{ role: 'user', content: 'hi' }], response_format: nested },
    ];
    const recorded: string[] = [];
    try {
      const running = await proxy(['--record', 'malformed', '--upstream', upstream.url]);
      for (const body of bodies) {
        const reply = await postJson(running.url, body);
        recorded.push(`${reply.status} ${await reply.text()}`);
      }
      expect((await running.stop()).code).toBe(0);
    } finally {
      await upstream.close();
    }
    expect(recorded.every((r) => r.startsWith('400 '))).toBe(true);
    const file = await exportAndImport('malformed');
    const replaying = await proxy(['--replay', file]);
    for (const [i, body] of bodies.entries()) {
      const reply = await postJson(replaying.url, body);
      expect(`${reply.status} ${await reply.text()}`, JSON.stringify(body).slice(0, 80)).toBe(recorded[i]);
    }
    expect((await replaying.stop()).code).toBe(0);
  });

  it('a whole model reply larger than a tape keeps is refused with a 502 clients do not retry, recorded so, and replayed the same', async () => {
    const big = JSON.stringify(completion('y'.repeat(MAX_RECORDED_BODY)));
    const upstream = await startUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(big);
    });
    let refused = '';
    try {
      const running = await proxy(['--record', 'big-reply', '--upstream', upstream.url]);
      const reply = await postJson(running.url, { model: 'm', messages: [{ role: 'user', content: 'say a lot' }] });
      expect(reply.status).toBe(502);
      expect(reply.headers.get('x-should-retry')).toBe('false');
      refused = await reply.text();
      expect(JSON.parse(refused)).toMatchObject({ error: { code: 'agentctl_reply_too_large' } });
      expect((await running.stop()).code).toBe(0);
    } finally {
      await upstream.close();
    }
    const file = await exportAndImport('big-reply');
    const replaying = await proxy(['--replay', file]);
    const again = await postJson(replaying.url, { model: 'm', messages: [{ role: 'user', content: 'say a lot' }] });
    expect(again.status).toBe(502);
    expect(await again.json()).toEqual(JSON.parse(refused));
    expect((await replaying.stop()).code).toBe(0);
  }, 60_000);
});

function postJson(base: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...(signal === undefined ? {} : { signal }) });
}

async function readAll(response: Response): Promise<{ bytes: number; broke: boolean }> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let bytes = 0;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return { bytes, broke: false };
      bytes += next.value.length;
    }
  } catch {
    return { bytes, broke: true };
  }
}

/** Export the run to a tape file and import that into a fresh store; both must succeed. Returns the file. */
async function exportAndImport(run: string): Promise<string> {
  const file = join(dir, `tape-${files++}.tape.jsonl`);
  const exported = await cli(['export', run, '-o', file]);
  expect(exported.code, exported.stderr).toBe(0);
  const imported = await cli(['import', file], join(dir, `imported-${files}`));
  expect(imported.code, imported.stderr).toBe(0);
  return file;
}

/** The messages of each call's `llm_error`s, by the text of its request's first message. */
function errorsByRequest(events: readonly RunEvent[]): Record<string, string[]> {
  const contentOf = new Map<number, string>();
  for (const event of events) if (event.type === 'llm_request') contentOf.set(event.iteration, String(event.append[0]?.content));
  const out: Record<string, string[]> = {};
  for (const event of events) {
    if (event.type !== 'llm_error') continue;
    const content = contentOf.get(event.iteration) ?? `iteration ${event.iteration}`;
    (out[content] ??= []).push(event.message);
  }
  return out;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function completion(content: string): Record<string, unknown> {
  return { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] };
}

function sseChunk(content: string): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
}
