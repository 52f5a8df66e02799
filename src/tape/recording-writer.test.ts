import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { Journal } from './journal.js';
import { recordingWriter } from './recording-writer.js';

const RUN = '01M80BD0DH1T99S5EY9167MAX3';
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-recording-writer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('hands the LevelDB writes behind the journal each event with the JSON the journal wrote, not serialised again', async () => {
  const journal = Journal.open(dir, RUN);
  const put: Array<{ events: RunEvent[]; lines: string[] }> = [];
  const { writer } = recordingWriter(journal, (events, lines) => {
    put.push({ events, lines });
    return Promise.resolve();
  }, 0, () => new Error('refused'));
  const events: RunEvent[] = [0, 1, 2].map((seq) => ({ type: 'warning', seq, step: 0, t: seq, message: `event ${seq}` }));
  await Promise.all(events.map((event, i) => writer.append(event, { sync: i === 2 })));
  await writer.close();
  journal.close();
  expect(put.flatMap((batch) => batch.events)).toEqual(events);
  expect(put.flatMap((batch) => batch.lines)).toEqual(events.map((event) => JSON.stringify(event)));
});
