/**
 * Calls that are not model calls (`http_exchange`), recorded and replayed at the transport with the
 * real `openai` SDK against a real HTTP server on 127.0.0.1 and a real LevelDB store:
 *
 * - a reply that is not text (audio, a file's content) and a multipart upload keep their bytes, live
 *   and on replay (also from an exported tape file);
 * - a streamed reply reaches the client as it arrives (the server sends the rest only once the
 *   client has read the first part), and is recorded when it ends; one the client stops reading is
 *   recorded as far as it arrived; one larger than a tape keeps is passed on whole, recorded cut short;
 * - credentials in a query string are in no byte of the store, and a replay of the same URL matches;
 * - a tape whose reply could not be served (a status below 200, a bad header) is refused when read (exit 9).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TapeFormatError } from '../src/core/errors.js';
import type { HttpExchangeEvent, RunEvent, WarningEvent } from '../src/core/events.js';
import { MAX_RECORDED_BODY } from '../src/llm/transport/http-reply.js';
import { record, replay } from '../src/library/record-replay.js';
import { runEventSchema } from '../src/tape/schema.js';
import { openTapeFile, validateTapeFile, writeTapeFile } from '../src/tape/tape-file.js';
import { TapeStore } from '../src/tape/tape-store.js';
import { runCli } from './support/cli.js';
import { filesUnder } from './support/files.js';
import { storedEvents } from './support/stored-events.js';

const API_KEY = 'sk-test-exchange-0123456789abcdef';
const QUERY_KEY = 'querykey-0123456789abc';
/** Key-shaped: found by the redactor whatever its parameter is called. */
const QUERY_SECRET = 'sk-cursorsecret0123456789';

/** Every byte value: not text, and not valid UTF-8. */
const AUDIO = new Uint8Array(256).map((_, i) => i);
/** A file's content: bytes that are not valid UTF-8, with a NUL and a lone continuation byte. */
const FILE = new Uint8Array(Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.from([0x00, 0x80, 0xff, 0xfe]), Buffer.alloc(70_000, 0xc3)]));
const UPLOAD = new Uint8Array(512).map((_, i) => (i * 7) % 256);
/** Bytes whose base64 has a Google-API-key-shaped run in it (`/AIza` and 35 letters): the redactor would cut it. */
const LOOKALIKE = new Uint8Array(Buffer.from('AAA/AIzaSyAbcdefghijklmnopqrstuvwxyz0123456789AAAA', 'base64'));

/** Holds a server's reply until the test opens it. */
class Gate {
  private open: () => void = () => {};
  readonly opened = new Promise<void>((resolve) => (this.open = resolve));
  release(): void {
    this.open();
  }
}

interface TestServer {
  baseURL: string;
  /** What the server was sent, by path with query. */
  received: { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer }[];
  /** The gate the next streamed reply waits at after its first part. */
  gate: Gate;
  close(): Promise<void>;
}

const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const RUN = { id: 'run_1', object: 'thread.run', thread_id: 't1', assistant_id: 'asst_1', status: 'queued' };
const STREAM_FIRST = sse('thread.run.created', RUN);
const STREAM_REST = sse('thread.run.completed', { ...RUN, status: 'completed' }) + 'event: done\ndata: [DONE]\n\n';
const SLOW_FIRST = Buffer.alloc(1000, 0x01);
const SLOW_REST = Buffer.alloc(3000, 0x02);

