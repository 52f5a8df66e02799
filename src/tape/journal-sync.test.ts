/**
 * When the journal's fdatasync is made: a recorded model reply must be on disk before the loop is
 * told it is written (and acts on it). No file read back afterwards can tell a synced write from one
 * the OS still holds, so these tests watch the journal's system calls in order
 * (test-support/journal-syscalls.ts), each still made on real files in a temp dir — through the
 * Journal on its own, and from RunRecorder through a real TapeStore (real LevelDB) to its journal.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../core/events.js';
import { createRedactor } from '../core/redact.js';
import { Journal } from './journal.js';
import { RunRecorder } from './run-recorder.js';
import { TapeStore } from './tape-store.js';
import { watchJournalSyscalls, type Syscall, type SyscallWatch } from './test-support/journal-syscalls.js';

const RUN = '01M80BD0DH1T99S5EY9167MAX2';
const warning = (seq: number): RunEvent => ({ type: 'warning', seq, step: 0, t: seq, message: `event ${seq}` });
/** Events as the journal takes them: each as its JSON. */
const json = (...events: RunEvent[]): string[] => events.map((event) => JSON.stringify(event));

let dir: string;
let watch: SyscallWatch;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentctl-journal-sync-'));
  watch = watchJournalSyscalls();
});
afterEach(async () => {
  watch.restore();
  await rm(dir, { recursive: true, force: true });
});

/** Where in the log the first entry after `from` is that `is` accepts; -1 when none is. */
const indexAfter = (log: readonly Syscall[], from: number, is: (entry: Syscall) => boolean): number =>
  log.findIndex((entry, i) => i > from && is(entry));

describe('the journal\'s fdatasync', () => {
  it('follows a synced batch\'s record on the journal\'s descriptor before append returns; an unsynced batch gets none', () => {
    const journal = Journal.open(dir, RUN);
    const fd = watch.fdOf((path) => path === journal.path);
    watch.log.length = 0;
    journal.append(json(warning(0)), false);
    watch.mark('unsynced append returned');
    journal.append(json(warning(1), warning(2)), true);
    watch.mark('synced append returned');
    journal.close();
    expect(watch.log).toEqual([
      { call: 'write', fd, text: expect.stringContaining('"seq":0') },
      { call: 'mark', what: 'unsynced append returned' },
      { call: 'write', fd, text: expect.stringContaining('"seq":2') },
      { call: 'fdatasync', fd },
      { call: 'mark', what: 'synced append returned' },
      { call: 'close', fd },
    ]);
  });

  it('puts a model reply recorded through a real store on disk before the recorder says it is written', async () => {
    const store = await TapeStore.open(dir);
    try {
      const recorder = await RunRecorder.start(store, { kind: 'record', task: 't', model: 'm', config: {}, seed: 0 }, createRedactor());
      const fd = watch.fdOf((path) => basename(path).startsWith('journal-'));
      const at = (seq: number) => ({ seq, step: 0, t: seq, iteration: 0 });
      // Group-committed, not waited for: the request rides with (or before) the reply's synced batch.
      void recorder.write({ ...at(0), type: 'llm_request', prefix: 0, append: [{ role: 'user', content: 'hi' }], hash: 'h', model: 'm', stream: false, tools: [] });
      await recorder.write({
        ...at(1), type: 'llm_response', attempt: 0, durationMs: 1,
        response: { message: { role: 'assistant', content: 'the reply' }, finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
      }).then(() => watch.mark('reply written'));

      const log = watch.log;
      const wrote = log.findIndex((e) => e.call === 'write' && e.fd === fd && e.text.includes('"type":"llm_response"'));
      const synced = indexAfter(log, wrote, (e) => e.call === 'fdatasync' && e.fd === fd);
      const told = log.findIndex((e) => e.call === 'mark' && e.what === 'reply written');
      expect(wrote, 'the reply is written to the journal').toBeGreaterThanOrEqual(0);
      expect(synced, 'an fdatasync of the journal follows it').toBeGreaterThan(wrote);
      expect(told, 'before the recorder says it is written').toBeGreaterThan(synced);
      await recorder.finish(null);
    } finally {
      await store.close();
    }
  });
});
