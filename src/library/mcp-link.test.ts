import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError, ReplayDivergedError } from '../core/errors.js';
import type { RunEvent } from '../core/events.js';
import type { McpLink } from '../mcp/link.js';
import { remoteLink } from '../mcp/remote-link.js';
import { openTapeFile } from '../tape/tape-file.js';
import { mcpBroker, serveBroker, type BrokerServer } from './mcp-broker.js';
import { localLink, mcpNotReproduced } from './mcp-link.js';
import { record, replay } from './record-replay.js';

let dir: string;
let servers: BrokerServer[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentctl-mcp-link-'));
  servers = [];
});
afterEach(async () => {
  for (const server of servers) await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const args = (name: string): string => JSON.stringify({ name });

/** One tools/call and its result, as the wrapper writes them. */
async function toolCall(link: McpLink, server: string, tool: string, name: string): Promise<string> {
  const callId = await link.writeCall({ type: 'tool_call', server, tool, arguments: args(name), key: `key-${name}` });
  await link.write({ type: 'tool_result', server, callId, tool, status: 'ok', output: name, durationMs: 1, mcp: { result: { content: [{ type: 'text', text: name }] } } });
  return callId;
}

async function eventsOf(file: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of (await openTapeFile(file)).events()) events.push(event);
  return events;
}

/** A tape with memory's initialize and two calls, and one call of files. */
async function recordTape(file: string): Promise<void> {
  const session = await record({ tape: file, mode: 'record' });
  const link = localLink(session);
  await link.write({ type: 'mcp_exchange', server: 'memory', from: 'client', method: 'initialize', params: { protocolVersion: '2025-06-18' }, reply: { result: { serverInfo: { name: 'memory' } } } });
  await toolCall(link, 'memory', 'create_entities', 'a');
  await toolCall(link, 'files', 'read_file', 'x');
  await toolCall(link, 'memory', 'create_entities', 'b');
  await session.finish();
}

async function brokered(link: McpLink): Promise<McpLink> {
  const server = await serveBroker(mcpBroker(link));
  servers.push(server);
  return remoteLink(server.url);
}

describe('localLink: recording', () => {
  it('writes the MCP events onto the run in order, each call with an id of its own per server and tool, its result under the call\'s step', async () => {
    const file = join(dir, 'mcp.tape.jsonl');
    await recordTape(file);
    const events = (await eventsOf(file)).filter((e) => e.type === 'tool_call' || e.type === 'tool_result' || e.type === 'mcp_exchange');
    expect(events.map((e) => [e.type, 'callId' in e ? e.callId : e.method, e.server])).toEqual([
      ['mcp_exchange', 'initialize', 'memory'],
      ['tool_call', 'memory/create_entities:0', 'memory'],
      ['tool_result', 'memory/create_entities:0', 'memory'],
      ['tool_call', 'files/read_file:0', 'files'],
      ['tool_result', 'files/read_file:0', 'files'],
      ['tool_call', 'memory/create_entities:1', 'memory'],
      ['tool_result', 'memory/create_entities:1', 'memory'],
    ]);
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
    const end = (await eventsOf(file)).at(-1);
    // MCP calls are not the model's tool calls: the run's totals count none of them.
    expect(end?.type === 'run_end' ? end.totals.toolCalls : undefined).toBe(0);
  });

  it('files a call under the step of the model call before it, and its result under the call\'s step, whatever came between', async () => {
    const file = join(dir, 'steps.tape.jsonl');
    const reply = (content: string): Response => new Response(JSON.stringify({
      id: 'c', object: 'chat.completion', created: 0, model: 'm',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }), { headers: { 'content-type': 'application/json' } });
    const session = await record({ tape: file, mode: 'record', fetch: (_input, init) => Promise.resolve(reply(String(init?.body ?? '').length.toString())) });
    const ask = (content: string): Promise<Response> => session.fetch('http://127.0.0.1:9/v1/chat/completions', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] }),
    });
    const link = localLink(session);
    await (await ask('first')).json();
    const callId = await link.writeCall({ type: 'tool_call', server: 'memory', tool: 'read_graph', arguments: '{}', key: 'k' });
    await (await ask('second')).json();
    await link.write({ type: 'mcp_exchange', server: 'memory', from: 'server', method: 'notifications/message' });
    await link.write({ type: 'tool_result', server: 'memory', callId, tool: 'read_graph', status: 'ok', output: '', durationMs: 0 });
    await session.finish();
    const steps = (await eventsOf(file)).filter((e) => e.type === 'tool_call' || e.type === 'tool_result' || e.type === 'mcp_exchange').map((e) => [e.type, e.step]);
    expect(steps).toEqual([['tool_call', 0], ['mcp_exchange', 1], ['tool_result', 0]]);
  });

  it('refuses a result for a call it did not give out, and an event the tape cannot hold', async () => {
    const session = await record({ tape: join(dir, 'bad.tape.jsonl'), mode: 'record' });
    const link = localLink(session);
    await expect(link.write({ type: 'tool_result', server: 'memory', callId: 'memory/x:7', tool: 'x', status: 'ok', output: '', durationMs: 0 })).rejects.toThrow(/did not give out/);
    await expect(link.writeCall({ type: 'tool_call', server: 'no spaces allowed', tool: 'x', arguments: '{}', key: 'k' })).rejects.toThrow(/cannot hold/);
    expect(localLink(session)).toBe(link);
    // A result the tape's reader would refuse (another server than its call's; an output its reply does not say) is not written.
    const callId = await link.writeCall({ type: 'tool_call', server: 'memory', tool: 'x', arguments: '{}', key: 'k' });
    const truth = { result: { content: [{ type: 'text', text: 'truth' }] } };
    await expect(link.write({ type: 'tool_result', server: 'files', callId, tool: 'x', status: 'ok', output: 'truth', durationMs: 0, mcp: truth }))
      .rejects.toThrow(`an MCP tool result for call "${callId}" of server 'memory' that names server 'files'`);
    await expect(link.write({ type: 'tool_result', server: 'memory', callId, tool: 'x', status: 'ok', output: 'a lie', durationMs: 0, mcp: truth }))
      .rejects.toThrow(`an MCP tool_result ${callId}: its output is not what its MCP reply (mcp) says`);
    await link.write({ type: 'tool_result', server: 'memory', callId, tool: 'x', status: 'ok', output: 'truth', durationMs: 0, mcp: truth });
    await session.finish();
    expect((await eventsOf(join(dir, 'bad.tape.jsonl'))).filter((e) => e.type === 'tool_result').map((e) => e.type === 'tool_result' && e.output)).toEqual(['truth']);
  });
});