async function startServer(): Promise<TestServer> {
  const received: TestServer['received'] = [];
  const state = { gate: new Gate() };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const body = Buffer.concat(parts);
    received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const json = (value: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_exchange' });
      res.end(JSON.stringify(value));
    };
    switch (`${req.method} ${url.pathname}`) {
      case 'POST /v1/audio/speech':
        res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(AUDIO.length) });
        res.end(Buffer.from(AUDIO));
        return;
      case 'GET /v1/files/file-1/content':
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(FILE.length) });
        res.end(Buffer.from(FILE));
        return;
      case 'GET /v1/latin1':
        // Says it is text, but is not UTF-8.
        res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
        res.end(Buffer.from('caf\u00e9 cr\u00e8me', 'latin1'));
        return;
      case 'POST /v1/files': {
        const found = body.includes(Buffer.from(UPLOAD));
        json({ id: found ? 'file-up' : 'file-garbled', object: 'file', bytes: UPLOAD.length, created_at: 1, filename: 'a.bin', purpose: 'assistants' });
        return;
      }
      case 'GET /v1/models':
        json({ object: 'list', data: [{ id: 'gpt-test', object: 'model', created: 1, owned_by: 'test' }] });
        return;
      case 'POST /v1/threads/t1/runs': {
        const gate = state.gate;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(STREAM_FIRST);
        await gate.opened;
        res.end(STREAM_REST);
        return;
      }
      case 'GET /v1/slow': {
        const gate = state.gate;
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.write(SLOW_FIRST);
        await gate.opened;
        if (!res.destroyed) res.end(SLOW_REST);
        return;
      }
      case 'GET /v1/lookalike':
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(Buffer.from(LOOKALIKE));
        return;
      case 'GET /v1/leaky':
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`key=${API_KEY};`), Buffer.from([0x00, 0x80])]));
        return;
      case 'GET /v1/big':
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        for (let i = 0; i < 33; i++) {
          if (!res.write(Buffer.alloc(1024 * 1024, i))) await new Promise((resolve) => res.once('drain', resolve));
        }
        res.end();
        return;
      default:
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no ${req.method} ${url.pathname}` } }));
    }
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => res.destroy(error as Error));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    received,
    get gate() {
      return state.gate;
    },
    set gate(gate: Gate) {
      state.gate = gate;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let dir: string;
let server: TestServer;
let stores = 0;
const newStore = (): string => join(dir, `store-${stores++}`);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-exchange-'));
  server = await startServer();
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});


async function exportRun(store: string, runId: string, file: string): Promise<string> {
  const opened = await TapeStore.open(store, { create: false });
  try {
    const path = join(dir, file);
    await writeTapeFile(path, await opened.getRun(runId), opened.readEvents(runId));
    return path;
  } finally {
    await opened.close();
  }
}

const exchanges = (events: RunEvent[]): HttpExchangeEvent[] => events.filter((e): e is HttpExchangeEvent => e.type === 'http_exchange');
const warnings = (events: RunEvent[]): string[] => events.filter((e): e is WarningEvent => e.type === 'warning').map((e) => e.message);
const client = (fetch: typeof globalThis.fetch, baseURL = server.baseURL): OpenAI => new OpenAI({ apiKey: API_KEY, baseURL, fetch, maxRetries: 0 });
/** Fails with `what` instead of hanging when `promise` does not settle in time. */
const within = <T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms))]);

interface BinaryResults {
  audio: Uint8Array;
  file: Uint8Array;
  uploaded: string;
  latin1: Uint8Array;
}

/** The calls of an agent that is not a chat: speech, a file's content, an upload; their bytes as it got them. */
async function binaryAgent(openai: OpenAI, fetch: typeof globalThis.fetch): Promise<BinaryResults> {
  const speech = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'hello' });
  const audio = new Uint8Array(await speech.arrayBuffer());
  const file = new Uint8Array(await (await openai.files.content('file-1')).arrayBuffer());
  const uploaded = (await openai.files.create({ file: await toFile(Buffer.from(UPLOAD), 'a.bin'), purpose: 'assistants' })).id;
  const latin1 = new Uint8Array(await (await fetch(`${openai.baseURL}/latin1`)).arrayBuffer());
  return { audio, file, uploaded, latin1 };
}

describe('a reply that is not text', () => {
  it('reaches the client byte for byte, live and on replay, and a multipart upload matches on replay', async () => {
    const store = newStore();
    const rec = await record({ tape: { store } });
    const live = await binaryAgent(client(rec.fetch), rec.fetch);
    await rec.finish();
    expect(live.audio).toEqual(AUDIO);
    expect(live.file).toEqual(FILE);
    expect(live.uploaded).toBe('file-up');
    expect(Buffer.from(live.latin1).toString('latin1')).toBe('caf\u00e9 cr\u00e8me');

    const events = await storedEvents(store, (rec.runId as string));
    for (const event of events) expect(runEventSchema.safeParse(event).success, JSON.stringify(event).slice(0, 200)).toBe(true);
    // The SDK's `fetch('data:,')` probe before the upload is not a call to a server: not recorded.
    expect(exchanges(events).map((e) => `${e.method} ${e.path}`)).toEqual(['POST /v1/audio/speech', 'GET /v1/files/file-1/content', 'POST /v1/files', 'GET /v1/latin1']);
    const [speech, content, upload, latin1] = exchanges(events);
    expect(speech?.response).toMatchObject({ status: 200, encoding: 'base64', body: Buffer.from(AUDIO).toString('base64') });
    expect(speech?.response.headers['content-type']).toBe('audio/mpeg');
    expect(content?.response).toMatchObject({ encoding: 'base64', body: Buffer.from(FILE).toString('base64') });
    expect(upload?.bodyEncoding).toBe('base64');
    expect(Buffer.from(upload?.body as string, 'base64').includes(Buffer.from(UPLOAD))).toBe(true);
    expect(latin1?.response).toMatchObject({ encoding: 'base64', body: Buffer.from('caf\u00e9 cr\u00e8me', 'latin1').toString('base64') });
    const uploadsBefore = server.received.filter((r) => r.url === '/v1/files').length;

    // Replayed from the store and from an exported tape file: the same bytes, nothing sent to the server.
    const tapeFile = await exportRun(store, (rec.runId as string), 'binary.tape.jsonl');
    for (const tape of [{ store, run: rec.runId }, tapeFile]) {
      const rep = await replay({ tape, strict: true });
      const again = await binaryAgent(client(rep.fetch, 'http://127.0.0.1:9/v1'), rep.fetch);
      await rep.finish();
      expect(again).toEqual(live);
    }
    expect(server.received.filter((r) => r.url === '/v1/files')).toHaveLength(uploadsBefore);
  });
});

describe('a binary body and the redactor', () => {
  it('a secret in the bytes is redacted; base64 that only looks like one is kept valid (its bytes zeroed, with a warning)', async () => {
    const store = newStore();
    const rec = await record({ tape: { store } });
    const openai = client(rec.fetch);
    const leaky = Buffer.from(await (await openai.get<Response>('/leaky', { __binaryResponse: true })).arrayBuffer());
    expect(leaky.includes(API_KEY)).toBe(true);
    const lookalike = new Uint8Array(await (await rec.fetch(`${server.baseURL}/lookalike`)).arrayBuffer());
    expect(lookalike).toEqual(LOOKALIKE);
    await rec.finish();

    const events = await storedEvents(store, (rec.runId as string));
    for (const event of events) expect(runEventSchema.safeParse(event).success, JSON.stringify(event).slice(0, 300)).toBe(true);
    const [leakyExchange, lookalikeExchange] = exchanges(events);
    const kept = Buffer.from(leakyExchange?.response.body as string, 'base64');
    expect(kept.includes(API_KEY)).toBe(false);
    expect(kept.toString('latin1')).toContain('key=[REDACTED];');
    expect(kept.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xfe]));
    const zeroed = Buffer.from(lookalikeExchange?.response.body as string, 'base64');
    expect(zeroed.length).toBe(LOOKALIKE.length);
    expect(zeroed.toString('base64')).not.toMatch(/AIza/);
    expect(warnings(events).join('\n')).toMatch(/some bytes of the reply to GET \/v1\/lookalike are recorded as zeros/);

    // The exported tape is valid, and a replay serves what was kept.
    const tapeFile = await exportRun(store, (rec.runId as string), 'lookalike.tape.jsonl');
    expect(await validateTapeFile(await openTapeFile(tapeFile))).toBe(events.length);
    const rep = await replay({ tape: tapeFile });
    expect(Buffer.from(await (await rep.fetch('http://127.0.0.1:9/v1/leaky')).arrayBuffer())).toEqual(kept);
    expect(Buffer.from(await (await rep.fetch('http://127.0.0.1:9/v1/lookalike')).arrayBuffer())).toEqual(zeroed);
    await rep.finish();
  });
});

describe('a streamed reply', () => {
  it('reaches the client as it arrives (the server sends the rest only once the client has read the start), recorded when it ends', async () => {
    const store = newStore();
    const rec = await record({ tape: { store } });
    const gate = (server.gate = new Gate());
    const stream = await within(client(rec.fetch).beta.threads.runs.create('t1', { assistant_id: 'asst_1', stream: true }), 'the stream to start');
    const seen: string[] = [];
    const read = (async () => {
      for await (const event of stream) {
        seen.push(event.event);
        if (seen.length === 1) gate.release();
      }
    })();
    await within(read, 'the first event reached the client before the server sent the rest');
    expect(seen).toEqual(['thread.run.created', 'thread.run.completed']);

    // A slow download, read piece by piece: its first bytes arrive while the server holds the rest.
    const slowGate = (server.gate = new Gate());
    const download = await within(rec.fetch(`${server.baseURL}/slow`), 'the download to start');
    const reader = (download.body as ReadableStream<Uint8Array>).getReader();
    const first = await within(reader.read(), 'the first piece of a chunked download');
    expect(first.value?.[0]).toBe(0x01);
    slowGate.release();
    const pieces: Uint8Array[] = [first.value as Uint8Array];
    for (let next = await reader.read(); !next.done; next = await reader.read()) pieces.push(next.value);
    expect(Buffer.concat(pieces)).toEqual(Buffer.concat([SLOW_FIRST, SLOW_REST]));
    await rec.finish();

    const [run, slow] = exchanges(await storedEvents(store, (rec.runId as string)));
    expect(run?.response).toMatchObject({ status: 200, body: STREAM_FIRST + STREAM_REST });
    expect(run?.response.truncated).toBeUndefined();
    expect(slow?.response).toMatchObject({ encoding: 'base64', body: Buffer.concat([SLOW_FIRST, SLOW_REST]).toString('base64') });

    const rep = await replay({ tape: { store, run: rec.runId }, strict: true });
    const replayed: string[] = [];
    for await (const event of await client(rep.fetch, 'http://127.0.0.1:9/v1').beta.threads.runs.create('t1', { assistant_id: 'asst_1', stream: true })) {
      replayed.push(event.event);
    }
    expect(replayed).toEqual(seen);
    await rep.finish();
  });

  it('that the client stops reading is recorded as far as it arrived, marked truncated', async () => {
    const store = newStore();
    const rec = await record({ tape: { store } });
    const gate = (server.gate = new Gate());
    const download = await within(rec.fetch(`${server.baseURL}/slow`), 'the download to start');
    const reader = (download.body as ReadableStream<Uint8Array>).getReader();
    expect((await within(reader.read(), 'the first piece')).value?.[0]).toBe(0x01);
    await reader.cancel();
    gate.release();
    await rec.finish();

    const events = await storedEvents(store, (rec.runId as string));
    const [slow] = exchanges(events);
    expect(slow?.response).toMatchObject({ encoding: 'base64', truncated: true, body: SLOW_FIRST.toString('base64') });
    expect(warnings(events).join('\n')).toMatch(/GET \/v1\/slow was not read to its end by the client: recorded the 1000 bytes/);
  });

  it('larger than a tape keeps is passed on whole and recorded cut short, and a replay breaks after what was kept', async () => {
    const store = newStore();
    const rec = await record({ tape: { store } });
    const big = new Uint8Array(await (await rec.fetch(`${server.baseURL}/big`)).arrayBuffer());
    await rec.finish();
    expect(big.length).toBe(33 * 1024 * 1024);
    expect(big[33 * 1024 * 1024 - 1]).toBe(32);

    const events = await storedEvents(store, (rec.runId as string));
    const [exchange] = exchanges(events);
    expect(exchange?.response.truncated).toBe(true);
    expect(Buffer.from(exchange?.response.body as string, 'base64').length).toBe(MAX_RECORDED_BODY);
    expect(warnings(events).join('\n')).toContain(`GET /v1/big is larger than a tape keeps (${MAX_RECORDED_BODY / (1024 * 1024)} MiB)`);

    const rep = await replay({ tape: { store, run: rec.runId } });
    const served = (await rep.fetch('http://127.0.0.1:9/v1/big')).body as ReadableStream<Uint8Array>;
    const reader = served.getReader();
    let got = 0;
    const broke = await (async () => {
      for (;;) {
        const next = await reader.read();
        if (next.done) return undefined;
        got += next.value.length;
      }
    })().catch((error: unknown) => error);
    expect(got).toBe(MAX_RECORDED_BODY);
    expect(String(broke)).toMatch(/cut short/);
    await rep.finish();
  }, 60_000);
});

describe('credentials in a query string', () => {
  it('are in no byte of the store or a tape, and a replay of the same URL still matches', async () => {
    const store = newStore();
    const rec = await record({ tape: { store } });
    const query = { key: QUERY_KEY, cursor: QUERY_SECRET, limit: '5' };
    const listed = await client(rec.fetch).models.list({ query });
    expect(listed.data.map((m) => m.id)).toEqual(['gpt-test']);
    await rec.finish();
    // It really was sent.
    const sent = server.received.filter((r) => r.url.startsWith('/v1/models')).at(-1);
    expect(sent?.url).toContain(QUERY_KEY);
    expect(sent?.url).toContain(QUERY_SECRET);

    const events = await storedEvents(store, (rec.runId as string));
    const [models] = exchanges(events);
    expect(models?.path).toBe('/v1/models?key=[REDACTED]&cursor=[REDACTED]&limit=5');
    const tapeFile = await exportRun(store, (rec.runId as string), 'query.tape.jsonl');
    for (const file of [...(await filesUnder(store)), tapeFile]) {
      const bytes = await readFile(file);
      for (const secret of [QUERY_KEY, QUERY_SECRET, QUERY_SECRET.slice(3)]) expect(bytes.includes(secret), `${secret} in ${file}`).toBe(false);
    }
    expect(JSON.stringify(events)).not.toContain(QUERY_KEY);

    const rep = await replay({ tape: tapeFile, strict: true });
    const again = await client(rep.fetch, 'http://127.0.0.1:9/v1').models.list({ query });
    expect(again.data).toEqual(listed.data);
    // What a replay prints about a request it has no recording of names no credential either.
    const missing = await rep.fetch(`http://127.0.0.1:9/v1/other?token=${QUERY_KEY}&api_key=${QUERY_KEY}`);
    const text = await missing.text();
    expect(missing.status).toBe(404);
    expect(text).toContain('/v1/other?token=[REDACTED]&api_key=[REDACTED]');
    expect(text).not.toContain(QUERY_KEY);
    await rep.finish();
  });
});

