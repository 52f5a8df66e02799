/**
 * The record/replay wrapper against a real MCP server (@modelcontextprotocol/server-memory) and the
 * official SDK's client: a session recorded, then replayed from its events with no server at all
 * (the client gets the same answers); a replay that departs from its tape — a call of a tool that
 * changes things refused, a read-only one run on a server started only then — reported with the
 * first differing field, strict or not; recorded calls never made counted at the end; and the
 * order of the tape: a call written before the server gets it, its answer before the client does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { canonicalJson } from '../guardrails/canonical-json.js';
import { RPC_ERRORS } from './protocol.js';
import { memoryLink } from './test-support/memory-link.js';
import { absentServer, MEMORY_SERVER, nodeServer, watched, wrapped } from './test-support/wrapper-harness.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentctl-mcp-conv-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const memory = (file = 'memory.jsonl') => nodeServer(MEMORY_SERVER, [], { MEMORY_FILE_PATH: join(dir, file) });
const ENTITIES = { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] };

/** A recorded session: initialize, tools/list, create_entities, read_graph; its events and what the client got. */
async function recordSession() {
  const link = memoryLink({ mode: 'record' });
  const session = await wrapped(link, memory(), 'mem');
  const tools = await session.client.listTools();
  const created = await session.client.callTool({ name: 'create_entities', arguments: ENTITIES });
  const graph = await session.client.callTool({ name: 'read_graph', arguments: {} });
  expect(await session.close()).toBe(0);
  expect(link.closed).toBe(true);
  return { events: link.events as RunEvent[], tools, created, graph };
}

