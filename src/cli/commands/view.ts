/**
 * `agentctl view <run | file>`: show a recorded run or a tape file without replaying it, in the
 * terminal UI — or, without a terminal, as one line per event (NDJSON with --json). The events are
 * shown as they are read: the UI opens on the first of a long tape and takes the rest while the user
 * looks (a tape is read at its own pace, so the UI is given its turns: display.ts). The store is
 * closed as soon as every event is read, while the UI still shows them, so a recording or another
 * command can use it. Quitting (or Ctrl-C) while the tape is read stops the reading: exit 130.
 * Works on incomplete runs and on runs recorded through the library. Exit 0.
 */
import { runRedactor } from '../../core/redact.js';
import { printableLine } from '../../core/terminal-text.js';
import { openTapeSource, sourceBatches, type TapeSource } from '../../replay/tape-source.js';
import { checkedTapes } from '../tape-cache.js';
import { isTapePath } from '../../tape/tape-file.js';
import type { TapeStore } from '../../tape/tape-store.js';
import { displayKind, openDisplay, type Display } from '../display.js';
import { runOutcome } from '../format.js';
import type { GlobalOptions } from '../io.js';
import { abortOnSigint } from '../signals.js';
import { openStore, storeDir } from '../store-dir.js';
import { count } from '../../core/plural.js';
import { StepCounter } from '../../core/steps.js';

export async function runView(ref: string, options: GlobalOptions): Promise<void> {
  const kind = displayKind(options);
  let store: TapeStore | undefined;
  const closeStore = async (): Promise<void> => {
    const open = store;
    store = undefined;
    await open?.close();
  };
  const sigint = abortOnSigint();
  try {
    const source = await openTapeSource(ref, async () => (store ??= await openStore(storeDir(options.store), { readOnly: true })), checkedTapes());
    const { meta } = source;
    const display = await openDisplay(kind, options, {
      session: {
        mode: 'viewing',
        runId: meta.id,
        ...(meta.name === undefined ? {} : { name: meta.name }),
        ...(isTapePath(ref) ? { source: ref } : {}),
      },
      redact: runRedactor(),
      onCancel: sigint.cancel,
    });
    let shown: { events: number; steps: number };
    try {
      shown = await showEvents(source, display, sigint.signal);
      await closeStore();
    } catch (error) {
      await display.dispose();
      throw error;
    }
    const stopped = sigint.signal.aborted;
    const exitCode = stopped ? 130 : 0;
    process.exitCode = exitCode;
    const steps = meta.totals?.steps ?? shown.steps;
    const run = `${meta.kind} run ${meta.id}${meta.name === undefined ? '' : ` (${meta.name})`}: ${runOutcome(meta)}`;
    await display.finish(
      { runId: meta.id, state: meta.finalState ?? meta.status, steps, exitCode },
      [printableLine(stopped ? `${run}; reading stopped after ${shown.events} events` : `${run}, ${count(steps, 'step')}, ${count(shown.events, 'event')}`)],
    );
  } finally {
    sigint.dispose();
    await closeStore();
  }
}

/**
 * The source's events shown, a batch read at a time, until `stop` (checked after each turn of the
 * event loop, the only time a key or a signal can stop it); how many events and steps.
 */
async function showEvents(source: TapeSource, display: Display, stop: AbortSignal): Promise<{ events: number; steps: number }> {
  const steps = new StepCounter();
  let events = 0;
  reading: for await (const batch of sourceBatches(source)) {
    for (const event of batch) {
      events++;
      steps.add(event);
      const turn = display.event(event);
      if (turn === undefined) continue;
      await turn;
      if (stop.aborted) break reading;
    }
  }
  return { events, steps: steps.count };
}
