/**
 * What a server says besides its answers, recorded and replayed (test/support/mcp-fake-server.mjs, a
 * real process): a notification while a call is open goes with that call's answer, one after the
 * answer goes onto the tape by itself, and a replay sends each where it came; a notification after a
 * list is sent once, however often the list is served; a request of the server's own is on the tape
 * once, with the client's answer, or without one when the server died before it came.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import type { McpRecordedEvent } from './link.js';
import { isNotification, isReply, isRequest, RPC_ERRORS, type JsonRpcMessage } from './protocol.js';
import { SERVER_ENDED } from './recorded-tape.js';
import { memoryLink } from './test-support/memory-link.js';
import { call, INITIALIZE, INITIALIZED, request, talk } from './test-support/talk.js';
import { absentServer, fakeServer } from './test-support/wrapper-harness.js';

/** A message as a line of a test: an answer's id, a notification's method and data, a request's method. */
function shown(message: JsonRpcMessage): string {
  if (isReply(message)) return `answer ${String(message.id)}`;
  if (isRequest(message)) return `request ${message.method}`;
  return `${message.method} ${String(message.params?.['data'])}`;
}

/** An event as a line of a test. */
function line(event: McpRecordedEvent): string {
  if (event.type !== 'mcp_exchange') return `${event.type} ${event.tool}`;
  const data = event.params?.['data'];
  return `${event.from} ${event.method}${data === undefined ? '' : ` ${String(data)}`}${event.reply === undefined ? '' : ' (answered)'}`;
}

describe('what a server says besides its answers', () => {
  it('a notification while a call is open goes with its answer, one after it onto the tape alone; a replay sends each where it came', async () => {
    const link = memoryLink({ mode: 'record' });
    const recording = await talk(link, fakeServer('chatty'));
    await recording.conversation.fromClient(request('initialize', INITIALIZE, 1));
    await recording.answer(1);
    await recording.conversation.fromClient(call('echo', { text: 'a' }, 2));
    await recording.when((message) => isNotification(message) && message.params?.['data'] === 'after');
    await recording.conversation.close();
    expect(recording.got.map(shown)).toEqual(['answer 1', 'notifications/message during', 'answer 2', 'notifications/message after']);
    expect(link.events.map(line)).toEqual(['client initialize (answered)', 'tool_call echo', 'tool_result echo', 'server notifications/message after']);
    expect(link.events.find((event) => event.type === 'tool_result')).toMatchObject({
      mcp: { notifications: [{ method: 'notifications/message', params: { level: 'info', data: 'during' } }] },
    });

    const replay = await talk(memoryLink({ mode: 'replay', recorded: link.events as RunEvent[] }), absentServer);
    await replay.conversation.fromClient(request('initialize', INITIALIZE, 7));
    await replay.conversation.fromClient(call('echo', { text: 'a' }, 8));
    await replay.conversation.close();
    expect(replay.got.map(shown)).toEqual(['answer 7', 'notifications/message during', 'answer 8', 'notifications/message after']);
  });

  it('a notification that followed a list is sent once, though the list is served again', async () => {
    const events = [
      { type: 'mcp_exchange', seq: 0, step: 0, t: 0, server: 'fake', from: 'client', method: 'tools/list', params: {}, reply: { result: { tools: [] } } },
      { type: 'mcp_exchange', seq: 1, step: 0, t: 0, server: 'fake', from: 'server', method: 'notifications/message', params: { level: 'info', data: 'listed' } },
    ] as RunEvent[];
    const replay = await talk(memoryLink({ mode: 'replay', recorded: events }), absentServer);
    await replay.conversation.fromClient(request('tools/list', {}, 1));
    await replay.conversation.fromClient(request('tools/list', {}, 2));
    await replay.conversation.close();
    expect(replay.got.map(shown)).toEqual(['answer 1', 'notifications/message listed', 'answer 2']);
    // No server ran: the conversation ended with its client, as expected.
    expect(await replay.conversation.ended).toEqual({ reason: 'the client closed', unexpected: false });
  });

  it('a request of the server\'s own is on the tape once with the client\'s answer, or without one when the server died before it came', async () => {
    const link = memoryLink({ mode: 'record' });
    const { conversation, answer, when } = await talk(link, fakeServer());
    await conversation.fromClient(request('initialize', INITIALIZE, 1));
    await answer(1);
    await conversation.fromClient(INITIALIZED);
    // ask: the server asks the client for a ping and for its roots, and answers once both are answered.
    await conversation.fromClient(call('ask', {}, 2));
    await when((message) => isRequest(message) && message.method === 'roots/list');
    await conversation.fromClient({ jsonrpc: '2.0', id: 'server-1', result: {} });
    await conversation.fromClient(call('die', {}, 3));
    expect(await conversation.ended).toEqual({ reason: 'killed by SIGKILL', unexpected: true });
    await conversation.close();
    expect(link.events.map(line)).toEqual([
      'client initialize (answered)',
      'client notifications/initialized',
      'tool_call ask',
      'server ping (answered)',
      'tool_call die',
      'tool_result ask',
      'tool_result die',
      'server roots/list',
      `server ${SERVER_ENDED}`,
    ]);
    expect(link.events.filter((event) => event.type === 'tool_result').map((event) => event.type === 'tool_result' && event.mcp?.error?.code)).toEqual([
      RPC_ERRORS.connectionClosed,
      RPC_ERRORS.connectionClosed,
    ]);
  });

  it('new-episodes, its server dead, writes no late answer of the client to a request of that server', async () => {
    const link = memoryLink({ mode: 'new-episodes', recorded: [] });
    const { conversation, answer, when } = await talk(link, fakeServer());
    await conversation.fromClient(request('initialize', INITIALIZE, 1));
    await answer(1);
    await conversation.fromClient(call('ask', {}, 2));
    await when((message) => isRequest(message) && message.method === 'roots/list');
    await conversation.fromClient(call('die', {}, 3));
    await answer(3);
    // The tape goes on answering: the conversation is not over, and the client answers the dead server.
    await conversation.fromClient({ jsonrpc: '2.0', id: 'server-2', result: { roots: [] } });
    await conversation.close();
    expect(link.events.map(line).slice(-4)).toEqual(['tool_result ask', 'tool_result die', 'server ping', 'server roots/list']);
  });
});
