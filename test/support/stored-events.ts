import type { RunEvent } from '../../src/core/events.js';
import { TapeStore } from '../../src/tape/tape-store.js';

/** Every event of a run in the store at `store`, which is opened for the read and closed again. */
export async function storedEvents(store: string, runId: string): Promise<RunEvent[]> {
  const opened = await TapeStore.open(store, { create: false });
  try {
    const out: RunEvent[] = [];
    for await (const event of opened.readEvents(runId)) out.push(event);
    return out;
  } finally {
    await opened.close();
  }
}
