/**
 * The server a replay starts for a request the tape lacks (test/support/mcp-fake-server.mjs, a real
 * process): started once for every such request (introduced with the recorded initialize when the
 * client sent none), and stopped at the end; one that exits before it
 * answers agentctl's initialize, or refuses it, leaves the request refused with why, and is stopped.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { RPC_ERRORS } from './protocol.js';
import { memoryLink } from './test-support/memory-link.js';
import { call, talk } from './test-support/talk.js';
import { fakeServer, watched, wrapped } from './test-support/wrapper-harness.js';

/** A recording of the tool list (echo read-only on it) and one echo. */
async function recorded(): Promise<RunEvent[]> {
  const link = memoryLink({ mode: 'record' });
  const session = await wrapped(link, fakeServer(), 'fake');
  await session.client.listTools();
  await session.client.callTool({ name: 'echo', arguments: { text: 'a' } });
  expect(await session.close()).toBe(0);
  return link.events as RunEvent[];
}

describe('the server a replay starts', () => {
  it('is started once for all the calls the tape lacks', async () => {
    const server = watched(fakeServer());
    const replay = await wrapped(memoryLink({ mode: 'replay', strict: false, recorded: await recorded() }), server, 'fake');
    for (const text of ['b', 'c']) expect(await replay.client.callTool({ name: 'echo', arguments: { text } })).toEqual({ content: [{ type: 'text', text: `echo {"text":"${text}"}` }] });
    expect(await replay.close()).toBe(0);
    expect(server.opened).toBe(1);
    expect(server.closed).toBe(1);
  });

  it('is introduced with the recorded initialize when the client sent none', async () => {
    const server = watched(fakeServer());
    const { conversation, answer } = await talk(memoryLink({ mode: 'replay', strict: false, recorded: await recorded() }), server);
    await conversation.fromClient(call('echo', { text: 'b' }, 1));
    expect(await answer(1)).toMatchObject({ result: { content: [{ text: 'echo {"text":"b"}' }] } });
    await conversation.close();
    expect(server.sent[0]).toMatchObject({ method: 'initialize', params: { clientInfo: { name: 'agentctl-test' } } });
  });

  for (const [mode, why] of [
    ['exit-at-start', 'its initialize failed: exited with code 3'],
    ['refuse-initialize', 'its initialize failed: this client is not welcome'],
  ] as const) {
    it(`${mode}: the call is refused with why, and the server stopped`, async () => {
      const server = watched(fakeServer(mode));
      const link = memoryLink({ mode: 'replay', recorded: await recorded() });
      const replay = await wrapped(link, server, 'fake');
      await expect(replay.client.callTool({ name: 'echo', arguments: { text: 'b' } })).rejects.toMatchObject({
        code: RPC_ERRORS.notReplayed,
        message: expect.stringContaining(`agentctl: tools/call echo is not on the tape, and MCP server 'fake' could not be started to run it: ${why}`) as string,
      });
      expect(server.closed).toBe(1);
      expect(await replay.close()).toBe(0);
      expect(link.notes.filter((note) => note.kind === 'request' && note.method === 'tools/call')).toMatchObject([{ tool: 'echo', outcome: 'refused' }]);
    });
  }
});
