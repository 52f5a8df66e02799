import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import type { RunEvent, RunEventInput } from '../core/events.js';
import { createRedactor, REDACTED } from '../core/redact.js';
import { TapeStore } from '../tape/tape-store.js';
import { RecordingSession } from './recording-session.js';

const SECRET = 'sk-proj-SPLITSECRETabcdefgh123456';

let dir: string;
let store: TapeStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-session-'));
  store = await TapeStore.open(dir, { create: true });
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const chunk = (iteration: number, index: number, content: string, finished = false): RunEventInput => ({
  type: 'llm_chunk', step: iteration, iteration, attempt: 0, chunk: { index, offsetMs: index, content, finished },
});

async function events(runId: string): Promise<RunEvent[]> {
  const out: RunEvent[] = [];
  for await (const event of store.readEvents(runId)) out.push(event);
  return out;
}

describe('RecordingSession', () => {
  it('writes overlapping streams one after the other, so a key split across one stream\'s chunks is redacted whole', async () => {
    const session = new RecordingSession({ store, ownsStore: false, redact: createRedactor(), source: 'library', clock: new ManualClock(0) });
    await session.start({ model: 'm' });
    // Stream 0 carries the key in two pieces; stream 1's chunks arrive in between.
    const writes = [
      session.write(chunk(0, 0, `A says ${SECRET.slice(0, 12)}`)),
      session.write(chunk(1, 0, ' B-one ')),
      session.write(chunk(0, 1, `${SECRET.slice(12)} end`)),
      session.write(chunk(1, 1, ' B-two ')),
      session.write(chunk(1, 2, '', true)),
      session.write(chunk(0, 2, '', true)),
    ];
    await Promise.all(writes);
    await session.finish();
    const written = await events(session.runId);
    const chunks = written.filter((e) => e.type === 'llm_chunk');
    // Each stream's chunks are contiguous, in their own order.
    expect(chunks.map((e) => e.type === 'llm_chunk' && `${e.iteration}.${e.chunk.index}`)).toEqual(['1.0', '1.1', '1.2', '0.0', '0.1', '0.2']);
    expect(chunks.map((e) => e.type === 'llm_chunk' && (e.chunk.content ?? ''))).toEqual([' B-one ', ' B-two ', '', `A says ${REDACTED}`, ' end', '']);
    expect(JSON.stringify(written)).not.toContain(SECRET.slice(-6));
    expect(written.at(-1)).toMatchObject({ type: 'run_end' });
  });

  it('writes the chunks of a stream that never ended before run_end', async () => {
    const session = new RecordingSession({ store, ownsStore: false, redact: createRedactor(), source: 'library' });
    await session.start({ model: 'm' });
    void session.write(chunk(0, 0, 'half an answer'));
    await session.finish();
    const written = await events(session.runId);
    expect(written.map((e) => e.type)).toEqual(['run_start', 'llm_chunk', 'run_end']);
  });
});
