/**
 * Real event streams for UI tests: the committed demo tape as recorded, and replays of it (a patch,
 * a what-if) through the real replay engine, so the UI is tested on what agentctl produces.
 */
import { fileURLToPath } from 'node:url';
import type { RunEvent } from '../../core/events.js';
import { parsePatches } from '../../replay/patches.js';
import { replayRun, type ReplayOptions } from '../../replay/replay-run.js';
import { openTapeSource } from '../../replay/tape-source.js';

export const DEMO_TAPE = fileURLToPath(new URL('../../../tapes/demo-loop.tape.jsonl', import.meta.url));

const noStore = (): never => {
  throw new Error('the demo tape is a file');
};

/** The demo tape's events, as recorded. */
export async function demoEvents(): Promise<RunEvent[]> {
  const source = await openTapeSource(DEMO_TAPE, noStore);
  const events: RunEvent[] = [];
  for await (const event of source.events()) events.push(event);
  return events;
}

/** The events of a replay of the demo tape, with `--patch` values and `--set` overrides. */
export async function demoReplay(options: { patches?: string[]; overrides?: string[] } = {}): Promise<RunEvent[]> {
  const source = await openTapeSource(DEMO_TAPE, noStore);
  const replay: ReplayOptions = { source, patches: parsePatches(options.patches ?? []), overrides: options.overrides ?? [] };
  const events: RunEvent[] = [];
  for await (const event of replayRun(replay)) events.push(event);
  return events;
}
