/**
 * `agentctl view <run | file>`: show a recorded run or a tape file without replaying it. The events
 * are read first (and the store closed again, so a recording can go on), then shown in the terminal
 * UI — or, without a terminal, as one line per event (NDJSON with --json). Works on incomplete runs
 * and on runs recorded through the library. Exit 0.
 */
import type { RunEvent } from '../../core/events.js';
import { runRedactor } from '../../core/redact.js';
import { printableLine } from '../../core/terminal-text.js';
import { openTapeSource } from '../../replay/tape-source.js';
import { checkedTapes } from '../tape-cache.js';
import { isTapePath } from '../../tape/tape-file.js';
import type { TapeStore } from '../../tape/tape-store.js';
import { displayKind, openDisplay } from '../display.js';
import { runOutcome } from '../format.js';
import type { GlobalOptions } from '../io.js';
import { openStore, storeDir } from '../store-dir.js';
import { count } from '../../core/plural.js';
import { countSteps } from '../../core/steps.js';

export async function runView(ref: string, options: GlobalOptions): Promise<void> {
  const kind = displayKind(options);
  let store: TapeStore | undefined;
  const events: RunEvent[] = [];
  let source;
  try {
    source = await openTapeSource(ref, async () => (store ??= await openStore(storeDir(options.store), { readOnly: true })), checkedTapes());
    for await (const event of source.events()) events.push(event);
  } finally {
    await store?.close();
  }
  const { meta } = source;
  const display = await openDisplay(kind, options, {
    session: {
      mode: 'viewing',
      runId: meta.id,
      ...(meta.name === undefined ? {} : { name: meta.name }),
      ...(isTapePath(ref) ? { source: ref } : {}),
    },
    redact: runRedactor(),
    onCancel: () => undefined,
  });
  try {
    for (const event of events) display.event(event);
  } catch (error) {
    await display.dispose();
    throw error;
  }
  const outcome = runOutcome(meta);
  const steps = meta.totals?.steps ?? countSteps(events);
  await display.finish(
    { runId: meta.id, state: meta.finalState ?? meta.status, steps, exitCode: 0 },
    [printableLine(`${meta.kind} run ${meta.id}${meta.name === undefined ? '' : ` (${meta.name})`}: ${outcome}, ${count(steps, 'step')}, ${count(events.length, 'event')}`)],
  );
}
