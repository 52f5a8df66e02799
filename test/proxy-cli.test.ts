/**
 * `agentctl proxy` end to end: the real binary, the scripted OpenAI-compatible server as the
 * upstream, clients that only know a base URL (plain fetch, the openai SDK). Record through it,
 * stop it with SIGTERM, replay the run with the upstream gone, refuse what the tape has no match
 * for, record what is new in new-episodes, replay-or-record a tape by whether it exists, and keep a
 * run killed with SIGKILL replayable.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TapeStore } from '../src/tape/tape-store.js';
import { runCli } from './support/cli.js';
import { startMockLlm } from './support/mock-llm.js';
import { filesUnder } from './support/files.js';
import { killProxies, startProxy as startRunningProxy, type RunningProxy } from './support/proxy.js';

const UPSTREAM_KEY = 'upstream-marker-7d3f9a2b1c44';
const CLIENT_KEY = 'client-key-should-not-leak';
/** Not a secret-looking name: the key is redacted because the proxy hands it to the recorder. */
const KEY_ENV = 'MY_LLM_AUTH';
const ENV = { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, AGENTCTL_STORE: undefined, [KEY_ENV]: UPSTREAM_KEY };

let dir: string;
let store: string;

const startProxy = (args: string[]): Promise<RunningProxy> => startRunningProxy(args, { store, env: ENV });

const cli = (args: string[]): ReturnType<typeof runCli> => runCli(['--store', store, ...args], { env: ENV });