describe('localLink: replaying', () => {
  it('gives each server its recorded events in tape order, and tallies what the wrappers did', async () => {
    const file = join(dir, 'mcp.tape.jsonl');
    await recordTape(file);
    const session = await replay({ tape: file });
    const link = localLink(session);
    expect(link.mode).toBe('replay');
    expect(link.strict).toBe(true);
    const memory = await link.recorded('memory');
    expect(memory.map((e) => e.type)).toEqual(['mcp_exchange', 'tool_call', 'tool_result', 'tool_call', 'tool_result']);
    expect(await link.recorded('nobody')).toEqual([]);
    await link.report({ kind: 'request', server: 'memory', method: 'initialize', outcome: 'served' });
    await link.report({ kind: 'request', server: 'memory', method: 'tools/call', tool: 'create_entities', outcome: 'served' });
    await link.report({ kind: 'request', server: 'files', method: 'tools/call', tool: 'read_file', outcome: 'live', divergence: { message: 'tools/call read_file: arguments.name: recorded "x", replayed "y"', path: 'arguments.name' } });
    await link.report({ kind: 'request', server: 'files', method: 'tools/call', tool: 'delete_file', outcome: 'refused', divergence: { message: 'tools/call delete_file: not on the tape' } });
    await link.report({ kind: 'end', server: 'memory', unused: 1 });
    const summary = link.summary();
    expect(summary).toMatchObject({ mode: 'replay', strict: true, recorded: 0, onTape: 3, served: 1, live: 1, refused: 1, unused: 2 });
    expect(summary.divergences.map((d) => d.server)).toEqual(['files', 'files']);
    expect(mcpNotReproduced(summary)).toBe('MCP server files: tools/call read_file: arguments.name: recorded "x", replayed "y"');
    expect(() => session.assertReproduced()).toThrow(ReplayDivergedError);
  });

  it('recorded calls never asked for fail a strict replay; a non-strict one is reported, not failed', async () => {
    const file = join(dir, 'mcp.tape.jsonl');
    await recordTape(file);
    const strict = await replay({ tape: file });
    expect(() => strict.assertReproduced()).toThrow('diverged: 3 recorded MCP tool calls never asked for');
    // Two wrappers of memory served its two calls between them: none is left.
    const link = localLink(strict);
    for (const _ of ['a', 'b']) await link.report({ kind: 'request', server: 'memory', method: 'tools/call', tool: 'create_entities', outcome: 'served' });
    await link.report({ kind: 'request', server: 'files', method: 'tools/call', tool: 'read_file', outcome: 'served' });
    expect(link.summary().unused).toBe(0);
    expect(() => strict.assertReproduced()).not.toThrow();
    const loose = await replay({ tape: file, strict: false });
    expect(localLink(loose).summary()).toMatchObject({ strict: false, unused: 3 });
    expect(() => loose.assertReproduced()).not.toThrow();
  });

  it('a server served twice over (two wrappers of it) does not hide the calls another server never made', async () => {
    const file = join(dir, 'mcp.tape.jsonl');
    await recordTape(file);
    const session = await replay({ tape: file });
    const link = localLink(session);
    for (const _ of ['a', 'b', 'a', 'b']) await link.report({ kind: 'request', server: 'memory', method: 'tools/call', tool: 'create_entities', outcome: 'served' });
    expect(link.summary()).toMatchObject({ served: 4, unused: 1 });
    expect(() => session.assertReproduced()).toThrow('diverged: 1 recorded MCP tool call never asked for');
  });
});

