/**
 * A recorded answer's duration is the conversation's clock from the request sent to the answer
 * back (an injected clock here, so the tape's number is known); a wall clock set back meanwhile
 * gives 0, never a negative duration.
 */
import { describe, expect, it } from 'vitest';
import type { Clock } from '../core/clock.js';
import { createRedactor } from '../core/redact.js';
import { openConversation } from './conversation.js';
import { isRequest, type JsonRpcMessage } from './protocol.js';
import { memoryLink } from './test-support/memory-link.js';
import type { McpUpstream } from './upstream.js';

/** One call to a server during whose answer the clock moves by `step` ms: the tool_result written. */
async function resultWhenClockMoves(step: number): Promise<unknown> {
  let now = 1000;
  const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };
  const upstream: McpUpstream = {
    label: 'timed',
    open: (handlers) =>
      Promise.resolve({
        send: (message: JsonRpcMessage) => {
          if (isRequest(message)) {
            now += step;
            setImmediate(() => handlers.message({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'ok' }] } }));
          }
          return Promise.resolve();
        },
        close: () => Promise.resolve(),
      }),
  };
  const link = memoryLink({ mode: 'record' });
  const answered: JsonRpcMessage[] = [];
  let got: () => void = () => undefined;
  const answer = new Promise<void>((done) => (got = done));
  const conversation = await openConversation({
    server: 'timed', link, upstream, clock, redact: createRedactor({ patterns: [] }),
    toClient: (message) => {
      answered.push(message);
      got();
    },
  });
  await conversation.fromClient({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'look', arguments: {} } });
  await answer;
  await conversation.close();
  expect(answered).toHaveLength(1);
  return link.events.find((event) => event.type === 'tool_result');
}

describe('the recorded duration of an answer', () => {
  it('is the clock\'s time between the request and its answer', async () => {
    expect(await resultWhenClockMoves(7)).toMatchObject({ status: 'ok', output: 'ok', durationMs: 7 });
  });

  it('is 0 when the clock was set back meanwhile', async () => {
    expect(await resultWhenClockMoves(-7)).toMatchObject({ status: 'ok', output: 'ok', durationMs: 0 });
  });
});