async function show(ref: string): Promise<{ run: Record<string, unknown>; eventTypes: Record<string, number> }> {
  const result = await cli(['show', ref, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { run: Record<string, unknown>; eventTypes: Record<string, number> };
}

/** A curl-like call: a JSON POST with the client's own key. */
async function postChat(base: string, content: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${CLIENT_KEY}` },
    body: JSON.stringify({ model: 'mock-model', messages: [{ role: 'user', content }] }),
  });
  return { status: response.status, body: await response.json() };
}

/** What one agent session does through a base URL: a curl-like call, then the SDK plain, streamed, and a model listing. */
async function session(base: string): Promise<{ curl: unknown; plain: unknown; chunks: unknown[]; text: string; models: unknown }> {
  const curl = await postChat(base, 'hello');
  expect(curl.status).toBe(200);
  const client = new OpenAI({ baseURL: base, apiKey: CLIENT_KEY, maxRetries: 0 });
  const plain = await client.chat.completions.create({
    model: 'mock-model',
    messages: [{ role: 'user', content: `what is 2+2? (my key is ${UPSTREAM_KEY})` }],
  });
  const stream = await client.chat.completions.create({ model: 'mock-model', stream: true, messages: [{ role: 'user', content: 'count to three' }] });
  const chunks: unknown[] = [];
  let text = '';
  for await (const chunk of stream) {
    chunks.push(chunk);
    text += chunk.choices[0]?.delta.content ?? '';
  }
  const models = (await client.models.list()).data;
  return { curl: curl.body, plain, chunks, text, models };
}

interface MismatchError {
  code: string;
  message: string;
  nearest: { iteration: number; hash: string };
  difference: { path: string; recorded: unknown; replayed: unknown };
}

const STEPS = [{ content: 'Hi there.' }, { content: 'It is 4.' }, { content: 'one two three' }];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-proxy-'));
  store = join(dir, 'store');
});

afterEach(killProxies);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('agentctl proxy', () => {
  let recorded: Awaited<ReturnType<typeof session>>;
  let recordedRunId = '';

  it('records a session through it (fetch and the openai SDK, plain and streamed) onto a complete run with source proxy', async () => {
    const llm = await startMockLlm(STEPS);
    try {
      const proxy = await startProxy(['--record', 'rec', '--upstream', llm.baseURL, '--api-key-env', KEY_ENV]);
      expect(proxy.url).toBe(`http://127.0.0.1:${proxy.port}/v1`);
      expect(proxy.runId).toMatch(/^[0-9A-Z]{26}$/);
      recordedRunId = proxy.runId as string;
      recorded = await session(proxy.url);
      expect(recorded.text).toBe('one two three');
      expect(recorded.chunks.length).toBeGreaterThan(2);

      // The upstream got the key from the environment, never the client's.
      expect(llm.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions', '/v1/chat/completions', '/v1/models']);
      for (const request of llm.requests) {
        expect(request.headers['authorization']).toBe(`Bearer ${UPSTREAM_KEY}`);
        expect(JSON.stringify(request.headers)).not.toContain(CLIENT_KEY);
      }
      llm.assertConsumed();

      const stopped = await proxy.stop('SIGTERM');
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(stopped.stderr).toContain(`agentctl proxy: recording run ${recordedRunId} (rec) from ${llm.baseURL} — set OPENAI_BASE_URL=${proxy.url}`);
      expect(stopped.stderr).toMatch(/stopped; run \w+ complete: 3 model calls recorded, 4 requests/);
      const summary = JSON.parse(stopped.stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
      expect(summary).toMatchObject({ stopped: true, mode: 'record', runId: recordedRunId, recorded: 3, requests: 4 });
    } finally {
      await llm.close();
    }

    const shown = await show('rec');
    expect(shown.run).toMatchObject({ id: recordedRunId, name: 'rec', kind: 'record', source: 'proxy', status: 'complete', finalState: 'COMPLETED', baseUrl: llm.baseURL });
    expect(shown.eventTypes).toMatchObject({ llm_request: 3, llm_response: 3, http_exchange: 1, run_end: 1 });
  });

  it('keeps neither the client key nor the upstream key in any byte of the store', async () => {
    const files = await filesUnder(store);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const bytes = await readFile(file);
      expect(bytes.includes(CLIENT_KEY), file).toBe(false);
      expect(bytes.includes(UPSTREAM_KEY), file).toBe(false);
      expect(bytes.includes(UPSTREAM_KEY.slice(4)), file).toBe(false);
    }
    // LevelDB may compress its tables: the decoded events too.
    const db = await TapeStore.open(store, { create: false });
    try {
      const events = [];
      for await (const event of db.readEvents(recordedRunId)) events.push(event);
      const text = JSON.stringify(events);
      expect(text).not.toContain(CLIENT_KEY);
      expect(text).not.toContain(UPSTREAM_KEY);
      expect(text).toContain('[REDACTED]');
    } finally {
      await db.close();
    }
  });

  it('replays the run with no upstream: the same bodies and stream; an unmatched request is an HTTP 400 naming the nearest call and field', async () => {
    const proxy = await startProxy(['--replay', 'rec', '--api-key-env', KEY_ENV]);
    expect(proxy.runId).toBeNull();
    expect(proxy.tape).toBe(recordedRunId);

    // Refused before anything is served: the nearest recorded call is the first one.
    const unmatched = await postChat(proxy.url, 'hello, but different');
    expect(unmatched.status).toBe(400);
    const error = (unmatched.body as { error: MismatchError }).error;
    expect(error.code).toBe('agentctl_replay_mismatch');
    expect(error.nearest.iteration).toBe(0);
    expect(error.difference).toEqual({ path: 'messages[0].content', recorded: 'hello', replayed: 'hello, but different' });
    expect(error.message).toContain(`differs from recorded call 0 at ${error.difference.path}`);

    const replayed = await session(proxy.url);
    expect(replayed).toEqual(recorded);

    const stopped = await proxy.stop('SIGINT');
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain(`agentctl proxy: replaying run ${recordedRunId} (rec), strict — set OPENAI_BASE_URL=${proxy.url}`);
    expect(stopped.stderr).toContain('agentctl proxy: refused POST /v1/chat/completions: agentctl replay (strict): request 0 differs from recorded call 0');
    const summary = JSON.parse(stopped.stdout.trim().split('\n').at(-1) as string) as Record<string, unknown>;
    expect(summary).toMatchObject({ mode: 'replay', runId: null, tapeRunId: recordedRunId, served: 3, refused: 1, unused: 0 });
    expect(stopped.stderr).not.toContain('agentctl proxy: divergence');
    expect(stopped.stderr).toContain('stopped; 3 calls served from the tape, 1 refused, 0 recorded calls not asked for');
  });

  it('--no-strict serves an unmatched request the next recorded call and reports the divergence', async () => {
    const proxy = await startProxy(['--replay', 'rec', '--no-strict']);
    const reply = await postChat(proxy.url, 'hello, but different');
    expect(reply).toEqual({ status: 200, body: recorded.curl });
    const stopped = await proxy.stop();
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain('agentctl proxy: divergence: request 0 differs from recorded call 0 at messages[0].content');
    expect(stopped.stderr).toContain('stopped; 1 call served from the tape, 0 refused, 1 divergence served by position, 2 recorded calls not asked for');
    expect(JSON.parse(stopped.stdout.trim().split('\n').at(-1) as string)).toMatchObject({ served: 1, refused: 0, divergences: 1, unused: 2 });
  });

  it('new-episodes: serves what matches, sends what is new upstream, and records both as a new run of the tape', async () => {
    const llm = await startMockLlm([{ content: 'A new answer.' }]);
    let newRunId = '';
    try {
      const proxy = await startProxy(['--mode', 'new-episodes', '--replay', 'rec', '--upstream', llm.baseURL, '--api-key-env', KEY_ENV]);
      newRunId = proxy.runId as string;
      expect(newRunId).toMatch(/^[0-9A-Z]{26}$/);
      const known = await postChat(proxy.url, 'hello');
      expect(known.body).toEqual(recorded.curl);
      expect(llm.requests).toHaveLength(0);
      const fresh = await postChat(proxy.url, 'something new');
      expect(fresh.status).toBe(200);
      expect((fresh.body as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('A new answer.');
      expect(llm.requests).toHaveLength(1);
      expect(llm.requests[0]?.headers['authorization']).toBe(`Bearer ${UPSTREAM_KEY}`);

      const stopped = await proxy.stop();
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(stopped.stderr).toMatch(/request 1 is not on the tape \(request 1 differs from recorded call 1 at .*\); sent upstream/);
      expect(JSON.parse(stopped.stdout.trim().split('\n').at(-1) as string)).toMatchObject({ mode: 'new-episodes', runId: newRunId, served: 1, upstream: 1, recorded: 2 });
    } finally {
      await llm.close();
    }
    const shown = await show(newRunId);
    expect(shown.run).toMatchObject({ kind: 'replay', source: 'proxy', parentId: recordedRunId, status: 'complete', finalState: 'COMPLETED' });
    expect(shown.eventTypes).toMatchObject({ llm_request: 2, llm_response: 2 });

    // The new run serves both, with no upstream at all.
    const proxy = await startProxy(['--replay', newRunId]);
    try {
      expect((await postChat(proxy.url, 'hello')).body).toEqual(recorded.curl);
      const fresh = await postChat(proxy.url, 'something new');
      expect((fresh.body as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('A new answer.');
    } finally {
      expect((await proxy.stop()).code).toBe(0);
    }
  });

  it('replay-or-record: replays a run that exists (nothing upstream), records onto a name that does not', async () => {
    const llm = await startMockLlm([{ content: 'Recorded once.' }]);
    try {
      // By id: the name `rec` now finds the new-episodes run above, which took the tape's name.
      const existing = await startProxy(['--mode', 'replay-or-record', '--replay', recordedRunId, '--upstream', llm.baseURL]);
      expect(existing.runId).toBeNull();
      expect(existing.tape).toBe(recordedRunId);
      expect((await postChat(existing.url, 'hello')).body).toEqual(recorded.curl);
      const stopped = await existing.stop();
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(JSON.parse(stopped.stdout.trim().split('\n').at(-1) as string)).toMatchObject({ mode: 'replay', served: 1 });
      expect(llm.requests).toHaveLength(0);

      const absent = await startProxy(['--mode', 'replay-or-record', '--replay', 'once', '--upstream', llm.baseURL]);
      expect(absent.runId).toMatch(/^[0-9A-Z]{26}$/);
      const first = await postChat(absent.url, 'hello once');
      expect((first.body as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('Recorded once.');
      const done = await absent.stop();
      expect(done.code, done.stderr).toBe(0);
      expect(done.stderr).toContain('(once) (no such tape yet)');
      expect(JSON.parse(done.stdout.trim().split('\n').at(-1) as string)).toMatchObject({ mode: 'record', recorded: 1 });
    } finally {
      await llm.close();
    }
    expect((await show('once')).run).toMatchObject({ name: 'once', kind: 'record', source: 'proxy', status: 'complete' });

    // Now it exists: the same command replays it, offline.
    const again = await startProxy(['--mode', 'replay-or-record', '--replay', 'once', '--upstream', llm.baseURL]);
    const replayed = await postChat(again.url, 'hello once');
    expect((replayed.body as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('Recorded once.');
    expect(JSON.parse((await again.stop()).stdout.trim().split('\n').at(-1) as string)).toMatchObject({ mode: 'replay', served: 1, unused: 0 });

    // A tape there is needs no upstream: it replays.
    const offline = await startProxy(['--mode', 'replay-or-record', '--replay', 'once']);
    expect(((await postChat(offline.url, 'hello once')).body as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('Recorded once.');
    const stoppedOffline = await offline.stop();
    expect(stoppedOffline.code, stoppedOffline.stderr).toBe(0);
    expect(JSON.parse(stoppedOffline.stdout.trim().split('\n').at(-1) as string)).toMatchObject({ mode: 'replay', served: 1, unused: 0 });
  });

  it('records onto a tape file, written whole when it stops, that replays', async () => {
    const llm = await startMockLlm([{ content: 'Onto a file.' }]);
    const file = join(dir, 'proxied.tape.jsonl');
    try {
      const proxy = await startProxy(['--record', file, '--upstream', llm.baseURL]);
      await postChat(proxy.url, 'to the file');
      const stopped = await proxy.stop();
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(stopped.stderr).toContain(`written to ${file}`);
    } finally {
      await llm.close();
    }
    const shown = await show(file);
    expect(shown.run).toMatchObject({ source: 'proxy', status: 'complete' });
    const proxy = await startProxy(['--replay', file]);
    const reply = await postChat(proxy.url, 'to the file');
    expect((reply.body as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('Onto a file.');
    expect((await proxy.stop()).code).toBe(0);
  });

  it('a proxy killed with SIGKILL leaves an incomplete run that still replays', async () => {
    const llm = await startMockLlm([{ content: 'Before the kill.' }]);
    let answer: unknown;
    try {
      const proxy = await startProxy(['--record', 'killed', '--upstream', llm.baseURL]);
      answer = (await postChat(proxy.url, 'hello')).body;
      const killed = await proxy.stop('SIGKILL');
      expect(killed.signal).toBe('SIGKILL');
    } finally {
      await llm.close();
    }
    const shown = await show('killed');
    expect(shown.run).toMatchObject({ name: 'killed', source: 'proxy', status: 'incomplete' });
    expect(shown.run['finalState']).toBeUndefined();

    const proxy = await startProxy(['--replay', 'killed']);
    try {
      expect((await postChat(proxy.url, 'hello')).body).toEqual(answer);
      const past = await postChat(proxy.url, 'one more');
      expect(past.status).toBe(400);
      expect((past.body as { error: { code: string } }).error.code).toBe('agentctl_tape_exhausted');
    } finally {
      expect((await proxy.stop()).code).toBe(0);
    }
  });

  it('a stop lets the request in flight finish before the run is ended', async () => {
    const llm = await startMockLlm([{ content: 'Slow but complete.', delayMs: 700 }]);
    try {
      const proxy = await startProxy(['--record', 'graceful', '--upstream', llm.baseURL]);
      const pending = postChat(proxy.url, 'take your time');
      while (llm.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const stopping = proxy.stop('SIGTERM');
      const reply = await pending;
      expect(reply.status).toBe(200);
      expect((reply.body as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('Slow but complete.');
      const stopped = await stopping;
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(stopped.stderr).toContain('1 model call recorded');
    } finally {
      await llm.close();
    }
    const shown = await show('graceful');
    expect(shown.run).toMatchObject({ status: 'complete', finalState: 'COMPLETED', totals: { llmCalls: 1 } });
    expect(shown.eventTypes).toMatchObject({ llm_request: 1, llm_response: 1, run_end: 1 });
  });

  it('a stream still running when the grace period ends is cut, and recorded as the broken stream the client saw', async () => {
    const gated = await gatedStreamServer(); // it never sends more than its first event unless opened
    try {
      const proxy = await startProxy(['--record', 'cut', '--upstream', gated.baseURL]);
      const response = await fetch(`${proxy.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'stream' }], stream: true }),
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('first ');
      const stopped = await proxy.stop('SIGTERM');
      expect(stopped.code, stopped.stderr).toBe(0);
      // The client's stream broke.
      const rest = await (async () => {
        for (;;) if ((await reader.read()).done) return 'ended';
      })().catch(() => 'broke');
      expect(rest).toBe('broke');
    } finally {
      await gated.close();
    }
    const shown = await show('cut');
    expect(shown.run).toMatchObject({ status: 'complete' });
    expect(shown.eventTypes, JSON.stringify(shown.eventTypes)).toMatchObject({ llm_request: 1, llm_error: 1 });
    expect(shown.eventTypes.llm_response).toBeUndefined();
  }, 15_000);

  it.each(['record', 'passthrough'] as const)('%s: a stream reaches the client event by event, as the upstream sends it', async (mode) => {
    const gated = await gatedStreamServer();
    try {
      const proxy = await startProxy(mode === 'record' ? ['--record', 'gated', '--upstream', gated.baseURL] : ['--mode', 'passthrough', '--upstream', gated.baseURL]);
      const client = new OpenAI({ baseURL: proxy.url, apiKey: CLIENT_KEY, maxRetries: 0 });
      const stream = await client.chat.completions.create({ model: 'm', stream: true, messages: [{ role: 'user', content: 'go' }] });
      let text = '';
      for await (const chunk of stream) {
        const piece = chunk.choices[0]?.delta.content ?? '';
        text += piece;
        // The upstream sends the rest only once the client has the first piece: a buffering proxy would hang here.
        if (piece === 'first ') gated.open();
      }
      expect(text).toBe('first second');
      expect(gated.authorization()).toBeUndefined();
      const stopped = await proxy.stop();
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(stopped.stderr).toContain(mode === 'record' ? '1 model call recorded' : '1 request forwarded, nothing recorded');
    } finally {
      await gated.close();
    }
  });

  describe('usage errors (exit 2, one line)', () => {
    it.each([
      [[], /say what to proxy/],
      [['--record', 'x'], /record mode needs --upstream/],
      [['--mode', 'record', '--upstream', 'http://127.0.0.1:9/v1'], /record mode needs a name/],
      [['--mode', 'replay'], /replay mode needs a tape: --replay/],
      [['--replay', 'rec', '--upstream', 'http://127.0.0.1:9/v1'], /replay mode sends nothing upstream/],
      [['--record', 'x', '--upstream', 'not a url'], /--upstream is not a URL/],
      [['--record', 'x', '--upstream', 'http://127.0.0.1:9/v1'], /upstream http:\/\/127\.0\.0\.1:9 is not reachable/],
      [['--mode', 'new-episodes', '--replay', 'rec', '--upstream', 'http://127.0.0.1:9/v1', '--no-strict'], /do not go with new-episodes/],
      [['--mode', 'new-episodes', '--record', 'x', '--upstream', 'http://127.0.0.1:9/v1'], /--record does not go with new-episodes/],
      [['--mode', 'replay-or-record', '--upstream', 'http://127.0.0.1:9/v1'], /replay-or-record mode needs a tape/],
      [['--mode', 'replay-or-record', '--replay', 'never-recorded'], /replay-or-record mode needs --upstream/],
      [['--mode', 'once'], /--mode|argument 'once' is invalid/],
      [['--record', 'x', '--replay', 'rec'], /--record and --replay do not go together/],
      [['--replay', 'rec', '--port', 'eighty'], /--port must be a port number/],
      [['--replay', 'rec', '--host', ''], /--host must be an IP address or a host name, got ''/],
      [['--replay', 'rec', '--host', 'http://x'], /--host must be an IP address or a host name/],
    ])('%j', async (args, message) => {
      const result = await cli(['proxy', ...args]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
    });

    it('a port in use', async () => {
      const busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      try {
        const result = await cli(['proxy', '--replay', 'rec', '--port', String((busy.address() as AddressInfo).port)]);
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(/port \d+ on 127\.0\.0\.1 is already in use/);
      } finally {
        await new Promise((resolve) => busy.close(resolve));
      }
    });

    it('an unknown run', async () => {
      const result = await cli(['proxy', '--replay', 'no-such-run']);
      expect(result.code).toBe(10);
    });
  });
});

/** An upstream that sends the first content event of a stream, then the rest only when `open()` is called. */
async function gatedStreamServer(): Promise<{ baseURL: string; open(): void; authorization(): string | undefined; close(): Promise<void> }> {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let authorization: string | undefined = 'not asked';
  const event = (delta: Record<string, unknown>, finish: string | null = null): string =>
    `data: ${JSON.stringify({ id: 'chatcmpl-gated', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server: Server = createServer((req, res) => {
    authorization = req.headers.authorization;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event({ role: 'assistant', content: 'first ' }));
      void gate.then(() => {
        res.write(event({ content: 'second' }));
        res.write(event({}, 'stop'));
        res.end('data: [DONE]\n\n');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    open: () => open(),
    // No key in the environment for these runs (the default $OPENAI_API_KEY is unset), and the client's is never sent.
    authorization: () => authorization,
    close: () =>
      new Promise<void>((resolve) => {
        open();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
