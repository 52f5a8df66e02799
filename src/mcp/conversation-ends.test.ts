/**
 * How a conversation ends, against test/support/mcp-fake-server.mjs (a real process): a server
 * started on replay for a call the tape lacks may die and the tape still answers; new-episodes goes
 * on past the recorded end of its server; once a conversation is over, a request that comes still
 * is neither answered, nor reported, nor written, and the client gets nothing more; a replay of a
 * server that ended before any request is over at once; a request never answered is on the tape
 * without a reply.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import type { McpConversation } from './conversation.js';
import { isNotification, isReply, RPC_ERRORS } from './protocol.js';
import { SERVER_ENDED } from './recorded-tape.js';
import { memoryLink } from './test-support/memory-link.js';
import { answeredIds, call, INITIALIZE, INITIALIZED, request, talk } from './test-support/talk.js';
import { absentServer, fakeServer as fake, watched, wrapped } from './test-support/wrapper-harness.js';
import type { McpUpstream } from './upstream.js';

const KILLED = "agentctl: MCP server 'fake' killed by SIGKILL before it answered";

/** A recording through the SDK client: the tool list, an echo of "a", and (with `die`) a call that kills the server. */
async function recorded(die: boolean): Promise<RunEvent[]> {
  const link = memoryLink({ mode: 'record' });
  const session = await wrapped(link, fake(), 'fake');
  await session.client.listTools();
  await session.client.callTool({ name: 'echo', arguments: { text: 'a' } });
  if (die) await expect(session.client.callTool({ name: 'die', arguments: {} })).rejects.toMatchObject({ code: RPC_ERRORS.connectionClosed });
  expect(await session.close()).toBe(die ? 1 : 0);
  return link.events as RunEvent[];
}

/** The conversation's end if it has come, else 'open' (a settled promise wins a race over a later one). */
const endOf = (conversation: McpConversation): Promise<unknown> => Promise.race([conversation.ended, Promise.resolve('open')]);