describe('the broker and the remote link', () => {
  it('a wrapper in another process records through the broker: several at once, in the order they wrote', async () => {
    const file = join(dir, 'remote.tape.jsonl');
    const session = await record({ tape: file, mode: 'record' });
    const [one, two] = [await brokered(localLink(session)), await brokered(localLink(session))] as [McpLink, McpLink];
    expect([one.mode, one.strict, one.allowSideEffects, one.redact]).toEqual(['record', false, true, []]);
    const ids = await Promise.all([toolCall(one, 'memory', 'read_graph', 'a'), toolCall(two, 'memory', 'read_graph', 'b')]);
    expect([...ids].sort()).toEqual(['memory/read_graph:0', 'memory/read_graph:1']);
    await one.close();
    await two.close();
    await session.finish();
    const calls = (await eventsOf(file)).filter((e) => e.type === 'tool_call');
    expect(calls.map((e) => (e.type === 'tool_call' ? e.arguments : ''))).toHaveLength(2);
    expect(localLink(session).summary().recorded).toBe(2);
  });

  it('serves a replay\'s recorded events and takes its notes', async () => {
    const file = join(dir, 'mcp.tape.jsonl');
    await recordTape(file);
    const session = await replay({ tape: file, strict: false, allowSideEffects: true });
    const link = await brokered(localLink(session));
    expect([link.mode, link.strict, link.allowSideEffects]).toEqual(['replay', false, true]);
    expect((await link.recorded('files')).map((e) => e.type)).toEqual(['tool_call', 'tool_result']);
    await link.report({ kind: 'request', server: 'files', method: 'tools/call', tool: 'read_file', outcome: 'served' });
    expect(localLink(session).summary().served).toBe(1);
    await expect(link.writeCall({ type: 'tool_call', server: 'files', tool: 'x', arguments: '{}', key: 'k' })).rejects.toThrow(/records nothing/);
  });

  it('answers only its own token and well-formed requests', async () => {
    const session = await record({ tape: join(dir, 'guard.tape.jsonl'), mode: 'record' });
    const server = await serveBroker(mcpBroker(localLink(session)));
    servers.push(server);
    const wrong = server.url.replace(/[0-9a-f]{32}$/, '0'.repeat(32));
    await expect(remoteLink(wrong)).rejects.toThrow(InvalidOptionError);
    await expect(remoteLink(server.url.replace('127.0.0.1', 'example.com'))).rejects.toThrow(/this machine/);
    expect(await post(`${server.url}/setup`, '{}', 'GET')).toMatchObject({ status: 405 });
    expect(await post(`${server.url}/report`, '{"note":{"kind":"request","server":"m","method":"x","outcome":"maybe"}}')).toMatchObject({ status: 400 });
    expect(await post(`${server.url}/report`, 'not json')).toMatchObject({ status: 400 });
    expect(await post(`${server.url}/setup/more`, '{}')).toMatchObject({ status: 404 });
    expect(await post(`${server.url}/setup`, '{}')).toMatchObject({ status: 200 });
    await session.finish();
  });
});

/** One raw request to the broker: its status and body. */
function post(url: string, body: string, method = 'POST'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : body);
  });
}

describe('session.mcpServer()', () => {
  it('gives the agentctl mcp command joined to the session through a link it stops at finish()', async () => {
    const file = join(dir, 'server.tape.jsonl');
    const session = await record({ tape: file, mode: 'record' });
    const params = await session.mcpServer({ name: 'memory', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: '/tmp/m.json' } });
    expect(params.command).toBe(process.execPath);
    expect(params.args.slice(1)).toEqual(['mcp', '--name', 'memory', '--', 'npx', '-y', '@modelcontextprotocol/server-memory']);
    expect(params.args[0]).toMatch(/bin[/\\]agentctl\.js$/);
    expect(params.env['MEMORY_FILE_PATH']).toBe('/tmp/m.json');
    expect(params.env['OPENAI_API_KEY']).toBeUndefined();
    const again = await session.mcpServer({ name: 'files', command: 'node' });
    expect(again.env['AGENTCTL_MCP_LINK']).toBe(params.env['AGENTCTL_MCP_LINK']);
    const link = await remoteLink(params.env['AGENTCTL_MCP_LINK'] as string);
    await toolCall(link, 'memory', 'read_graph', 'a');
    await link.close();
    await session.finish();
    expect((await eventsOf(file)).filter((e) => e.type === 'tool_call')).toHaveLength(1);
    await expect(remoteLink(params.env['AGENTCTL_MCP_LINK'] as string)).rejects.toThrow(/cannot reach/);
    await expect(session.mcpServer({ name: 'a b', command: 'node' })).rejects.toThrow(InvalidOptionError);
  });
});
