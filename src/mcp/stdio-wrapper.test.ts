/**
 * The stdio wrapper's framing as a client meets it (a line that is not JSON, a batch, a message
 * that is not JSON-RPC), and the modes beside record and replay: new-episodes (the tape answers
 * what it has, the server the rest, and everything goes onto the new run) and passthrough (the
 * server answers, nothing is written). A file written by a recorded call is not written again on
 * replay (@modelcontextprotocol/server-filesystem).
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { createRedactor } from '../core/redact.js';
import { RPC_ERRORS } from './protocol.js';
import { runStdioWrapper } from './stdio-wrapper.js';
import { memoryLink } from './test-support/memory-link.js';
import { FILESYSTEM_SERVER, MEMORY_SERVER, nodeServer, watched, wrapped } from './test-support/wrapper-harness.js';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'agentctl-mcp-wrap-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const memory = (file = 'memory.jsonl') => nodeServer(MEMORY_SERVER, [], { MEMORY_FILE_PATH: join(dir, file) });

/** The wrapper over raw lines: what the client writes, and every line it gets back (the client closes after `answers` of them) until the output ends. */
async function rawSession(lines: readonly string[], answers: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const link = memoryLink({ mode: 'record' });
  const got: unknown[] = [];
  let enough: () => void = () => undefined;
  const answered = new Promise<void>((done) => (enough = done));
  let rest = '';
  output.on('data', (chunk: Buffer) => {
    rest += chunk.toString();
    const parts = rest.split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) got.push(JSON.parse(part));
    if (got.length >= answers) enough();
  });
  const ended = new Promise<void>((done) => output.on('end', done));
  const exit = runStdioWrapper({ server: 'mem', link, upstream: memory(), input, output, redact: createRedactor() });
  for (const line of lines) input.write(`${line}\n`);
  await answered;
  input.end();
  const code = await exit;
  await ended;
  return { code, got, link };
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('the stdio wrapper', () => {
  it('answers a line that is not JSON with a parse error, takes a batch apart, and exits 0 when the client closes', async () => {
    const { code, got, link } = await rawSession([
      '{"jsonrpc": "2.0", "id": 7, "method": ',
      JSON.stringify([INIT, { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }]),
      JSON.stringify({ jsonrpc: '1.0', id: 3, method: 'ping' }),
      '[]',
    ], 5);
    expect(code).toBe(0);
    expect(got[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: RPC_ERRORS.parse } });
    expect(got).toContainEqual({ jsonrpc: '2.0', id: 3, error: { code: RPC_ERRORS.invalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 message ("jsonrpc" is not "2.0")' } });
    expect(got).toContainEqual({ jsonrpc: '2.0', id: null, error: { code: RPC_ERRORS.invalidRequest, message: 'Invalid Request: an empty batch' } });
    const answers = got as Array<{ id?: unknown; result?: Record<string, unknown> }>;
    expect(answers.find((m) => m.id === 1)?.result?.['serverInfo']).toMatchObject({ name: 'memory-server' });
    expect(answers.find((m) => m.id === 2)?.result?.['tools']).toBeInstanceOf(Array);
    // A request goes onto the tape with its answer; the batch's notification went on as it came, before that.
    expect(link.events.map((e) => (e.type === 'mcp_exchange' ? e.method : e.type))).toEqual(['notifications/initialized', 'initialize', 'tools/list']);
  });

  it('does not write a file again on replay: a recorded write_file is served from the tape', async () => {
    const target = join(dir, 'notes.txt');
    const files = () => nodeServer(FILESYSTEM_SERVER, [dir]);
    const link = memoryLink({ mode: 'record' });
    const session = await wrapped(link, files(), 'files');
    const wrote = await session.client.callTool({ name: 'write_file', arguments: { path: target, content: 'hello' } });
    expect(await session.close()).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('hello');
    rmSync(target);

    const server = watched(files());
    const replayLink = memoryLink({ mode: 'replay', recorded: link.events as RunEvent[] });
    const replay = await wrapped(replayLink, server, 'files');
    expect(await replay.client.callTool({ name: 'write_file', arguments: { path: target, content: 'hello' } })).toEqual(wrote);
    // Other content: write_file is not read-only, so the tape's refusal, not a write.
    await expect(replay.client.callTool({ name: 'write_file', arguments: { path: target, content: 'bye' } })).rejects.toMatchObject({ code: RPC_ERRORS.notReplayed });
    expect(await replay.close()).toBe(0);
    expect(existsSync(target)).toBe(false);
    expect(server.opened).toBe(0);
  });

  it('new-episodes: serves what the tape has, runs the rest, and writes all of it onto the new run', async () => {
    const recording = memoryLink({ mode: 'record' });
    const first = await wrapped(recording, memory(), 'mem');
    await first.client.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: [] }] } });
    expect(await first.close()).toBe(0);

    const server = watched(memory('second.jsonl'));
    const link = memoryLink({ mode: 'new-episodes', recorded: recording.events as RunEvent[] });
    const session = await wrapped(link, server, 'mem');
    await session.client.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: [] }] } });
    expect(server.opened).toBe(0);
    // Not on the tape and not read-only: new-episodes runs it.
    await session.client.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'Grace', entityType: 'person', observations: [] }] } });
    expect(server.opened).toBe(1);
    expect(await session.close()).toBe(0);
    expect(link.events.map((e) => (e.type === 'mcp_exchange' ? e.method : `${e.type} ${e.type === 'tool_call' ? e.arguments : e.status}`))).toEqual([
      'initialize',
      'notifications/initialized',
      'tool_call {"entities":[{"entityType":"person","name":"Ada","observations":[]}]}',
      'tool_result ok',
      'tool_call {"entities":[{"entityType":"person","name":"Grace","observations":[]}]}',
      'tool_result ok',
    ]);
    expect(link.notes.map((note) => (note.kind === 'request' ? `${note.method} ${note.outcome}` : `end ${note.unused}`))).toEqual([
      'initialize served',
      'tools/call served',
      'tools/call live',
      'end 0',
    ]);
  });

  it('passthrough: the server answers and nothing is written', async () => {
    const link = memoryLink({ mode: 'passthrough' });
    const session = await wrapped(link, memory(), 'mem');
    expect((await session.client.listTools()).tools.length).toBeGreaterThan(0);
    await session.client.callTool({ name: 'read_graph', arguments: {} });
    expect(await session.close()).toBe(0);
    expect(link.events).toEqual([]);
    expect(link.notes).toEqual([]);
  });
});
