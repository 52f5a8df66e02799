/**
 * The stdio transport against a real MCP server from npm (@modelcontextprotocol/server-memory),
 * started through the launcher: the handshake and a call over it, the end reported once with how
 * the process ended, a command that is not there refused in one line, and close() stopping it.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { portInbox } from './test-support/port-inbox.js';
import { stdioUpstream } from './stdio-upstream.js';

const memoryServer = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

/**
 * A port on the memory server, started with `tag` as an extra argument (the server ignores it) so a
 * test can find its process, whose messages are collected, with a way to await the next one.
 */
async function openMemory(tag: string) {
  const { handlers, next, ended, reasons } = portInbox();
  const port = await stdioUpstream({ command: process.execPath, args: [memoryServer, tag], env: { ...process.env, MEMORY_FILE_PATH: '/dev/null/none' }, stderr: 'ignore' }).open(handlers);
  return { port, next, ended, reasons };
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } } as const;

describe('stdioUpstream', () => {
  it('carries the handshake and a tools/list to a real server and back', async () => {
    const { port, next, ended, reasons } = await openMemory('agentctl-test-handshake');
    await port.send(INITIALIZE);
    const init = await next();
    expect(init).toMatchObject({ id: 1, result: { serverInfo: { name: 'memory-server' } } });
    await port.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await port.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const list = (await next()) as unknown as { id: number; result: { tools: Array<{ name: string }> } };
    expect(list.id).toBe(2);
    expect(list.result.tools.map((t) => t.name)).toContain('read_graph');
    await port.close();
    // Its input closed, the server exits on its own.
    expect(await ended).toBe('exited with code 0');
    await expect(port.send({ jsonrpc: '2.0', id: 3, method: 'ping' })).rejects.toThrow(/has ended/);
    await port.close();
    expect(reasons).toEqual(['exited with code 0']);
  });

  it('reports a server killed while it runs as killed by the signal', async () => {
    const tag = 'agentctl-test-killed';
    const { port, next, ended } = await openMemory(tag);
    await port.send(INITIALIZE);
    await next();
    // The launcher execs the server: the process with the tag is the server itself.
    const pids = execFileSync('pgrep', ['-f', tag]).toString().trim().split('\n');
    expect(pids).toHaveLength(1);
    process.kill(Number(pids[0]), 'SIGKILL');
    expect(await ended).toBe('killed by SIGKILL');
    await port.close();
  });

  it('refuses a command that is not on PATH in one line', async () => {
    await expect(stdioUpstream({ command: 'agentctl-no-such-server', env: process.env }).open({ message: () => undefined, ended: () => undefined })).rejects.toThrow(
      "MCP server 'agentctl-no-such-server' could not be started: 'agentctl-no-such-server' is not on its PATH",
    );
  });
});
