import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { createRedactor } from '../core/redact.js';
import { readCallTape } from '../replay/call-tape.js';
import { TapeStore } from '../tape/tape-store.js';
import { recordingTool, replayingTool, ToolNotReplayedError } from './recorded-tool.js';
import { RecordingSession } from './recording-session.js';

let dir: string;
let store: TapeStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-tool-'));
  store = await TapeStore.open(dir, { create: true });
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function recorded(runId: string): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const event of store.readEvents(runId)) out.push(event);
  return out;
}

describe('recordTool', () => {
  it('records the input and the value; on replay the value comes back and nothing runs; a call the tape lacks follows the policy', async () => {
    const session = new RecordingSession({ store, ownsStore: false, redact: createRedactor(), source: 'library' });
    const effects: string[] = [];
    const send = async (input: { to: string }, _context?: unknown): Promise<{ sent: string }> => {
      effects.push(input.to);
      return { sent: input.to };
    };
    const live = recordingTool(session, createRedactor(), 'send', send);
    // A framework's context after the input is not recorded (the default: the first argument).
    expect(await live({ to: 'bob' }, { runContext: { usage: 1 } })).toEqual({ sent: 'bob' });
    await session.finish();
    const events = await recorded(session.runId);
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ tool: 'send', arguments: '{"to":"bob"}' });

    const tape = await readCallTape(events);
    const used = new Set<(typeof tape.tools)[number]>();
    const replayed = replayingTool(tape.tools, used, createRedactor(), 'send', send, { mutating: true }, false);
    expect(await replayed({ to: 'bob' }, { another: 'context' })).toEqual({ sent: 'bob' });
    expect(effects).toEqual(['bob']); // not sent again
    await expect(replayed({ to: 'carol' })).rejects.toBeInstanceOf(ToolNotReplayedError);
    const readOnly = replayingTool(tape.tools, used, createRedactor(), 'send', send, { idempotent: true, mutating: false }, false);
    expect(await readOnly({ to: 'dave' })).toEqual({ sent: 'dave' }); // safe to run: it runs
  });

  it('a value JSON cannot hold still reaches the agent; the tape keeps its text', async () => {
    const session = new RecordingSession({ store, ownsStore: false, redact: createRedactor(), source: 'library' });
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const tool = recordingTool(session, createRedactor(), 'odd', async (which: string) => (which === 'cycle' ? cyclic : { n: 10n }), { arguments: 'all' });
    expect(await tool('cycle')).toBe(cyclic);
    expect(await tool('big')).toEqual({ n: 10n });
    await session.finish();
    const results = (await recorded(session.runId)).filter((e) => e.type === 'tool_result');
    expect(results.map((e) => e.type === 'tool_result' && [e.status, e.output])).toEqual([
      ['ok', '"[object Object]"'],
      ['ok', '{"n":"10"}'],
    ]);
  });
});
