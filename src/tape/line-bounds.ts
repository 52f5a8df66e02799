/**
 * What agentctl writes, agentctl reads: a tape file's reader refuses a line longer or more deeply
 * nested than TAPE_LIMITS allows (a tape is untrusted input), so every line agentctl makes — each
 * event a store takes, each line an export writes — is held to the same bounds where it is made.
 * An event that could not be a tape line is never stored: its run's export could be neither
 * imported nor replayed.
 */
import { TapeFormatError } from '../core/errors.js';
import type { RunEvent } from '../core/events.js';
import type { RunMeta } from '../core/run-meta.js';
import { nestsDeeperThan } from './json-depth.js';
import { headerLine } from './tape-header.js';
import { TAPE_LIMITS, type TapeLimits } from './tape-limits.js';

/** Room a run's header line keeps for what finishing the run adds to its metadata (status, totals, final state). */
const HEADER_RESERVE = 1024;

/**
 * Why `text` (JSON, without its newline) could not be a line of a tape, or undefined when it could.
 * JSON.stringify and the canonical JSON a tape holds differ only in the order of keys: the same
 * length, the same nesting.
 */
export function lineProblem(text: string, limits: TapeLimits = TAPE_LIMITS): string | undefined {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: only a long text needs counting.
  if (text.length * 3 > limits.maxLineBytes) {
    const bytes = Buffer.byteLength(text);
    if (bytes > limits.maxLineBytes) return `is ${bytes} bytes as a tape line, more than a tape line may be (${limits.maxLineBytes})`;
  }
  if (nestsDeeperThan(text, limits.maxDepth)) return `nests more than ${limits.maxDepth} levels deep, more than a tape line may`;
  return undefined;
}

/** A batch of events as JSON, one text each, up to the first that could not be a tape line. */
export interface EventLines {
  lines: string[];
  /** The first event that could not be a tape line (the lines stop before it), and why. */
  refused?: { event: RunEvent; problem: string };
}

export function eventLines(events: readonly RunEvent[], limits: TapeLimits = TAPE_LIMITS): EventLines {
  const lines: string[] = [];
  for (const event of events) {
    if (event.seq >= limits.maxEvents) return { lines, refused: { event, problem: `is past the most events a tape may hold (${limits.maxEvents})` } };
    const text = JSON.stringify(event);
    const problem = lineProblem(text, limits);
    if (problem !== undefined) return { lines, refused: { event, problem } };
    lines.push(text);
  }
  return { lines };
}

/** The refusal of an event a tape could not hold (exit 9): a recording stops there, an import is undone. */
export function unrecordable(dir: string, runId: string, refused: NonNullable<EventLines['refused']>, by: 'recording' | 'import'): TapeFormatError {
  const { event, problem } = refused;
  return new TapeFormatError(`run ${runId}: event ${event.seq} (${event.type}) ${problem}: a tape could not hold it, so it is not recorded`, { file: dir }, {
    ...(by === 'recording' ? { hint: 'the recording stops here; what was recorded before it is kept (the run is listed as incomplete)' } : {}),
  });
}

/** Refuse to start a run whose tape header could not be a tape line (a task of tens of megabytes). */
export function checkRecordableMeta(meta: RunMeta, dir: string): void {
  const problem = lineProblem(headerLine(meta), { ...TAPE_LIMITS, maxLineBytes: TAPE_LIMITS.maxLineBytes - HEADER_RESERVE });
  if (problem !== undefined) throw new TapeFormatError(`run ${meta.id}: its metadata ${problem}: a tape could not hold it, so it is not recorded`, { file: dir });
}