describe('the wrapper records and replays a server', () => {
  it('records each request onto the tape, and replays the session with no server, the client getting the same answers', async () => {
    const recorded = await recordSession();
    expect(recorded.events.map((e) => (e.type === 'mcp_exchange' ? `${e.from} ${e.method}` : `${e.type} ${'tool' in e ? e.tool : ''}`))).toEqual([
      'client initialize',
      'client notifications/initialized',
      'client tools/list',
      'tool_call create_entities',
      'tool_result create_entities',
      'tool_call read_graph',
      'tool_result read_graph',
    ]);
    const call = recorded.events[3];
    expect(call).toMatchObject({ type: 'tool_call', server: 'mem', arguments: canonicalJson(ENTITIES), seq: 3 });
    const result = recorded.events[6];
    expect(result).toMatchObject({ type: 'tool_result', callId: 'mcp-2', status: 'ok', server: 'mem' });
    expect(result?.type === 'tool_result' && result.output).toContain('"name": "Ada"');

    const link = memoryLink({ mode: 'replay', recorded: recorded.events });
    const replay = await wrapped(link, absentServer, 'mem');
    expect(await replay.client.listTools()).toEqual(recorded.tools);
    expect(await replay.client.callTool({ name: 'create_entities', arguments: ENTITIES })).toEqual(recorded.created);
    expect(await replay.client.callTool({ name: 'read_graph', arguments: {} })).toEqual(recorded.graph);
    expect(await replay.close()).toBe(0);
    expect(link.events).toEqual([]);
    expect(link.notes).toEqual([
      { kind: 'request', server: 'mem', method: 'initialize', outcome: 'served' },
      { kind: 'request', server: 'mem', method: 'tools/list', outcome: 'served' },
      { kind: 'request', server: 'mem', method: 'tools/call', tool: 'create_entities', outcome: 'served' },
      { kind: 'request', server: 'mem', method: 'tools/call', tool: 'read_graph', outcome: 'served' },
      { kind: 'end', server: 'mem', unused: 0 },
    ]);
    expect(replay.notes).toEqual([]);
  });

  it('refuses a call of a tool that is not read-only when the tape has no answer for it, naming the first differing field', async () => {
    const { events } = await recordSession();
    const server = watched(memory());
    const link = memoryLink({ mode: 'replay', recorded: events });
    const replay = await wrapped(link, server, 'mem');
    const other = { entities: [{ name: 'Grace', entityType: 'person', observations: ['wrote the first program'] }] };
    await expect(replay.client.callTool({ name: 'create_entities', arguments: other })).rejects.toMatchObject({
      code: RPC_ERRORS.notReplayed,
      message: expect.stringContaining(
        'agentctl: tools/call create_entities is not on the tape, and create_entities is not read-only, so it is not run again on replay',
      ) as string,
    });
    // The recorded call, twice: the tape answers it once.
    await replay.client.callTool({ name: 'create_entities', arguments: ENTITIES });
    await expect(replay.client.callTool({ name: 'create_entities', arguments: ENTITIES })).rejects.toMatchObject({ code: RPC_ERRORS.notReplayed });
    await expect(replay.client.callTool({ name: 'delete_entities', arguments: { entityNames: ['Ada'] } })).rejects.toMatchObject({ code: RPC_ERRORS.notReplayed });
    expect(await replay.close()).toBe(0);
    expect(server.opened).toBe(0);
    expect(link.notes.filter((note) => note.kind === 'request' && note.method === 'tools/call')).toEqual([
      {
        kind: 'request',
        server: 'mem',
        method: 'tools/call',
        tool: 'create_entities',
        outcome: 'refused',
        divergence: {
          message: 'tools/call create_entities: arguments.entities[0].name: recorded "Ada", replayed "Grace"',
          path: 'arguments.entities[0].name',
          recorded: 'Ada',
          replayed: 'Grace',
        },
      },
      { kind: 'request', server: 'mem', method: 'tools/call', tool: 'create_entities', outcome: 'served' },
      {
        kind: 'request',
        server: 'mem',
        method: 'tools/call',
        tool: 'create_entities',
        outcome: 'refused',
        divergence: { message: 'tools/call create_entities: called more often than on the tape (each recorded call with these arguments was answered)' },
      },
      { kind: 'request', server: 'mem', method: 'tools/call', tool: 'delete_entities', outcome: 'refused', divergence: { message: 'tools/call delete_entities: not on the tape' } },
    ]);
    expect(replay.notes).toEqual([
      'MCP server \'mem\': replay diverged: tools/call create_entities: arguments.entities[0].name: recorded "Ada", replayed "Grace"; create_entities is not read-only: refused',
      'MCP server \'mem\': replay diverged: tools/call create_entities: called more often than on the tape (each recorded call with these arguments was answered); create_entities is not read-only: refused',
      'MCP server \'mem\': replay diverged: tools/call delete_entities: not on the tape; delete_entities is not read-only: refused',
      'MCP server \'mem\': 1 recorded tool call was never made',
    ]);
  });

  it('runs a read-only call the tape lacks on a server started only then, introduced with the client\'s initialize', async () => {
    const { events } = await recordSession();
    const server = watched(memory('other.jsonl'));
    const link = memoryLink({ mode: 'replay', strict: false, recorded: events });
    const replay = await wrapped(link, server, 'mem');
    await replay.client.listTools();
    expect(server.opened).toBe(0);
    const found = await replay.client.callTool({ name: 'search_nodes', arguments: { query: 'Ada' } });
    // The server started on replay has an empty graph of its own: the answer is its, not the tape's.
    expect(found).toMatchObject({ structuredContent: { entities: [], relations: [] } });
    expect(server.opened).toBe(1);
    expect(server.sent.map((m) => ('method' in m ? m.method : 'reply'))).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
    expect(server.sent[0]).toMatchObject({ params: { clientInfo: { name: 'agentctl-test' } } });
    // A second call of a recorded tool with other arguments: read_graph is read-only, so it runs too.
    await replay.client.callTool({ name: 'read_graph', arguments: { depth: 2 } });
    expect(await replay.close()).toBe(0);
    expect(link.notes.filter((note) => note.kind === 'request' && note.method === 'tools/call')).toEqual([
      { kind: 'request', server: 'mem', method: 'tools/call', tool: 'search_nodes', outcome: 'live', divergence: { message: 'tools/call search_nodes: not on the tape' } },
      {
        kind: 'request',
        server: 'mem',
        method: 'tools/call',
        tool: 'read_graph',
        outcome: 'live',
        divergence: { message: 'tools/call read_graph: arguments.depth: recorded nothing, replayed 2', path: 'arguments.depth', replayed: 2 },
      },
    ]);
    // Not strict: the same departures, said as not being failures.
    expect(replay.notes.slice(0, 2)).toEqual([
      'MCP server \'mem\': not on the tape (not strict): tools/call search_nodes: not on the tape; run on the server',
      'MCP server \'mem\': not on the tape (not strict): tools/call read_graph: arguments.depth: recorded nothing, replayed 2; run on the server',
    ]);
    expect(link.notes.at(-1)).toEqual({ kind: 'end', server: 'mem', unused: 2 });
  });

  it('counts the recorded calls a replay never made', async () => {
    const { events } = await recordSession();
    const link = memoryLink({ mode: 'replay', recorded: events });
    const replay = await wrapped(link, absentServer, 'mem');
    await replay.client.listTools();
    await replay.client.callTool({ name: 'read_graph', arguments: {} });
    // A request of another method the tape lacks would run on the server, which cannot start here.
    await expect(replay.client.listResources()).rejects.toMatchObject({
      code: RPC_ERRORS.notReplayed,
      message: expect.stringContaining("agentctl: resources/list is not on the tape, and MCP server 'mem' could not be started to run it: the server is not there") as string,
    });
    expect(await replay.close()).toBe(0);
    expect(link.notes.slice(-2)).toEqual([
      { kind: 'request', server: 'mem', method: 'resources/list', outcome: 'refused', divergence: { message: 'resources/list: not on the tape' } },
      { kind: 'end', server: 'mem', unused: 1 },
    ]);
    expect(replay.notes.at(-1)).toBe('MCP server \'mem\': 1 recorded tool call was never made');
  });

  it('gives the client an error, not an answer the tape lacks, when the tape cannot be written', async () => {
    const link = memoryLink({ mode: 'record' });
    const server = watched(memory());
    const writeCall = link.writeCall.bind(link);
    const write = link.write.bind(link);
    let failCall = true;
    link.writeCall = (call) => (failCall ? Promise.reject(new Error('the disk is full')) : writeCall(call));
    link.write = (event) => (event.type === 'tool_result' ? Promise.reject(new Error('the disk is full')) : write(event));
    const session = await wrapped(link, server, 'mem');
    // The call could not be written: the server never gets it.
    await expect(session.client.callTool({ name: 'read_graph', arguments: {} })).rejects.toMatchObject({
      code: RPC_ERRORS.internal,
      message: expect.stringContaining('agentctl: the disk is full') as string,
    });
    expect(server.sent.filter((m) => 'method' in m && m.method === 'tools/call')).toEqual([]);
    failCall = false;
    // The call was written but its answer could not be: the client gets why, not the answer.
    await expect(session.client.callTool({ name: 'read_graph', arguments: {} })).rejects.toMatchObject({
      code: RPC_ERRORS.internal,
      message: expect.stringContaining('agentctl: the answer could not be written onto the tape: the disk is full') as string,
    });
    // Nor the answer after the error: no line the wrapper wrote holds a tool's answer.
    expect(session.output.filter((line) => line.includes('"content"'))).toEqual([]);
    expect(await session.close()).toBe(0);
  });

  it('writes a call before the server gets it, and its answer before the client gets it', async () => {
    const link = memoryLink({ mode: 'record' });
    const server = watched(memory());
    const seen: string[] = [];
    const session: { output?: string[] } = {};
    const writeCall = link.writeCall.bind(link);
    const write = link.write.bind(link);
    link.writeCall = (call) => {
      seen.push(`writeCall: server had ${server.sent.filter((m) => 'method' in m && m.method === 'tools/call').length} calls`);
      return writeCall(call);
    };
    link.write = (event) => {
      if (event.type === 'tool_result') seen.push(`write result: client had ${session.output?.filter((line) => line.includes('"content"')).length} answers`);
      return write(event);
    };
    const wrapper = await wrapped(link, server, 'mem');
    session.output = wrapper.output;
    await wrapper.client.callTool({ name: 'read_graph', arguments: {} });
    expect(await wrapper.close()).toBe(0);
    expect(seen).toEqual(['writeCall: server had 0 calls', 'write result: client had 0 answers']);
  });
});
