/**
 * What a replay may run that its tape lacks, and what a recording keeps off the tape, against a real
 * MCP server (@modelcontextprotocol/server-memory) and the official SDK's client: `--allow-side-effects`
 * and new-episodes run a call of a tool that changes things (a plain replay refuses it), and
 * new-episodes writes what it served as recorded, durations too; a server
 * started on replay meets the client it serves, not the one that recorded; a secret in the params of
 * a request other than a tool call never reaches the tape; a ping is answered by the replay itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { memoryLink } from './test-support/memory-link.js';
import { call, INITIALIZE, request, talk } from './test-support/talk.js';
import { callInput } from './tape-writes.js';
import { absentServer, MEMORY_SERVER, nodeServer, watched, wrapped } from './test-support/wrapper-harness.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentctl-mcp-policy-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const memory = (file = 'memory.jsonl') => nodeServer(MEMORY_SERVER, [], { MEMORY_FILE_PATH: join(dir, file) });
const SECRET = 'sk-proj-Xq7vR2mT9pL4wK8sN1bY6cF3hJ5dG0aZ';

/** A recorded session (initialize, tools/list, read_graph) whose recording client had another name than the replaying one. */
async function recorded(): Promise<RunEvent[]> {
  const link = memoryLink({ mode: 'record' });
  const session = await wrapped(link, memory(), 'mem');
  await session.client.listTools();
  await session.client.callTool({ name: 'read_graph', arguments: {} });
  expect(await session.close()).toBe(0);
  return (link.events as RunEvent[]).map((event) =>
    event.type === 'mcp_exchange' && event.method === 'initialize' ? { ...event, params: { ...event.params, clientInfo: { name: 'recorder', version: '0' } } } : event,
  );
}

const DELETE = { name: 'delete_entities', arguments: { entityNames: ['Ada'] } };

describe('what a replay runs that its tape lacks', () => {
  it('with side effects allowed, runs a call of a tool that changes things, on a server introduced with the replaying client\'s initialize', async () => {
    const server = watched(memory('other.jsonl'));
    const link = memoryLink({ mode: 'replay', allowSideEffects: true, recorded: await recorded() });
    const replay = await wrapped(link, server, 'mem');
    await replay.client.callTool(DELETE);
    expect(server.sent[0]).toMatchObject({ method: 'initialize', params: { clientInfo: { name: 'agentctl-test' } } });
    expect(await replay.close()).toBe(0);
    expect(link.notes.filter((note) => note.kind === 'request' && note.method === 'tools/call')).toMatchObject([{ tool: 'delete_entities', outcome: 'live' }]);
  });

  it('new-episodes runs a call of a tool that changes things even with side effects not allowed, and records it', async () => {
    const link = memoryLink({ mode: 'new-episodes', allowSideEffects: false, recorded: await recorded() });
    const replay = await wrapped(link, memory('other.jsonl'), 'mem');
    await replay.client.callTool(DELETE);
    expect(await replay.close()).toBe(0);
    expect(link.notes.filter((note) => note.kind === 'request' && note.method === 'tools/call')).toMatchObject([{ tool: 'delete_entities', outcome: 'live' }]);
    expect(link.events.filter((event) => event.type === 'tool_call').map((event) => event.type === 'tool_call' && event.tool)).toEqual(['delete_entities']);
  });

  it('new-episodes writes what it served as it was recorded, its duration too', async () => {
    const look = callInput('mem', 'look', { at: 'a' });
    const tape = [
      { type: 'mcp_exchange', seq: 0, step: 0, t: 0, server: 'mem', from: 'client', method: 'initialize', params: {}, reply: { result: { capabilities: {} } }, durationMs: 5 },
      { ...look, seq: 1, step: 0, t: 0, callId: 'c1' },
      { type: 'tool_result', seq: 2, step: 0, t: 0, callId: 'c1', tool: 'look', status: 'ok', output: 'A', durationMs: 42, server: 'mem' },
    ] as RunEvent[];
    const link = memoryLink({ mode: 'new-episodes', recorded: tape });
    const { conversation, got } = await talk(link, absentServer, 'mem');
    await conversation.fromClient(request('initialize', INITIALIZE, 1));
    await conversation.fromClient(call('look', { at: 'a' }, 2));
    await conversation.close();
    expect(got).toHaveLength(2);
    expect(link.events).toMatchObject([
      { type: 'mcp_exchange', method: 'initialize', reply: { result: { capabilities: {} } }, durationMs: 5 },
      { type: 'tool_call', tool: 'look', arguments: look.arguments, key: look.key },
      { type: 'tool_result', tool: 'look', status: 'ok', output: 'A', durationMs: 42 },
    ]);
  });

  it('a replay answers a ping itself, under the client\'s id', async () => {
    const link = memoryLink({ mode: 'replay', recorded: await recorded() });
    const replay = await wrapped(link, absentServer, 'mem');
    await replay.client.ping();
    await replay.client.ping();
    expect(await replay.close()).toBe(0);
    expect(link.notes.filter((note) => note.kind === 'request' && note.outcome !== 'served')).toEqual([]);
  });
});

describe('what a recording keeps off the tape', () => {
  it('a secret in the params of a request other than a tool call', async () => {
    const link = memoryLink({ mode: 'record' });
    const session = await wrapped(link, memory(), 'mem');
    // server-memory has no prompts: the request is answered with an error, and written all the same.
    await expect(session.client.getPrompt({ name: 'p', arguments: { key: SECRET } })).rejects.toThrow();
    expect(await session.close()).toBe(0);
    const exchange = link.events.find((event) => event.type === 'mcp_exchange' && event.method === 'prompts/get');
    expect(exchange).toMatchObject({ params: { name: 'p', arguments: { key: '[REDACTED]' } } });
    expect(JSON.stringify(link.events)).not.toContain(SECRET);

    // The replayed request carries the secret again: it matches the redacted one on the tape.
    const replayLink = memoryLink({ mode: 'replay', recorded: link.events as RunEvent[] });
    const replay = await wrapped(replayLink, absentServer, 'mem');
    await expect(replay.client.getPrompt({ name: 'p', arguments: { key: SECRET } })).rejects.toThrow();
    expect(await replay.close()).toBe(0);
    expect(replayLink.notes.filter((note) => note.kind === 'request')).toEqual([
      { kind: 'request', server: 'mem', method: 'initialize', outcome: 'served' },
      { kind: 'request', server: 'mem', method: 'prompts/get', outcome: 'served' },
    ]);

    // new-episodes writes what it served onto the new run: redacted as well.
    const episodes = memoryLink({ mode: 'new-episodes', recorded: link.events as RunEvent[] });
    const again = await wrapped(episodes, absentServer, 'mem');
    await expect(again.client.getPrompt({ name: 'p', arguments: { key: SECRET } })).rejects.toThrow();
    expect(await again.close()).toBe(0);
    expect(episodes.events.find((event) => event.type === 'mcp_exchange' && event.method === 'prompts/get')).toMatchObject({ params: { arguments: { key: '[REDACTED]' } } });
    expect(JSON.stringify(episodes.events)).not.toContain(SECRET);
  });
});
