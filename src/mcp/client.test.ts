/**
 * The small MCP client against real servers: @modelcontextprotocol/server-memory from npm for the
 * handshake, tool list and a call, and test/support/mcp-fake-server.mjs (a real process too) for
 * what a real server does not do on demand: paging its tools, asking the client things, another
 * protocol version, a call it never answers, dying in the middle of one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServerError } from '../core/errors.js';
import { MAX_PENDING_REQUESTS, McpClient, McpRequestError } from './client.js';
import { stdioUpstream } from './stdio-upstream.js';

const memoryServer = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');
const fakeServer = fileURLToPath(new URL('../../test/support/mcp-fake-server.mjs', import.meta.url));

const open: McpClient[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function connect(args: string[], server = 'fake'): Promise<McpClient> {
  const dir = mkdtempSync(join(tmpdir(), 'agentctl-mcp-client-'));
  dirs.push(dir);
  const client = await McpClient.connect({
    server,
    upstream: stdioUpstream({ command: process.execPath, args, env: { PATH: process.env['PATH'] ?? '', MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }, stderr: 'ignore' }),
    timeoutMs: 20_000,
  });
  open.push(client);
  return client;
}

describe('McpClient', () => {
  it('completes the handshake with a real server, lists its tools with their annotations and calls one', async () => {
    const client = await connect([memoryServer], 'memory');
    expect(client.protocolVersion).toBe('2025-06-18');
    const tools = await client.listTools();
    const read = tools.find((tool) => tool.name === 'read_graph');
    expect(read?.annotations.readOnlyHint).toBe(true);
    expect(tools.map((tool) => tool.name)).toContain('create_entities');
    const result = await client.callTool('read_graph', {});
    expect(result['content']).toEqual([{ type: 'text', text: expect.stringContaining('"entities"') as unknown }]);
  });

  it('reads every page of a paged tool list, in order', async () => {
    const client = await connect([fakeServer]);
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['echo', 'ask', 'hang', 'die', 'fail', 'notes', 'picture', 'pid', 'cwd']);
  });

  it('takes an older protocol version it speaks, and refuses one it does not', async () => {
    expect((await connect([fakeServer, 'v2024'])).protocolVersion).toBe('2024-11-05');
    expect((await connect([fakeServer, 'newest'])).protocolVersion).toBe('2025-11-25');
    const refused = connect([fakeServer, 'old-version']);
    await expect(refused).rejects.toThrow(McpServerError);
    await expect(refused).rejects.toThrow("MCP server 'fake' answered the handshake with protocol version \"2023-01-01\", which agentctl does not speak");
  });

  it('sends notifications/initialized after the handshake', async () => {
    const client = await connect([fakeServer]);
    const result = await client.callTool('notes', {});
    expect(JSON.parse((result['content'] as Array<{ text: string }>)[0]!.text)).toEqual([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
  });

  it("answers the server's ping with {} and its other requests with method not found", async () => {
    const client = await connect([fakeServer]);
    const result = await client.callTool('ask', {});
    const replies = JSON.parse((result['content'] as Array<{ text: string }>)[0]!.text) as unknown[];
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 'server-1', result: {} },
      { jsonrpc: '2.0', id: 'server-2', error: { code: -32601, message: "agentctl's MCP client does not handle roots/list" } },
    ]);
  });

  it('rejects a call the server answers with a JSON-RPC error with that error', async () => {
    const client = await connect([fakeServer]);
    const failed = client.callTool('fail', {});
    await expect(failed).rejects.toBeInstanceOf(McpRequestError);
    await expect(failed).rejects.toMatchObject({ error: { code: -32602, message: 'fail: no such thing' } });
  });

  it('gives up a call whose signal is aborted, and tells the server with notifications/cancelled', async () => {
    const client = await connect([fakeServer]);
    const controller = new AbortController();
    const call = client.callTool('hang', {}, { signal: controller.signal });
    controller.abort(new Error('timed out'));
    await expect(call).rejects.toThrow('timed out');
    const notes = JSON.parse(((await client.callTool('notes', {}))['content'] as Array<{ text: string }>)[0]!.text) as Array<{ method: string; params?: unknown }>;
    expect(notes.at(-1)).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: expect.any(Number) as unknown, reason: 'timed out' } });
  });

  it('holds at most MAX_PENDING_REQUESTS requests open: one more is refused without being sent', async () => {
    const client = await connect([fakeServer]);
    const open = Array.from({ length: MAX_PENDING_REQUESTS }, () => client.callTool('hang', {}).catch((error: unknown) => error));
    await expect(client.callTool('echo', {})).rejects.toThrow(`MCP server 'fake' has ${MAX_PENDING_REQUESTS} requests open already: tools/call was not sent`);
    await client.close();
    expect(await Promise.all(open)).toHaveLength(MAX_PENDING_REQUESTS);
  });

  it('fails a request that outlives its time limit', async () => {
    const client = await connect([fakeServer]);
    await expect(client.request('tools/call', { name: 'hang', arguments: {} }, { timeoutMs: 50 })).rejects.toThrow("MCP server 'fake' did not answer tools/call within 50 ms");
  });

  it('fails every open call with how the server ended when it dies, and every later one the same way', async () => {
    const client = await connect([fakeServer]);
    const hanging = client.callTool('hang', {});
    const dying = client.callTool('die', {});
    await expect(dying).rejects.toThrow("MCP server 'fake' killed by SIGKILL before it answered");
    await expect(hanging).rejects.toThrow("MCP server 'fake' killed by SIGKILL before it answered");
    await expect(client.callTool('echo', {})).rejects.toThrow("MCP server 'fake' killed by SIGKILL before it answered");
  });

  it('reports a server that exits before the handshake with its exit', async () => {
    await expect(connect([fakeServer, 'exit-at-start'])).rejects.toThrow("MCP server 'fake' exited with code 3 before it answered");
  });
});
