import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { httpFetch } from '../llm/transport/http-fetch.js';
import { storedEvents } from '../../test/support/stored-events.js';
import { record } from './record-replay.js';

let dir: string;
let server: Server | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-request-'));
});

afterEach(async () => {
  vi.restoreAllMocks();
  const running = server;
  server = undefined;
  if (running !== undefined) {
    running.closeAllConnections();
    await new Promise((resolve) => running.close(resolve));
  }
  await rm(dir, { recursive: true, force: true });
});

describe('a recorded call\'s request', () => {
  it('is read once, from the bytes it was made of: the recorder and the fetch upstream never tee its body', async () => {
    let received = '';
    server = createServer((req, res) => {
      req.setEncoding('utf8');
      req.on('data', (d: string) => (received += d));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }));
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const store = join(dir, 'store');
    const rec = await record({ tape: { store }, fetch: httpFetch });
    const clone = vi.spyOn(Request.prototype, 'clone');
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'héllo' }] });
    const reply = await rec.fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(body) });
    expect(await reply.json()).toMatchObject({ choices: [{ message: { content: 'ok' } }] });
    expect(clone).not.toHaveBeenCalled();
    await rec.finish();

    expect(received).toBe(body);
    const recorded = await storedEvents(store, rec.runId as string);
    expect(recorded.find((e) => e.type === 'llm_request')).toMatchObject({ append: [{ role: 'user', content: 'héllo' }] });
  });
});
