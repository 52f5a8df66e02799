/**
 * Where a replay reads its tape: a run in the store, or a portable tape file read straight from
 * disk (no import needed). Either way the events are streamed, never loaded whole.
 */
import type { RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import type { CheckedTapes } from '../tape/checked-tapes.js';
import { runOrDirectory } from '../tape/tape-path.js';
import { isTapePath, openTapeFile } from '../tape/tape-file.js';
import type { TapeStore } from '../tape/tape-store.js';
import { oneByOne } from './step-cursor.js';

export interface TapeSource {
  meta: RunMeta;
  /** Where it came from, for messages: a run id or a file path. */
  label: string;
  events(): AsyncIterable<RunEvent>;
  /** The same events a batch at a time, where the source reads them so (fewer async steps per event). */
  batches?(): AsyncIterable<readonly RunEvent[]>;
}

/**
 * A tape file when `ref` looks like one (or exists as a file, tape-path.ts), else a run in `store`. `checked`: the
 * files checked before, whose checks a read may skip (checked-tapes.ts).
 */
export async function openTapeSource(ref: string, store: () => Promise<TapeStore>, checked: CheckedTapes | null = null): Promise<TapeSource> {
  if (isTapePath(ref)) {
    const tape = await openTapeFile(ref, { checked });
    return { meta: tape.meta, label: ref, events: () => tape.events(), batches: () => tape.batches() };
  }
  const db = await runOrDirectory(ref, store());
  const meta = await db.resolveRun(ref);
  return { meta, label: meta.id, events: () => db.readEvents(meta.id), batches: () => db.readEventBatches(meta.id) };
}

/** The source's events a batch at a time: its own batches, or its events as batches of one. */
export function sourceBatches(source: TapeSource): AsyncIterable<readonly RunEvent[]> {
  return source.batches?.() ?? oneByOne(source.events());
}
