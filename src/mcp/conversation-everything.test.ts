/**
 * The record/replay wrapper against @modelcontextprotocol/server-everything and the official SDK's
 * client: progress notifications recorded with their call and replayed before its answer, in
 * order; a server killed in the middle of a call recorded as the error the client saw, and replayed
 * as that error, after which the replay ends as the recording did; secrets in arguments and
 * answers never on the tape (and a replay still matches the call); a request of the server's own
 * (sampling) recorded with the client's answer and not asked again on replay.
 */
import { execFileSync } from 'node:child_process';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { RPC_ERRORS } from './protocol.js';
import { memoryLink } from './test-support/memory-link.js';
import { absentServer, EVERYTHING_SERVER, nodeServer, wrapped, type ClientSetup } from './test-support/wrapper-harness.js';

const everything = (tag: string, env: NodeJS.ProcessEnv = {}) => nodeServer(EVERYTHING_SERVER, ['stdio', tag], env);
const LONG = 'trigger-long-running-operation';
const KILLED = "agentctl: MCP server 'everything' killed by SIGKILL before it answered";
const SHORT = { name: LONG, arguments: { duration: 0.3, steps: 3 } };
const SLOW = { name: LONG, arguments: { duration: 60, steps: 60 } };

describe('the wrapper with server-everything', () => {
  it('records progress notifications with their call and replays them in order before the answer', async () => {
    const link = memoryLink({ mode: 'record' });
    const session = await wrapped(link, everything('agentctl-test-progress'), 'everything');
    const progress: number[] = [];
    const recorded = await session.client.callTool(SHORT, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2, 3]);
    expect(await session.close()).toBe(0);
    const result = link.events.find((e) => e.type === 'tool_result');
    expect(result?.type === 'tool_result' && result.mcp?.notifications?.filter((n) => n.method === 'notifications/progress').map((n) => [n.method, n.params?.['progress']])).toEqual([
      ['notifications/progress', 1],
      ['notifications/progress', 2],
      ['notifications/progress', 3],
    ]);

    const replayLink = memoryLink({ mode: 'replay', recorded: link.events as RunEvent[] });
    const replay = await wrapped(replayLink, absentServer, 'everything');
    const replayed: number[] = [];
    // A ping first (answered by the wrapper, not on the tape): the client's ids, and so its progress token, move on by one.
    await replay.client.ping();
    const answer = await replay.client.callTool(SHORT, undefined, { onprogress: (p) => replayed.push(p.progress) });
    expect(answer).toEqual(recorded);
    expect(replayed).toEqual([1, 2, 3]);
    expect(await replay.close()).toBe(0);
  });

  it('puts a progress notification with the call whose token it carries, not the oldest open one', async () => {
    const link = memoryLink({ mode: 'record' });
    const session = await wrapped(link, everything('agentctl-test-two-calls'), 'everything');
    // The first call, without a progress token, is still running when the second one's progress comes.
    const slow = session.client.callTool({ name: LONG, arguments: { duration: 3, steps: 1 } });
    const progress: number[] = [];
    await session.client.callTool(SHORT, undefined, { onprogress: (p) => progress.push(p.progress) });
    await slow;
    expect(progress).toEqual([1, 2, 3]);
    expect(await session.close()).toBe(0);
    const progressOf = (duration: number) => {
      const call = link.events.find((e) => e.type === 'tool_call' && JSON.parse(e.arguments).duration === duration);
      const result = link.events.find((e) => e.type === 'tool_result' && e.callId === (call?.type === 'tool_call' ? call.callId : ''));
      return (result?.type === 'tool_result' ? result.mcp?.notifications ?? [] : []).filter((n) => n.method === 'notifications/progress').length;
    };
    expect(progressOf(3)).toBe(0);
    expect(progressOf(0.3)).toBe(3);
  });

  it('records a call the client left before its answer as an error saying so', async () => {
    const link = memoryLink({ mode: 'record' });
    const session = await wrapped(link, everything('agentctl-test-client-left'), 'everything');
    let firstProgress: () => void = () => undefined;
    const started = new Promise<void>((done) => (firstProgress = done));
    const call = session.client.callTool(SLOW, undefined, { onprogress: () => firstProgress(), timeout: 120_000 });
    const gone = call.then(() => 'answered', () => 'gone');
    await started;
    expect(await session.close()).toBe(0);
    expect(await gone).toBe('gone');
    expect(link.events.filter((e) => e.type === 'tool_result')).toMatchObject([
      { tool: LONG, status: 'error', output: "agentctl: the client went away before MCP server 'everything' answered" },
    ]);
  });

  it('records a server killed mid-call as the error the client got, and replays that error, then ends', async () => {
    const tag = 'agentctl-test-killed-mid-call';
    const link = memoryLink({ mode: 'record' });
    const session = await wrapped(link, everything(tag), 'everything');
    let firstProgress: () => void = () => undefined;
    const started = new Promise<void>((done) => (firstProgress = done));
    const call = session.client.callTool(SLOW, undefined, { onprogress: () => firstProgress(), timeout: 120_000 });
    const failed = expect(call).rejects.toMatchObject({ code: RPC_ERRORS.connectionClosed, message: expect.stringContaining(KILLED) as string });
    await started;
    const pids = execFileSync('pgrep', ['-f', tag]).toString().trim().split('\n');
    expect(pids).toHaveLength(1);
    process.kill(Number(pids[0]), 'SIGKILL');
    await failed;
    expect(await session.exit).toBe(1);
    const tail = link.events.slice(-2);
    expect(tail[0]).toMatchObject({
      type: 'tool_result',
      tool: LONG,
      status: 'error',
      output: KILLED,
      mcp: { error: { code: RPC_ERRORS.connectionClosed } },
    });
    expect(tail[1]).toMatchObject({ type: 'mcp_exchange', from: 'server', method: 'agentctl/server_ended', params: { reason: 'killed by SIGKILL' } });
    expect(session.notes).toEqual(["MCP server 'everything' killed by SIGKILL"]);

    const replayLink = memoryLink({ mode: 'replay', recorded: link.events as RunEvent[] });
    const replay = await wrapped(replayLink, absentServer, 'everything');
    const closed = new Promise<void>((done) => (replay.client.onclose = done));
    const again = replay.client.callTool(SLOW, undefined, { onprogress: () => undefined });
    await expect(again).rejects.toMatchObject({ code: RPC_ERRORS.connectionClosed, message: expect.stringContaining(KILLED) as string });
    // The output ends after the recorded end: the client sees its server go, and the wrapper exits as the recording did.
    await closed;
    expect(await replay.exit).toBe(1);
    expect(replayLink.notes.at(-1)).toEqual({ kind: 'end', server: 'everything', unused: 0 });
  });

  it('keeps secrets in arguments and answers off the tape, and a replay still matches the call', async () => {
    const secret = 'sk-proj-Xq7vR2mT9pL4wK8sN1bY6cF3hJ5dG0aZ';
    const link = memoryLink({ mode: 'record' });
    const session = await wrapped(link, everything('agentctl-test-secrets', { PROBE_VALUE: secret }), 'everything');
    const env = await session.client.callTool({ name: 'get-env', arguments: {} });
    expect(JSON.stringify(env)).toContain(secret);
    const echoed = await session.client.callTool({ name: 'echo', arguments: { message: `the key is ${secret}` } });
    expect(JSON.stringify(echoed)).toContain(secret);
    expect(await session.close()).toBe(0);
    const tape = JSON.stringify(link.events);
    expect(tape).not.toContain(secret);
    expect(tape).toContain('[REDACTED]');
    expect(link.events.find((e) => e.type === 'tool_call' && e.tool === 'echo')).toMatchObject({ arguments: '{"message":"the key is [REDACTED]"}' });

    const replayLink = memoryLink({ mode: 'replay', recorded: link.events as RunEvent[] });
    const replay = await wrapped(replayLink, absentServer, 'everything');
    const served = await replay.client.callTool({ name: 'echo', arguments: { message: `the key is ${secret}` } });
    expect(served).toEqual({ content: [{ type: 'text', text: 'Echo: the key is [REDACTED]' }] });
    expect(await replay.close()).toBe(0);
    expect(replayLink.notes.filter((note) => note.kind === 'request' && note.outcome !== 'served')).toEqual([]);
  });

  it('records a request of the server\'s own with the client\'s answer, and does not ask it again on replay', async () => {
    let asked = 0;
    const setup: ClientSetup = {
      capabilities: { sampling: {} },
      prepare: (client) =>
        client.setRequestHandler(CreateMessageRequestSchema, () => {
          asked++;
          return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'test-model' };
        }),
    };
    const link = memoryLink({ mode: 'record' });
    const session = await wrapped(link, everything('agentctl-test-sampling'), 'everything', setup);
    const tools = await session.client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('trigger-sampling-request');
    const recorded = await session.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'the answer?' } });
    expect(asked).toBe(1);
    expect(await session.close()).toBe(0);
    const exchange = link.events.find((e) => e.type === 'mcp_exchange' && e.from === 'server' && e.method === 'sampling/createMessage');
    expect(exchange).toMatchObject({ reply: { result: { content: { text: 'forty-two' } } } });
    const kinds = link.events.map((e) => e.type === 'mcp_exchange' ? e.method : e.type);
    expect(kinds.indexOf('sampling/createMessage')).toBeGreaterThan(kinds.indexOf('tool_call'));
    expect(kinds.indexOf('sampling/createMessage')).toBeLessThan(kinds.indexOf('tool_result'));

    const replayLink = memoryLink({ mode: 'replay', recorded: link.events as RunEvent[] });
    const replay = await wrapped(replayLink, absentServer, 'everything', setup);
    await replay.client.listTools();
    expect(await replay.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'the answer?' } })).toEqual(recorded);
    expect(asked).toBe(1);
    expect(await replay.close()).toBe(0);
  });

  it('keeps secrets in a request of the server\'s own, and in the client\'s answer to it, off the tape', async () => {
    const secret = 'sk-proj-Xq7vR2mT9pL4wK8sN1bY6cF3hJ5dG0aZ';
    const setup: ClientSetup = {
      capabilities: { sampling: {} },
      prepare: (client) =>
        client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', content: { type: 'text', text: `use ${secret}` }, model: 'test-model' })),
    };
    const link = memoryLink({ mode: 'record' });
    const session = await wrapped(link, everything('agentctl-test-sampling-secret'), 'everything', setup);
    await session.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: `the key is ${secret}` } });
    expect(await session.close()).toBe(0);
    const exchange = link.events.find((e) => e.type === 'mcp_exchange' && e.from === 'server' && e.method === 'sampling/createMessage');
    expect(JSON.stringify(exchange?.type === 'mcp_exchange' ? exchange.params : undefined)).toContain('the key is [REDACTED]');
    expect(exchange).toMatchObject({ reply: { result: { content: { text: 'use [REDACTED]' } } } });
    expect(JSON.stringify(link.events)).not.toContain(secret);
  });
});