describe('what a tape may hold', () => {
  it('recording leaves out a kept header whose value a tape could not hold', async () => {
    const store = newStore();
    const upstream = async (): Promise<Response> =>
      new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': 'req\u0001bad', 'openai-version': '2020-10-01' } });
    const rec = await record({ tape: { store }, fetch: upstream });
    expect(await (await rec.fetch('http://127.0.0.1:9/v1/whatever')).json()).toEqual({ ok: true });
    await rec.finish();
    const [exchange] = exchanges(await storedEvents(store, (rec.runId as string)));
    expect(exchange?.response.headers).toEqual({ 'content-type': 'application/json', 'openai-version': '2020-10-01' });
    expect(runEventSchema.safeParse(exchange).success).toBe(true);
  });

  describe('a tape whose reply could not be served is refused when read (exit 9)', () => {
    let good: string;
    beforeAll(async () => {
      const store = newStore();
      const rec = await record({ tape: { store } });
      await client(rec.fetch).models.list();
      await rec.finish();
      good = await exportRun(store, (rec.runId as string), 'good.tape.jsonl');
    });

    /** The good tape with its exchange's reply changed. */
    async function hostile(name: string, change: (response: Record<string, unknown>) => void): Promise<string> {
      const lines = (await readFile(good, 'utf8')).split('\n');
      const at = lines.findIndex((line) => line.includes('"http_exchange"'));
      const event = JSON.parse(lines[at] as string) as { response: Record<string, unknown> };
      change(event.response);
      lines[at] = JSON.stringify(event);
      const path = join(dir, name);
      await writeFile(path, lines.join('\n'));
      return path;
    }

    const cases: [string, (response: Record<string, unknown>) => void, RegExp][] = [
      ['status 150', (r) => (r.status = 150), /response\.status/],
      ['status 101', (r) => (r.status = 101), /response\.status/],
      ['a header named "bad name"', (r) => (r.headers = { ...(r.headers as object), 'bad name': 'x' }), /response\.headers\.bad name: Invalid key/],
      ['a header value beyond Latin-1', (r) => (r.headers = { 'x-request-id': 'req_\u0100' }), /not a valid HTTP header value/],
      ['a header value with a line break', (r) => (r.headers = { 'x-request-id': 'a\r\nset-cookie: x' }), /not a valid HTTP header value/],
      ['a base64 body that is not base64', (r) => Object.assign(r, { encoding: 'base64', body: '<not base64>' }), /base64/],
    ];

    it.each(cases)('%s: openTapeFile refuses it with a TapeFormatError', async (name, change, message) => {
      const path = await hostile(`${createHash('sha256').update(name).digest('hex').slice(0, 8)}.tape.jsonl`, change);
      const tape = await openTapeFile(path);
      const error = await validateTapeFile(tape).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TapeFormatError);
      expect((error as TapeFormatError).exitCode).toBe(9);
      expect((error as TapeFormatError).message).toMatch(message);
      await expect(replay({ tape: path })).rejects.toBeInstanceOf(TapeFormatError);
    });

    it('the good tape is accepted', async () => {
      expect(await validateTapeFile(await openTapeFile(good))).toBeGreaterThan(2);
    });

    it.each([cases[0], cases[2]] as (typeof cases)[number][])('%s: `agentctl proxy --replay <file>` exits 9', async (name, change) => {
      const path = await hostile(`proxy-${createHash('sha256').update(name).digest('hex').slice(0, 8)}.tape.jsonl`, change);
      const result = await runCli(['proxy', '--replay', path, '--store', join(dir, 'proxy-store'), '--port', '0'], {
        env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, AGENTCTL_STORE: undefined },
      });
      expect(result.code, result.stderr).toBe(9);
      expect(result.stderr).toMatch(/invalid event/);
    });
  });
});