describe('how a conversation ends', () => {
  it('a replay goes on when a server started for a call the tape lacks dies: the tape still answers, and nothing is written', async () => {
    const events = await recorded(false);
    const server = watched(fake());
    const link = memoryLink({ mode: 'replay', allowSideEffects: true, recorded: events });
    const replay = await wrapped(link, server, 'fake');
    await expect(replay.client.callTool({ name: 'die', arguments: {} })).rejects.toMatchObject({ code: RPC_ERRORS.connectionClosed, message: expect.stringContaining(KILLED) as string });
    expect(server.opened).toBe(1);
    expect(await replay.client.callTool({ name: 'echo', arguments: { text: 'a' } })).toEqual({ content: [{ type: 'text', text: 'echo {"text":"a"}' }] });
    expect(await replay.close()).toBe(0);
    expect(link.events).toEqual([]);
    expect(link.notes.filter((note) => note.kind === 'request' && note.method === 'tools/call').map((note) => note.kind === 'request' && `${note.tool} ${note.outcome}`)).toEqual([
      'die live',
      'echo served',
    ]);
    expect(replay.notes).toContain("MCP server 'fake' killed by SIGKILL");
  });

  it('new-episodes goes on past the recorded end of its server: what the tape lacks then runs on a server started for it', async () => {
    const server = watched(fake());
    const link = memoryLink({ mode: 'new-episodes', recorded: await recorded(true) });
    const session = await wrapped(link, server, 'fake');
    // Everything the tape has before its end, served.
    await session.client.listTools();
    await session.client.callTool({ name: 'echo', arguments: { text: 'a' } });
    await expect(session.client.callTool({ name: 'die', arguments: {} })).rejects.toMatchObject({ code: RPC_ERRORS.connectionClosed, message: expect.stringContaining(KILLED) as string });
    expect(server.opened).toBe(0);
    expect(await session.client.callTool({ name: 'echo', arguments: { text: 'b' } })).toEqual({ content: [{ type: 'text', text: 'echo {"text":"b"}' }] });
    expect(server.opened).toBe(1);
    expect(await session.close()).toBe(0);
    expect(link.events.filter((event) => event.type === 'tool_call').map((event) => event.type === 'tool_call' && `${event.tool} ${event.arguments}`)).toEqual([
      'echo {"text":"a"}',
      'die {}',
      'echo {"text":"b"}',
    ]);
  });

  it('new-episodes whose server dies goes on with the tape, and so does a replay of the run it wrote: no end of the server on it', async () => {
    const link = memoryLink({ mode: 'new-episodes', recorded: await recorded(false) });
    const session = await wrapped(link, fake(), 'fake');
    const use = async (client: typeof session.client): Promise<unknown> => {
      await client.listTools();
      await expect(client.callTool({ name: 'die', arguments: {} })).rejects.toMatchObject({ code: RPC_ERRORS.connectionClosed, message: expect.stringContaining(KILLED) as string });
      return client.callTool({ name: 'echo', arguments: { text: 'a' } });
    };
    const answered = await use(session.client);
    expect(await session.close()).toBe(0);
    expect(link.events.filter((event) => event.type === 'mcp_exchange' && event.method === SERVER_ENDED)).toEqual([]);

    const replayLink = memoryLink({ mode: 'replay', recorded: link.events as RunEvent[] });
    const replay = await wrapped(replayLink, absentServer, 'fake');
    expect(await use(replay.client)).toEqual(answered);
    expect(await replay.close()).toBe(0);
    expect(replayLink.notes.at(-1)).toEqual({ kind: 'end', server: 'fake', unused: 0 });
  });

  it('once a replay has served its server\'s recorded end, a request that comes still is neither answered nor reported', async () => {
    const link = memoryLink({ mode: 'replay', recorded: await recorded(true) });
    const { conversation, got } = await talk(link, absentServer);
    // All in one go, as a client writes them: the last comes after the end the tape has.
    await Promise.all([
      conversation.fromClient(request('initialize', INITIALIZE, 1)),
      conversation.fromClient(INITIALIZED),
      conversation.fromClient(request('tools/list', {}, 2)),
      conversation.fromClient(call('echo', { text: 'a' }, 3)),
      conversation.fromClient(call('die', {}, 4)),
      conversation.fromClient(call('echo', { text: 'b' }, 5)),
    ]);
    expect(await endOf(conversation)).toEqual({ reason: 'killed by SIGKILL', unexpected: true });
    await conversation.close();
    expect(answeredIds(got)).toEqual([1, 2, 3, 4]);
    expect(link.notes.map((note) => (note.kind === 'request' ? `${note.method} ${note.tool ?? ''} ${note.outcome}` : `end ${note.unused}`))).toEqual([
      'initialize  served',
      'tools/list  served',
      'tools/call echo served',
      'tools/call die served',
      'end 0',
    ]);
  });

  it('once a recording\'s server has ended, a request that comes as it ends goes nowhere: not to the client, not onto the tape', async () => {
    const link = memoryLink({ mode: 'record' });
    const write = link.write.bind(link);
    let late: Promise<void> | undefined;
    // The client's next request arrives while the server's end is being written.
    link.write = (event) => {
      if (event.type === 'mcp_exchange' && event.method === SERVER_ENDED) late = talking.conversation.fromClient(call('echo', { text: 'late' }, 3));
      return write(event);
    };
    const talking = await talk(link, fake());
    const { conversation } = talking;
    await conversation.fromClient(request('initialize', INITIALIZE, 1));
    await talking.answer(1);
    await conversation.fromClient(call('die', {}, 2));
    expect(await talking.answer(2)).toMatchObject({ error: { code: RPC_ERRORS.connectionClosed, message: KILLED } });
    expect(await conversation.ended).toEqual({ reason: 'killed by SIGKILL', unexpected: true });
    await late;
    await conversation.close();
    expect(answeredIds(talking.got)).toEqual([1, 2]);
    expect(link.events.map((event) => (event.type === 'mcp_exchange' ? event.method : `${event.type} ${event.tool}`))).toEqual([
      'initialize',
      'tool_call die',
      'tool_result die',
      SERVER_ENDED,
    ]);
  });

  it('a replay sends the client nothing after its recorded end, not even the answer of a call run live before it', async () => {
    const server = fake();
    let heard: () => void = () => undefined;
    const answered = new Promise<void>((done) => (heard = done));
    // The live server's answer to call 5, once the conversation has it.
    const listened: McpUpstream = {
      label: server.label,
      open: (handlers) =>
        server.open({
          message: (message) => {
            handlers.message(message);
            if (isReply(message) && message.id === 5) heard();
          },
          ended: handlers.ended,
        }),
    };
    const link = memoryLink({ mode: 'replay', strict: false, recorded: await recorded(true) });
    const { conversation, got } = await talk(link, listened);
    await Promise.all([
      conversation.fromClient(request('initialize', INITIALIZE, 1)),
      conversation.fromClient(request('tools/list', {}, 2)),
      // Not on the tape and read-only: run on the server, whose answer comes after the tape's end was served.
      conversation.fromClient(call('echo', { text: 'c' }, 5)),
      conversation.fromClient(call('echo', { text: 'a' }, 3)),
      conversation.fromClient(call('die', {}, 4)),
    ]);
    expect(await endOf(conversation)).toEqual({ reason: 'killed by SIGKILL', unexpected: true });
    await answered;
    await conversation.close();
    expect(answeredIds(got)).toEqual([1, 2, 3, 4]);
  });

  it('a request a server that stopped reading cannot take waits for the server\'s end, and is answered with how it ended', async () => {
    const link = memoryLink({ mode: 'record' });
    const { conversation, answer, when, got } = await talk(link, fake('deaf'));
    await conversation.fromClient(request('initialize', INITIALIZE, 1));
    await answer(1);
    await conversation.fromClient(call('pid', {}, 2));
    const pid = Number((await answer(2) as unknown as { result: { content: Array<{ text: string }> } }).result.content[0]?.text);
    await conversation.fromClient(call('echo', { text: 'a' }, 3));
    await when((message) => isNotification(message) && message.params?.['data'] === 'deaf');
    await conversation.fromClient(call('echo', { text: 'b' }, 4));
    expect(answeredIds(got)).toEqual([1, 2, 3]);
    process.kill(pid, 'SIGTERM');
    expect(await answer(4)).toMatchObject({ error: { code: RPC_ERRORS.connectionClosed, message: "agentctl: MCP server 'fake' killed by SIGTERM before it answered" } });
    await conversation.close();
  });

  it('the client closing right after a request: the request still reaches the server, and its answer the tape', async () => {
    const link = memoryLink({ mode: 'record' });
    const { conversation } = await talk(link, fake());
    void conversation.fromClient(call('echo', { text: 'a' }, 1));
    await conversation.close();
    expect(link.events.find((event) => event.type === 'tool_result')).toMatchObject({ status: 'ok', output: 'echo {"text":"a"}' });
  });

  it('passthrough writes nothing when its server dies, not even where it ended', async () => {
    const link = memoryLink({ mode: 'passthrough' });
    const { conversation, answer } = await talk(link, fake());
    await conversation.fromClient(call('die', {}, 1));
    expect(await answer(1)).toMatchObject({ error: { code: RPC_ERRORS.connectionClosed, message: KILLED } });
    expect(await conversation.ended).toEqual({ reason: 'killed by SIGKILL', unexpected: true });
    await conversation.close();
    expect(link.events).toEqual([]);
  });

  it('a replay of a server that ended before any request is over as soon as it opens', async () => {
    const link = memoryLink({ mode: 'record' });
    const { conversation } = await talk(link, fake('exit-at-start'));
    expect(await conversation.ended).toEqual({ reason: 'exited with code 3', unexpected: true });
    await conversation.close();
    expect(link.events).toMatchObject([{ type: 'mcp_exchange', from: 'server', method: SERVER_ENDED, params: { reason: 'exited with code 3' } }]);

    const replayLink = memoryLink({ mode: 'replay', recorded: link.events as RunEvent[] });
    const replay = await talk(replayLink, absentServer);
    expect(await endOf(replay.conversation)).toEqual({ reason: 'exited with code 3', unexpected: true });
    await replay.conversation.fromClient(request('initialize', INITIALIZE, 1));
    await replay.conversation.close();
    expect(replay.got).toEqual([]);
    expect(replayLink.notes).toEqual([{ kind: 'end', server: 'fake', unused: 0 }]);
  });

  it('a request other than a tool call that was never answered is on the tape without a reply, and new-episodes copies it so', async () => {
    const link = memoryLink({ mode: 'record' });
    const { conversation, answer } = await talk(link, fake());
    await conversation.fromClient(request('initialize', INITIALIZE, 1));
    await answer(1);
    await conversation.fromClient(request('resources/subscribe', { uri: 'file:///a' }, 2));
    await conversation.close();
    const subscribe = (events: readonly RunEvent[]) => events.find((event) => event.type === 'mcp_exchange' && event.method === 'resources/subscribe');
    expect(subscribe(link.events as RunEvent[])).toMatchObject({ from: 'client', params: { uri: 'file:///a' } });
    expect(subscribe(link.events as RunEvent[])).not.toHaveProperty('reply');

    const episodes = memoryLink({ mode: 'new-episodes', recorded: link.events as RunEvent[] });
    const again = await talk(episodes, absentServer);
    await again.conversation.fromClient(request('initialize', INITIALIZE, 1));
    await again.conversation.fromClient(request('resources/subscribe', { uri: 'file:///a' }, 2));
    await again.conversation.close();
    expect(answeredIds(again.got)).toEqual([1]);
    expect(subscribe(episodes.events as RunEvent[])).toMatchObject({ from: 'client', params: { uri: 'file:///a' } });
    expect(subscribe(episodes.events as RunEvent[])).not.toHaveProperty('reply');
  });
});
